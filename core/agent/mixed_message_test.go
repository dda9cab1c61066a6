package agent

import (
	"testing"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
)

// TestTextAndToolCallsInOneMessage (seed 003): an answer with text and
// tool calls is one assistant message carrying both, sent back as such,
// followed by one tool message per call.
func TestTextAndToolCallsInOneMessage(t *testing.T) {
	f := newFixture(t, nil)
	f.srv.Enqueue(
		fakellm.Reply{Content: "Let me look first.", ToolCalls: []llm.ToolCall{
			call("a", "ls", map[string]any{"path": "."}),
			call("b", "ls", map[string]any{"path": "."}),
		}},
		fakellm.Reply{Content: "done"},
	)
	f.run(t, "look")
	reqs := f.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	msgs := reqs[1].Messages
	var i int
	for i = range msgs {
		if msgs[i].Role == llm.RoleAssistant {
			break
		}
	}
	m := msgs[i]
	if m.Role != llm.RoleAssistant || m.Content != "Let me look first." || len(m.ToolCalls) != 2 {
		t.Fatalf("the assistant message sent back: %+v", m)
	}
	if i+2 >= len(msgs) || msgs[i+1].ToolCallID != "a" || msgs[i+2].ToolCallID != "b" {
		t.Errorf("the tool messages do not follow it, in order: %+v", msgs[i+1:])
	}
	if n := len(f.sess.History("")); n != 5 {
		t.Errorf("%d messages in the history, want 5 (user, assistant, two tool results, answer)", n)
	}
}
