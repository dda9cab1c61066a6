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
