package agent

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/coder-nvim/coder-nvim/core/agent/toolcalls"
	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/store"
	"github.com/coder-nvim/coder-nvim/core/text"
)

// checkValid asserts what real providers require of a request's history,
// beyond checkPairs: tool call ids are non-empty and unique, and no tool
// message answers a call that is not right before it.
func checkValid(t *testing.T, msgs []llm.Message) {
	t.Helper()
	checkPairs(t, msgs)
	seen := map[string]bool{}
	open := map[string]bool{} // calls of the last assistant message not yet answered
	for i, m := range msgs {
		switch m.Role {
		case llm.RoleAssistant:
			open = map[string]bool{}
			for _, c := range m.ToolCalls {
				if c.ID == "" || seen[c.ID] {
					t.Fatalf("message %d: tool call id %q is empty or used before; history: %+v", i, c.ID, msgs)
				}
				seen[c.ID], open[c.ID] = true, true
			}
		case llm.RoleTool:
			if !open[m.ToolCallID] {
				t.Fatalf("message %d: tool message for %q answers no open call; history: %+v", i, m.ToolCallID, msgs)
			}
			delete(open, m.ToolCallID)
		default:
			open = map[string]bool{}
		}
	}
}

func TestResumeRepairsHistory(t *testing.T) {
	user := llm.Message{Role: llm.RoleUser, Content: "do it"}
	asst := func(calls ...llm.ToolCall) llm.Message {
		return llm.Message{Role: llm.RoleAssistant, ToolCalls: calls}
	}
	result := func(id, name, content string) llm.Message {
		return llm.Message{Role: llm.RoleTool, ToolCallID: id, Name: name, Content: content}
	}
	ls := func(id string) llm.ToolCall { return call(id, "ls", map[string]any{}) }
	tests := []struct {
		name string
		msgs []llm.Message
		// results: per tool message of the repaired history, in order,
		// whether it must be the "aborted" one.
		aborted []bool
	}{
		{"killed before any result", []llm.Message{user, asst(ls("a"), ls("b"))}, []bool{true, true}},
		{"killed after the first result", []llm.Message{user, asst(ls("a"), ls("b")), result("a", "ls", "x")}, []bool{false, true}},
		{"results out of order", []llm.Message{user, asst(ls("a"), ls("b")), result("b", "ls", "y"), result("a", "ls", "x")}, []bool{false, false}},
		{"stray tool message", []llm.Message{user, result("zz", "ls", "x"), asst(ls("a")), result("a", "ls", "x"), result("q", "ls", "y")}, []bool{false}},
		{"call without id", []llm.Message{user, asst(ls(""))}, []bool{true}},
		{"duplicate ids", []llm.Message{user, asst(ls("a"), ls("a")), result("a", "ls", "x"), result("a", "ls", "y")}, []bool{false, false}},
		{"id reused by a later turn", []llm.Message{user, asst(ls("call_0")), result("call_0", "ls", "x"), user, asst(ls("call_0")), result("call_0", "ls", "y")}, []bool{false, false}},
		{"user message between call and result", []llm.Message{user, asst(ls("a")), user, result("a", "ls", "x")}, []bool{true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, nil)
			id := f.sess.ID()
			msgs := append([]llm.Message{{Role: llm.RoleSystem, Content: "sys"}}, tt.msgs...)
			snap := &store.Snapshot{ID: string(id), Model: "test-model", Mode: "default", Messages: msgs,
				Conversations: []store.Conversation{{ID: "11111111-1111-1111-1111-111111111111", Messages: tt.msgs}}}
			if err := store.Save(store.Dir(f.root), snap); err != nil {
				t.Fatal(err)
			}
			again := mustResume(t, f.sess.opts, id)
			for _, conv := range []ConversationID{"", "11111111-1111-1111-1111-111111111111"} {
				hist := again.History(conv)
				checkValid(t, hist)
				var got []bool
				for _, m := range hist {
					if m.Role == llm.RoleTool {
						got = append(got, m.Content == toolcalls.Aborted)
					}
				}
				if len(got) != len(tt.aborted) {
					t.Fatalf("conversation %q: %d tool messages, want %d: %+v", conv, len(got), len(tt.aborted), hist)
				}
				for i := range got {
					if got[i] != tt.aborted[i] {
						t.Errorf("conversation %q: tool message %d aborted=%v, want %v: %+v", conv, i, got[i], tt.aborted[i], hist)
					}
				}
			}

			// The next request is valid.
			f.srv.Enqueue(fakellm.Reply{Content: "done"})
			f.sess = again
			f.run(t, "go on")
			reqs := f.srv.Requests()
			checkValid(t, reqs[len(reqs)-1].Messages)
		})
	}
}

func TestToolCallIDsAreUnique(t *testing.T) {
	f := newFixture(t, func(c *config.Config, _ *Options) { c.Mode = "auto-edit" })
	noID := func(name string) llm.ToolCall {
		return llm.ToolCall{Type: "function", Function: llm.FunctionCall{Name: name, Arguments: "{}"}}
	}
	f.srv.Enqueue(
		// Two calls sharing an id in one message.
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("dup", "ls", map[string]any{}), call("dup", "ls", map[string]any{})}},
		// An id used by the step before.
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("dup", "ls", map[string]any{})}},
		// No ids at all, in two steps (the provider numbers both from call_0).
		fakellm.Reply{ToolCalls: []llm.ToolCall{noID("ls"), noID("ls")}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{noID("ls")}},
		fakellm.Reply{Content: "done"},
	)
	f.run(t, "list")
	reqs := f.srv.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d requests, want 5", len(reqs))
	}
	checkValid(t, reqs[4].Messages)
	checkValid(t, f.sess.History(""))
}

// TestSaveDoesNotShareTurns: turns are updated in place while the saver
// encodes the previous snapshot; run with -race.
func TestSaveDoesNotShareTurns(t *testing.T) {
	f := newFixture(t, nil)
	s := f.sess
	s.mu.Lock()
	s.turns = []store.Turn{{Task: "t1", Input: "x", Snapshot: "abc"}}
	s.mu.Unlock()
	for range 20 {
		s.save()
		s.mu.Lock()
		s.turns[0].After = time.Now().String()
		s.turns[0].Undone = !s.turns[0].Undone
		s.mu.Unlock()
	}
	s.saver.flush()
	snap, err := store.Load(store.Dir(f.root), string(s.ID()))
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Turns) != 1 || !strings.Contains(snap.Turns[0].After, ":") {
		t.Errorf("turns = %+v", snap.Turns)
	}
}

func TestTodoArgumentErrors(t *testing.T) {
	tests := []struct {
		args, want string
	}{
		{`[]`, "wrong JSON type (array)"},
		{`{"todos": "x"}`, `"todos" has the wrong JSON type (string)`},
		{`{"todos": [{"content": 1, "status": "pending"}]}`, `"todos.content" has the wrong JSON type (number)`},
		{`{"todo": []}`, `unknown field "todo"`},
		{`{}`, `"todos" is required`},
		{`{"todos": [{"content": "a", "status": "done"}]}`, `todos[0].status is "done"`},
	}
	for _, tt := range tests {
		_, err := todoTool{}.Prepare(context.Background(), nil, json.RawMessage(tt.args))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want it to contain %q", tt.args, err, tt.want)
			continue
		}
		if msg := err.Error(); strings.Contains(msg, "Go ") || strings.Contains(msg, "store.Todo") || strings.Contains(msg, "json:") {
			t.Errorf("%s: error %q leaks Go internals", tt.args, msg)
		}
	}
}

func TestInterruptCompactCommand(t *testing.T) {
	f := newFixture(t, nil)
	f.srv.Enqueue(fakellm.Reply{Content: "first answer"})
	f.run(t, "first")
	f.srv.Enqueue(fakellm.Reply{Content: strings.Repeat("summary ", 200), Chunk: 4, Delay: 20 * time.Millisecond})
	if _, err := f.sess.Submit("/compact"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(f.srv.Requests()) < 2 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	f.sess.Cancel()
	if errs := f.rec.find(event.Error); len(errs) != 0 {
		t.Errorf("interrupting /compact reported errors: %+v", errs)
	}
	if ab := f.rec.find(event.TurnAborted); len(ab) != 1 || ab[0].Reason != event.ReasonInterrupted {
		t.Errorf("abort = %+v", ab)
	}
	if hist := f.sess.History(""); len(hist) != 2 || hist[1].Content != "first answer" {
		t.Errorf("history changed: %+v", hist)
	}
}

func TestInvalidToolNamesAreSanitized(t *testing.T) {
	f := newFixture(t, nil)
	f.srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{
			{ID: "a", Type: "function", Function: llm.FunctionCall{Name: "", Arguments: `{}`}},
			{ID: "b", Type: "function", Function: llm.FunctionCall{Name: "functions.read", Arguments: `{}`}},
		}},
		fakellm.Reply{Content: "ok"},
	)
	f.run(t, "go")
	msgs := f.srv.Requests()[1].Messages
	valid := regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			if !valid.MatchString(c.Function.Name) {
				t.Errorf("history keeps invalid tool name %q", c.Function.Name)
			}
		}
		if m.Role == llm.RoleTool && (!valid.MatchString(m.Name) || !strings.Contains(m.Content, "unknown tool")) {
			t.Errorf("tool message %+v", m)
		}
	}
}

func TestTruncateKeepsCharacters(t *testing.T) {
	for n := 0; n < 8; n++ {
		if got := text.Truncate("héllo wörld", n); !utf8.ValidString(got) {
			t.Errorf("text.Truncate(%d) = %q is not valid UTF-8", n, got)
		}
	}
}
