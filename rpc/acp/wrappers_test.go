package acp_test

import (
	"testing"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	sdk "github.com/coder/acp-go-sdk"
)

// avantePrompt is a prompt as avante.nvim sends it in a running session:
// the user's recent messages newest first, each wrapped, then its note.
func avantePrompt(newestFirst ...string) []sdk.ContentBlock {
	var out []sdk.ContentBlock
	for _, m := range newestFirst {
		out = append(out, sdk.TextBlock("<previous_user_message>"+m+"</previous_user_message>"))
	}
	return append(out, sdk.TextBlock("<system_context>Continuing from previous session with 2 recent user messages</system_context>"))
}

// TestWrappedPrompts: a session started from avante is titled with the
// user's words, and a slash command inside avante's wrapper runs as the
// command instead of going to the model.
func TestWrappedPrompts(t *testing.T) {
	e := newEnv(t, envOptions{})
	sid, _ := e.newSession()
	e.llm.Enqueue(fakellm.Reply{Content: "Hello."})
	if _, err := e.conn.Prompt(ctxT(t), sdk.PromptRequest{SessionId: sid, Prompt: avantePrompt("Say something")}); err != nil {
		t.Fatal(err)
	}
	list, err := e.conn.ListSessions(ctxT(t), sdk.ListSessionsRequest{Cwd: sdk.Ptr(e.root)})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Sessions) != 1 || ptrText(list.Sessions[0].Title) != "Say something" {
		t.Errorf("sessions %+v, want one titled %q", list.Sessions, "Say something")
	}

	resp, err := e.conn.Prompt(ctxT(t), sdk.PromptRequest{SessionId: sid, Prompt: avantePrompt("/mode auto-edit", "Say something")})
	if err != nil || resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("wrapped /mode: %+v %v", resp, err)
	}
	if n := len(e.llm.Requests()); n != 1 {
		t.Errorf("%d model requests, want 1: the wrapped command went to the model", n)
	}
	e.client.waitFor(t, "the mode switched to auto-edit", func() bool {
		for _, u := range e.client.snapshot() {
			if m := u.Update.CurrentModeUpdate; m != nil && m.CurrentModeId == "auto-edit" {
				return true
			}
		}
		return false
	})
}
