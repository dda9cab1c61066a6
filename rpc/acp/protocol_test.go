package acp_test

import (
	"strings"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	sdk "github.com/coder/acp-go-sdk"
)

func thoughtText(updates []sdk.SessionNotification) string {
	var b strings.Builder
	for _, u := range updates {
		if c := u.Update.AgentThoughtChunk; c != nil && c.Content.Text != nil {
			b.WriteString(c.Content.Text.Text)
		}
	}
	return b.String()
}

// A rate-limit wait shows as a thought, and the answer stays the answer.
func TestRetryWaitIsAThought(t *testing.T) {
	e := newEnv(t, envOptions{})
	sid, _ := e.newSession()
	e.llm.Enqueue(fakellm.Reply{Status: 429, RetryAfter: "0"}, fakellm.Reply{Content: "after the wait"})
	e.mustPrompt(sid, "hi", sdk.StopReasonEndTurn)
	ups := e.client.snapshot()
	if got := thoughtText(ups); got != "rate limited; retrying now (attempt 2 of 4)\n\n" {
		t.Errorf("thoughts %q", got)
	}
	if got := agentText(ups); got != "after the wait" {
		t.Errorf("answer %q", got)
	}
}

// A request over the line limit is answered under its own id; before, the
// client waited for an answer forever.
func TestOversizedPromptIsAnswered(t *testing.T) {
	e := newEnv(t, envOptions{})
	sid, _ := e.newSession()
	start := time.Now()
	_, err := e.prompt(sid, strings.Repeat("x", 9<<20))
	if err == nil || requestCode(err) != -32600 || !strings.Contains(err.Error(), "larger than 8 MB") {
		t.Fatalf("err = %v (code %d) after %v; want -32600 naming the limit", err, requestCode(err), time.Since(start))
	}
	// The connection still serves the session.
	e.llm.Enqueue(fakellm.Reply{Content: "still here"})
	e.mustPrompt(sid, "hi", sdk.StopReasonEndTurn)
	if n := len(e.llm.Requests()); n != 1 {
		t.Errorf("the model got %d requests, want only the small prompt", n)
	}
}

// Image blocks reach the model as image_url parts; the text-only messages
// around them keep their plain string content.
func TestPromptImagesReachTheModel(t *testing.T) {
	e := newEnv(t, envOptions{})
	init, err := e.conn.Initialize(ctxT(t), sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber})
	if err != nil || !init.AgentCapabilities.PromptCapabilities.Image {
		t.Fatalf("initialize: %v, image capability %v", err, init.AgentCapabilities.PromptCapabilities.Image)
	}
	sid, _ := e.newSession()
	e.llm.Enqueue(fakellm.Reply{Content: "a red dot"}, fakellm.Reply{Content: "still a dot"})
	resp, err := e.conn.Prompt(ctxT(t), sdk.PromptRequest{SessionId: sid, Prompt: []sdk.ContentBlock{
		sdk.TextBlock("what is in "), sdk.ImageBlock("iVBORw0KGgo=", "image/png"), sdk.TextBlock("?"),
	}})
	if err != nil || resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt: %v %v\nstderr:\n%s", resp, err, e.proc.stderr.String())
	}
	e.mustPrompt(sid, "and now?", sdk.StopReasonEndTurn)
	reqs := e.llm.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests", len(reqs))
	}
	// The second request replays the first turn's image from the history.
	for i, r := range reqs {
		raw := string(r.Raw)
		want := `{"role":"user","content":[{"type":"text","text":"what is in [image 1]?"},{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}}]}`
		if !strings.Contains(raw, want) {
			t.Errorf("request %d lacks %s:\n%.2000s", i, want, raw)
		}
	}
	if !strings.Contains(string(reqs[1].Raw), `{"role":"user","content":"and now?"}`) {
		t.Errorf("a text-only message is no longer plain content:\n%.2000s", reqs[1].Raw)
	}
}

// An image that cannot be sent is refused with a reason; the model is not
// called with the rest of the prompt as if it were whole.
func TestPromptImageRefused(t *testing.T) {
	e := newEnv(t, envOptions{})
	sid, _ := e.newSession()
	_, err := e.conn.Prompt(ctxT(t), sdk.PromptRequest{SessionId: sid, Prompt: []sdk.ContentBlock{
		sdk.TextBlock("what is this? "), sdk.ImageBlock("AAAA", "image/tiff"),
	}})
	if err == nil || requestCode(err) != -32602 || !strings.Contains(err.Error(), `unsupported type \"image/tiff\"`) {
		t.Fatalf("err = %v (code %d)", err, requestCode(err))
	}
	if n := len(e.llm.Requests()); n != 0 {
		t.Errorf("the model got %d requests", n)
	}
}
