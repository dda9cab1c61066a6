package agent

import (
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/agent/conv"
	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
)

// TestConvArgumentChecks (seed 000): conv_create needs user_instruction or
// items, conv_send text or items; either refused call creates and sends
// nothing and the turn goes on.
func TestConvArgumentChecks(t *testing.T) {
	f := convFixture(t, nil)
	f.srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{
			call("c", "conv_create", map[string]any{"base_instruction_text": "x"}),
			call("s", "conv_send", map[string]any{"conversation_id": string(f.sess.RootConversation())}),
		}},
		fakellm.Reply{Content: "ok"},
	)
	f.run(t, "go")
	hist := f.sess.History("")
	checkPairs(t, hist)
	for id, want := range map[string]string{"c": "give user_instruction or items (at least one)", "s": "give text or items (at least one)"} {
		if m := toolMsg(hist, id); m == nil || !strings.Contains(m.Content, want) {
			t.Errorf("%s: result %+v, want %q", id, m, want)
		}
	}
	if n := len(f.sess.Conversations()); n != 1 {
		t.Errorf("%d conversations after refused calls, want 1", n)
	}
}

// TestConvToolDescriptions (seed 000): the non-interrupting tools say so,
// the interrupting ones say they interrupt.
func TestConvToolDescriptions(t *testing.T) {
	for _, tl := range conv.Tools(nil) {
		spec := tl.Spec().Function
		interrupting := spec.Name == conv.ToolCreate || spec.Name == conv.ToolSend
		if interrupting != strings.HasPrefix(spec.Description, "Interrupting:") {
			t.Errorf("%s: %q", spec.Name, spec.Description)
		}
		if !interrupting && !strings.Contains(spec.Description, "does not interrupt") {
			t.Errorf("%s does not say it does not interrupt: %q", spec.Name, spec.Description)
		}
	}
}
