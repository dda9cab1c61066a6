package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/agent/toolcalls"
	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/store"
	"github.com/coder-nvim/coder-nvim/core/tools"
)

func TestResumeAnswersStartedCallsOutcomeUnknown(t *testing.T) {
	f := newFixture(t, nil)
	id := f.sess.ID()
	ls := func(id string) llm.ToolCall { return call(id, "ls", map[string]any{}) }
	snap := &store.Snapshot{ID: string(id), Model: "test-model", Mode: "default", Started: []string{"a", "c"},
		Messages: []llm.Message{{Role: llm.RoleSystem, Content: "sys"}, {Role: llm.RoleUser, Content: "do it"},
			{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{ls("c"), ls("a"), ls("b")}},
			{Role: llm.RoleTool, ToolCallID: "c", Name: "ls", Content: "c ran"}}}
	if err := store.Save(store.Dir(f.root), snap); err != nil {
		t.Fatal(err)
	}
	again := mustResume(t, f.sess.opts, id)
	hist := again.History("")
	checkValid(t, hist)
	got := map[string]string{}
	for _, m := range hist {
		if m.Role == llm.RoleTool {
			got[m.ToolCallID] = m.Content
		}
	}
	// a started and has no result: unknown; b never started: aborted; c
	// started and finished: its own result.
	want := map[string]string{"a": toolcalls.Unknown, "b": toolcalls.Aborted, "c": "c ran"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("result of %s = %q, want %q", k, got[k], v)
		}
	}
}

// probeTool is a side-effecting tool that reports what the session file
// held when it started running.
type probeTool struct{ seen func() }

func (probeTool) Spec() llm.Tool {
	return llm.Tool{Type: "function", Function: llm.FunctionDef{Name: "probe", Parameters: json.RawMessage(`{"type":"object"}`)}}
}
func (probeTool) Kind() tools.Kind { return tools.KindExecute }
func (p probeTool) Prepare(context.Context, *tools.Workspace, json.RawMessage) (*tools.Invocation, error) {
	inv := tools.NewInvocation("probe", tools.KindExecute, "probe", func(context.Context) tools.Result {
		p.seen()
		return tools.Result{Output: "probed", Summary: "ok"}
	})
	inv.Command = "probe"
	return inv, nil
}

// TestPersistedBeforeSlowSteps checks, from the file on disk, that a tool
// call is recorded as started before it runs and that every tool result is
// written before the next model request is sent.
func TestPersistedBeforeSlowSteps(t *testing.T) {
	var f *fixture
	var startedOnDisk []string
	probe := probeTool{seen: func() {
		snap, err := store.Resume(store.Dir(f.root), string(f.sess.ID()))
		if err != nil {
			t.Errorf("no session file when the tool started: %v", err)
			return
		}
		startedOnDisk = snap.Started
	}}
	f = newFixture(t, func(_ *config.Config, o *Options) {
		o.Tools = []tools.Tool{probe}
		o.AllowAsks = true
	})
	replies := []fakellm.Reply{
		{ToolCalls: []llm.ToolCall{call("p1", "probe", map[string]any{}), call("p2", "probe", map[string]any{})}},
		{Content: "done"},
	}
	var mismatch []string
	f.srv.SetScript(func(req fakellm.Request) fakellm.Reply {
		n := len(f.srv.Requests()) - 1
		snap, err := store.Resume(store.Dir(f.root), string(f.sess.ID()))
		switch {
		case err != nil:
			mismatch = append(mismatch, fmt.Sprintf("request %d: %v", n, err))
		case len(snap.Messages) != len(req.Messages):
			mismatch = append(mismatch, fmt.Sprintf("request %d has %d messages, the file %d", n, len(req.Messages), len(snap.Messages)))
		}
		return replies[min(n, len(replies)-1)]
	})
	f.run(t, "probe twice")
	if len(mismatch) > 0 {
		t.Errorf("requests sent before the history was on disk: %v", mismatch)
	}
	if !slices.Equal(startedOnDisk, []string{"p2"}) {
		t.Errorf("started calls on disk when p2 ran = %v, want [p2]", startedOnDisk)
	}
	snap, err := store.Load(store.Dir(f.root), string(f.sess.ID()))
	if err != nil || len(snap.Started) != 0 {
		t.Errorf("after the turn: started %v, %v; want none", snap.Started, err)
	}
}

func TestSessionHasOneWriter(t *testing.T) {
	f := newFixture(t, nil)
	f.srv.Enqueue(fakellm.Reply{Content: "one"})
	f.run(t, "first")
	id := f.sess.ID()

	// Another engine (another editor, another exec) is refused at once.
	if _, err := Resume(f.sess.opts, id); !errors.Is(err, store.ErrLocked) {
		t.Fatalf("Resume of a session in use: %v, want ErrLocked", err)
	}
	other, err := Open(f.sess.opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(other.Close)
	rec := &recorder{}
	other.opts.OnEvent = rec.handle
	if err := other.Run(context.Background(), "/resume "+string(id)); err != nil {
		t.Fatal(err)
	}
	var locked bool
	for _, ev := range rec.events {
		locked = locked || ev.Kind == event.Error && ev.Reason == event.ReasonSessionLocked
	}
	if !locked || other.ID() == id {
		t.Errorf("/resume of a session in use: locked error %v, id %s; events %+v", locked, other.ID(), rec.events)
	}
	// Listing still shows it.
	list, err := store.List(store.Dir(f.root))
	if err != nil || len(list) != 1 || list[0].ID != string(id) {
		t.Errorf("List = %+v, %v", list, err)
	}

	// /new gives the session up; then it can be taken.
	f.run(t, "/new")
	if err := other.Run(context.Background(), "/resume "+string(id)); err != nil || other.ID() != id {
		t.Fatalf("/resume after /new elsewhere: %v, id %s", err, other.ID())
	}
	other.Close()
	again, err := Resume(f.sess.opts, id)
	if err != nil {
		t.Fatalf("Resume after Close: %v", err)
	}
	again.Close()
}

// TestResumeAfterKillMidHandOver: a session saved while a conversation
// had the turn (its caller's call still "pending") resumes with the call
// answered "interrupted", never pending for good.
func TestResumeAfterKillMidHandOver(t *testing.T) {
	f := newFixture(t, nil)
	id := f.sess.ID()
	cc := call("h", "conv_create", map[string]any{"user_instruction": "go"})
	snap := &store.Snapshot{ID: string(id), Model: "test-model", Mode: "default", Started: []string{"h"},
		Messages: []llm.Message{{Role: llm.RoleUser, Content: "delegate"},
			{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{cc}},
			{Role: llm.RoleTool, ToolCallID: "h", Name: "conv_create", Content: fmt.Sprintf(toolcalls.Pending, "00000000-0000-4000-8000-000000000009")}}}
	if err := store.Save(store.Dir(f.root), snap); err != nil {
		t.Fatal(err)
	}
	again := mustResume(t, f.sess.opts, id)
	if m := toolMsg(again.History(""), "h"); m == nil || m.Content != toolcalls.InterruptedHandOver {
		t.Errorf("hand-over result after resume = %+v", m)
	}
}

// A step that changes nothing — a command proven read-only, a read tool —
// waits for the disk neither for its start nor for its result: they are in
// the file at once (a host crash loses nothing) and the turn's answer makes
// them durable. A command that may write still has its start marker
// synced before it runs, so resume can say "outcome unknown".
func TestReadOnlyStepsDoNotWaitForTheDisk(t *testing.T) {
	tests := []struct {
		name     string
		command  string
		min, max int64 // journal syncs of the turn
	}{
		// the user's message, the answer and, when the turn's first
		// snapshot is done in time, its record; 8 when every step synced
		{"read-only", "echo step", 0, 3},
		// at least a start marker per call besides
		{"writes", "echo step > out.txt", 2 + 3, 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, func(c *config.Config, o *Options) { o.AllowAsks = true })
			f.srv.Enqueue(fakellm.Reply{Content: "hello"})
			f.run(t, "warm up") // the journal opens with the first turn
			f.sess.mu.Lock()
			j := f.sess.journal
			f.sess.mu.Unlock()
			before := j.Syncs()
			var replies []fakellm.Reply
			for i := range 3 {
				replies = append(replies, fakellm.Reply{ToolCalls: []llm.ToolCall{call(fmt.Sprint("c", i), "bash", map[string]any{"command": tt.command})}})
			}
			f.srv.Enqueue(append(replies, fakellm.Reply{Content: "done"})...)
			f.run(t, "run it")
			if syncs := j.Syncs() - before; syncs < tt.min || syncs > tt.max {
				t.Errorf("%d journal syncs for the turn, want %d to %d", syncs, tt.min, tt.max)
			}
			snap, err := store.Resume(store.Dir(f.root), string(f.sess.ID()))
			if err != nil {
				t.Fatal(err)
			}
			results := 0
			for _, m := range snap.Messages {
				if m.Role == llm.RoleTool && m.Content != "" {
					results++
				}
			}
			if results != 3 {
				t.Errorf("%d tool results in the file, want 3", results)
			}
		})
	}
}
