package acp_test

import (
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
	sdk "github.com/coder/acp-go-sdk"
)

// /rewind is an available command with a hint; through ACP it lists the
// turns, and /rewind 1 leaves the next request without turn 1.
func TestACPRewind(t *testing.T) {
	e := newEnv(t, envOptions{})
	sid, _ := e.newSession()
	e.client.waitFor(t, "/rewind among the available commands", func() bool {
		for _, u := range e.client.snapshot() {
			if a := u.Update.AvailableCommandsUpdate; a != nil {
				for _, c := range a.AvailableCommands {
					if c.Name == "rewind" && c.Input != nil && c.Input.Unstructured != nil && strings.Contains(c.Input.Unstructured.Hint, "turn number") {
						return true
					}
				}
			}
		}
		return false
	})
	e.llm.Enqueue(fakellm.Reply{Content: "hello back"})
	e.mustPrompt(sid, "first question", sdk.StopReasonEndTurn)

	before := len(e.client.snapshot())
	e.mustPrompt(sid, "/rewind", sdk.StopReasonEndTurn)
	if text := agentText(e.client.snapshot()[before:]); !strings.Contains(text, "  1  ") || !strings.Contains(text, "first question") {
		t.Errorf("/rewind answered %q", text)
	}
	before = len(e.client.snapshot())
	e.mustPrompt(sid, "/rewind 1", sdk.StopReasonEndTurn)
	if text := agentText(e.client.snapshot()[before:]); !strings.Contains(text, "rewound to just before turn 1") {
		t.Errorf("/rewind 1 answered %q", text)
	}
	e.llm.ForgetRequests()
	e.llm.Enqueue(fakellm.Reply{Content: "fresh"})
	e.mustPrompt(sid, "second question", sdk.StopReasonEndTurn)
	reqs := e.llm.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	for _, m := range reqs[0].Messages {
		if m.Role == llm.RoleUser && strings.Contains(m.Content, "first question") {
			t.Errorf("the request after /rewind 1 still holds turn 1: %+v", reqs[0].Messages)
		}
	}
}

// TestRewindListsImageTurnsByText: a turn that starts with a picture is
// listed by the user's words, not as "[image 1]".
func TestRewindListsImageTurnsByText(t *testing.T) {
	e := newEnv(t, envOptions{})
	sid, _ := e.newSession()
	e.llm.Enqueue(fakellm.Reply{Content: "a cat"})
	if _, err := e.conn.Prompt(ctxT(t), sdk.PromptRequest{SessionId: sid, Prompt: []sdk.ContentBlock{
		sdk.ImageBlock("iVBORw0KGgo=", "image/png"), sdk.TextBlock("what animal is this")}}); err != nil {
		t.Fatal(err)
	}
	before := len(e.client.snapshot())
	e.mustPrompt(sid, "/rewind", sdk.StopReasonEndTurn)
	if text := agentText(e.client.snapshot()[before:]); !strings.Contains(text, "what animal is this") {
		t.Errorf("/rewind answered %q, want the image turn listed by its text", text)
	}
}
