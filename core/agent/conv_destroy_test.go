package agent

import (
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
)

// TestConvDestroyCaller (seed 000 §5): the root hands over to A, A to B,
// and B destroys A. A's queued continuation, dropped with it, carried the
// way back to the root: the root's call gets its result, the hand-back to
// the root is sent (front ends un-nest on it), and the root answers.
func TestConvDestroyCaller(t *testing.T) {
	f := convFixture(t, nil)
	const a = "00000000-0000-4000-8000-000000000003"
	f.srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("c1", "conv_create", map[string]any{"user_instruction": "make B"})}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("c2", "conv_create", map[string]any{"user_instruction": "destroy A"})}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("d", "conv_destroy", map[string]any{"conversation_id": a})}},
		fakellm.Reply{Content: "B is done"},
		fakellm.Reply{Content: "ROOT ANSWER"},
	)
	f.run(t, "start")
	life := strings.Join(f.lifecycle(), " ")
	if got := f.rec.find(event.HandBack); len(got) != 2 {
		t.Fatalf("%d hand-backs, want 2 (B→A's and A→root's):\n%s", len(got), life)
	}
	if backs := f.rec.find(event.HandBack); backs[1].Conversation != string(f.sess.RootConversation()) || backs[1].Target != a {
		t.Errorf("the last hand-back is %+v, want the root's from A:\n%s", backs[1], life)
	}
	hist := f.sess.History("")
	checkPairs(t, hist)
	if m := toolMsg(hist, "c1"); m == nil || !strings.Contains(m.Content, "closed before it answered") {
		t.Errorf("the root's call result = %+v", m)
	}
	if last := hist[len(hist)-1]; last.Role != llm.RoleAssistant || last.Content != "ROOT ANSWER" {
		t.Errorf("the root did not answer: %+v\n%s", last, life)
	}
}
