package nvimhost

import (
	"strings"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/fakellm"
)

func TestRenderRetry(t *testing.T) {
	var f fakeBuffer
	r := f.renderer()
	for _, ev := range []event.Event{
		{Kind: event.TaskStarted, Task: "t1", Text: "hi"},
		{Kind: event.UserMessage, Text: "hi"},
		{Kind: event.Retrying, Task: "t1", Text: "rate limited; retrying in 20 s (attempt 2 of 4)", Retry: &event.Retry{Reason: "rate_limited", WaitMS: 20000}},
		{Kind: event.AgentMessageDelta, Text: "Hello."},
		{Kind: event.TaskComplete, Task: "t1", Reason: event.StopEndTurn},
	} {
		r.event(ev)
	}
	want := "## You\nhi\n⟳ rate limited; retrying in 20 s (attempt 2 of 4)\n\n## Agent\nHello.\n"
	if !strings.HasSuffix(f.text, want) {
		t.Fatalf("transcript:\n%s\nwant it to end with:\n%s", f.text, want)
	}
}

// The wait shows in a real Neovim transcript while the turn runs.
func TestRetryWaitInTranscript(t *testing.T) {
	e := newEditor(t, editorOpts{})
	e.llm.Enqueue(fakellm.Reply{Status: 429, RetryAfter: "1"}, fakellm.Reply{Content: "answer after the wait"})
	e.start()
	e.lua(`require('coder').send('hello')`, nil)
	e.waitFor("the answer", 20*time.Second, func() bool { return strings.Contains(e.transcript(), "answer after the wait") })
	tr := e.transcript()
	want := "⟳ rate limited; retrying in 1 s (attempt 2 of 4)\n"
	if strings.Count(tr, want) != 1 || strings.Index(tr, want) > strings.Index(tr, "answer after the wait") {
		t.Errorf("transcript should show %q once, before the answer:\n%s", want, tr)
	}
}
