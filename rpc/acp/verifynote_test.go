package acp_test

import (
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
	sdk "github.com/coder/acp-go-sdk"
)

// TestVerifyNoteOnce: in auto-edit mode, with no test command to run,
// that auto-verify did not run is said once: not after each write, nor
// again in the next turn for the same reason.
func TestVerifyNoteOnce(t *testing.T) {
	e := newEnv(t, envOptions{})
	sid, _ := e.newSession()
	e.setMode(sid, "auto-edit")
	e.llm.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("w1", "write", map[string]string{"path": "a.go", "content": "package a\n"})}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("w2", "write", map[string]string{"path": "b.go", "content": "package a\n"})}},
		fakellm.Reply{Content: "Wrote both."},
	)
	e.mustPrompt(sid, "write a.go and b.go", sdk.StopReasonEndTurn)
	e.llm.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("w3", "write", map[string]string{"path": "c.go", "content": "package a\n"})}},
		fakellm.Reply{Content: "Wrote c."},
	)
	e.mustPrompt(sid, "write c.go", sdk.StopReasonEndTurn)
	text := agentText(e.client.snapshot())
	if n := strings.Count(text, "auto-verify"); n != 1 {
		t.Errorf("the auto-verify note came %d times in %q, want once", n, text)
	}
	if !strings.Contains(text, "Wrote c.") {
		t.Errorf("the second turn's answer is missing: %q", text)
	}
}
