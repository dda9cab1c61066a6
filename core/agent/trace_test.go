package agent

import (
	"encoding/json"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
)

// TestTraceIDs (seed 004 §9): every event of the tasks one user input
// caused (its hand-over, the target's task, the continuation, the
// hand-back) carries that input's trace_id, and its task's span_id; the
// hand-over's result names the trace too. The next input is a new trace.
func TestTraceIDs(t *testing.T) {
	f := convFixture(t, nil)
	f.srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("c1", "conv_create", map[string]any{"user_instruction": "you are A"})}},
		fakellm.Reply{Content: "A done"},
		fakellm.Reply{Content: "root done"},
		fakellm.Reply{Content: "second"},
	)
	f.run(t, "first")
	n := len(f.rec.events)
	f.run(t, "second")
	f.rec.mu.Lock()
	events := append(f.rec.events[:0:0], f.rec.events...)
	f.rec.mu.Unlock()
	first := ""
	tasks := map[string]bool{}
	for i, e := range events {
		if e.Task == "" {
			continue // session-wide events (notices, status)
		}
		if e.Span != e.Task || e.Trace == "" {
			t.Errorf("event %d %s: trace %q span %q task %q", i, e.Kind, e.Trace, e.Span, e.Task)
		}
		if i < n {
			if first == "" {
				first = e.Trace
			}
			if e.Trace != first {
				t.Errorf("event %d %s of the first input: trace %q, want %q", i, e.Kind, e.Trace, first)
			}
			tasks[e.Task] = true
		} else if e.Trace == first {
			t.Errorf("event %d %s of the second input is in the first's trace", i, e.Kind)
		}
	}
	if len(tasks) != 3 {
		t.Errorf("%d tasks in the first trace, want 3 (root, A, continuation)", len(tasks))
	}
	var res struct {
		TraceID string `json:"trace_id"`
	}
	if m := toolMsg(f.srv.Requests()[2].Messages, "c1"); m == nil || json.Unmarshal([]byte(m.Content), &res) != nil || res.TraceID != first {
		t.Errorf("conv_create result %+v: want trace_id %q", m, first)
	}
}
