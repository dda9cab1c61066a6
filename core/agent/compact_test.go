package agent

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/agent/compact"
	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/store"
	"github.com/coder-nvim/coder-nvim/core/tools"
	"github.com/google/uuid"
)

// bigSession saves an n-message session (about 4 KB of tool output per
// call, so 5,000 messages are ~10 MB, ~2.5M tokens) and returns its id.
func bigSession(t testing.TB, root string, n int) string {
	t.Helper()
	snap := &store.Snapshot{ID: uuid.NewString(), Model: "test-model", Mode: "default",
		Messages: []llm.Message{{Role: llm.RoleSystem, Content: "sys"}, {Role: llm.RoleUser, Content: "first request"}}}
	for i := 0; len(snap.Messages) < n; i++ {
		id := fmt.Sprint("old_call_", i)
		snap.Messages = append(snap.Messages,
			llm.Message{Role: llm.RoleAssistant, Content: "reading", ToolCalls: []llm.ToolCall{{ID: id, Type: "function",
				Function: llm.FunctionCall{Name: "read", Arguments: `{"path":"f` + fmt.Sprint(i) + `.go","pad":"` + strings.Repeat("a", 2000) + `"}`}}}},
			llm.Message{Role: llm.RoleTool, ToolCallID: id, Name: "read", Content: strings.Repeat("line of code\n", 300)})
	}
	if err := store.Save(store.Dir(root), snap); err != nil {
		t.Fatal(err)
	}
	return snap.ID
}

// TestCompactionFitsAndKeepsTheRecord: a 5,000-message session with the
// default 128k window; every request the model receives is within the
// window (the summary requests included), the turn completes, and the
// session's earliest tool call is still on disk afterwards.
func TestCompactionFitsAndKeepsTheRecord(t *testing.T) {
	f := newFixture(t, nil)
	id := bigSession(t, f.root, 5000)
	window := f.sess.opts.Config.ContextWindow
	f.srv.SetScript(func(req fakellm.Request) fakellm.Reply {
		if strings.Contains(req.Messages[0].Content, "summarise a coding session") {
			return fakellm.Reply{Content: "SUMMARY of " + fmt.Sprint(len(req.Messages)) + " messages"}
		}
		return fakellm.Reply{Content: "continued"}
	})
	s := mustResume(t, f.sess.opts, SessionID(id))
	if err := s.Run(context.Background(), "go on"); err != nil {
		t.Fatal(err)
	}
	reqs := f.srv.Requests()
	if len(reqs) < 3 {
		t.Fatalf("%d requests: want chunked summaries, then the turn", len(reqs))
	}
	var summaries int
	for i, r := range reqs {
		if tok := compact.EstimateTokens(r.Messages); tok > window {
			t.Errorf("request %d: ~%d tokens, over the %d window", i, tok, window)
		}
		if len(r.Raw)/4 > window {
			t.Errorf("request %d: %d bytes on the wire, over the window at 4 bytes a token", i, len(r.Raw))
		}
		if strings.Contains(r.Messages[0].Content, "summarise a coding session") {
			summaries++
		}
	}
	if summaries < 2 {
		t.Errorf("%d summary requests: a history 20× the window needs chunks", summaries)
	}
	last := reqs[len(reqs)-1].Messages
	checkPairs(t, last)
	if !strings.Contains(last[len(last)-1].Content, "go on") {
		t.Errorf("the turn's request does not end with the user's message: %+v", last[len(last)-1])
	}
	if s.History("")[len(s.History(""))-1].Content != "continued" {
		t.Errorf("the turn did not complete")
	}
	s.Close()
	got, err := store.Resume(store.Dir(f.root), id)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Messages) < 5000 || len(got.Messages[2].ToolCalls) == 0 || got.Messages[2].ToolCalls[0].ID != "old_call_0" {
		t.Fatalf("the earliest tool call is gone from disk: %d messages", len(got.Messages))
	}
	if len(got.Views) != 1 || !strings.Contains(got.Views[0].Summary, "SUMMARY") {
		t.Errorf("the compacted view is not stored beside the history: %+v", got.Views)
	}
}

// TestCompactionFailureFallsBackLocally: an error or an empty answer to the
// summary request never fails the turn: a local summary (the user's
// requests, the files touched) is sent instead.
func TestCompactionFailureFallsBackLocally(t *testing.T) {
	for _, bad := range []fakellm.Reply{{Status: 400}, {Content: "  "}} {
		t.Run(fmt.Sprint(bad.Status), func(t *testing.T) {
			f := newFixture(t, func(c *config.Config, o *Options) {
				c.ContextWindow = 4000
				c.CompactThreshold = 0.5
				o.AllowAsks = true
			})
			f.srv.Enqueue(
				fakellm.Reply{ToolCalls: []llm.ToolCall{call("w1", "write", map[string]any{"path": "big.txt", "content": strings.Repeat("x", 8000)})}},
				bad, // the summary
				fakellm.Reply{Content: "done"},
			)
			f.run(t, "write the big file")
			reqs := f.srv.Requests()
			last := reqs[len(reqs)-1].Messages
			var local bool
			for _, m := range last {
				local = local || strings.Contains(m.Content, "local summary") && strings.Contains(m.Content, "write the big file") && strings.Contains(m.Content, "write big.txt")
			}
			if !local {
				t.Errorf("no local summary in the next request: %+v", last)
			}
			if h := f.sess.History(""); h[len(h)-1].Content != "done" {
				t.Errorf("the turn did not go on: %+v", h[len(h)-1])
			}
		})
	}
}

// BenchmarkRequestBuild is the allocation of building one step's request
// at 200 and 5,000 messages of history: bounded by what is sent, not by
// the history's length.
func BenchmarkRequestBuild(b *testing.B) {
	for _, n := range []int{200, 5000} {
		b.Run(fmt.Sprint("messages=", n), func(b *testing.B) {
			cfg := config.Defaults()
			s, err := Open(Options{Config: cfg, Root: b.TempDir(), Provider: instantProvider{}, Tools: []tools.Tool{noopTool{}}})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			var hist []llm.Message
			for i := 0; len(hist) < n; i++ {
				id := fmt.Sprint("call", i)
				hist = append(hist,
					llm.Message{Role: llm.RoleAssistant, Content: "text", ToolCalls: []llm.ToolCall{{ID: id, Type: "function", Function: llm.FunctionCall{Name: "noop", Arguments: `{}`}}}},
					llm.Message{Role: llm.RoleTool, ToolCallID: id, Name: "noop", Content: "output"})
			}
			c := s.rootConv
			c.history = hist
			if n > 200 { // as compaction leaves it: the newest 200 sent
				c.view = compact.NewView(hist, 0, nil, n-200, "summary")
			}
			t := &task{s: s, id: "00000000-bench", conv: c, snaps: &turnSnaps{}}
			tc := s.turnContext(t)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				_ = s.request(tc)
			}
		})
	}
}
