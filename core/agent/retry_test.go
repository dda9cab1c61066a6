package agent

import (
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
)

func TestRetryIsAnEventOfTheTask(t *testing.T) {
	f := newFixture(t, nil)
	f.srv.Enqueue(fakellm.Reply{Status: 429, RetryAfter: "0"}, fakellm.Reply{Content: "after the wait"})
	f.run(t, "hi")
	started := f.rec.find(event.TaskStarted)
	rs := f.rec.find(event.Retrying)
	if len(rs) != 1 || len(started) != 1 {
		t.Fatalf("retrying events %+v, started %d", rs, len(started))
	}
	r := rs[0]
	if r.Text != "rate limited; retrying now (attempt 2 of 2)" || r.Retry == nil || r.Retry.Reason != llm.RetryRateLimited || r.Retry.StatusCode != 429 {
		t.Errorf("event %+v retry %+v", r, r.Retry)
	}
	if r.Session != string(f.sess.ID()) || r.Conversation == "" || r.Conversation != started[0].Conversation || r.Task != started[0].Task {
		t.Errorf("ids %q/%q/%q, want those of %+v", r.Session, r.Conversation, r.Task, started[0])
	}
	if done := f.rec.find(event.TaskComplete); len(done) != 1 || done[0].Text != "after the wait" {
		t.Errorf("complete = %+v", done)
	}
}

func TestRetryEventText(t *testing.T) {
	tests := []struct {
		in   llm.Retry
		want string
	}{
		{llm.Retry{Reason: llm.RetryRateLimited, StatusCode: 429, Wait: 20 * time.Second, Attempt: 1, MaxAttempts: 4}, "rate limited; retrying in 20 s (attempt 2 of 4)"},
		{llm.Retry{Reason: llm.RetryServerError, StatusCode: 503, Wait: 500 * time.Millisecond, Attempt: 2, MaxAttempts: 4}, "server error (HTTP 503); retrying in 1 s (attempt 3 of 4)"},
		{llm.Retry{Reason: llm.RetryIdle, Wait: time.Second, Attempt: 1, MaxAttempts: 4}, "no data from the model server; retrying in 1 s"},
		{llm.Retry{Reason: llm.RetryConnection, Attempt: 1, MaxAttempts: 4}, "connection failed; retrying now (attempt 2 of 4)"},
	}
	for _, tt := range tests {
		ev := retryEvent(tt.in)
		if ev.Kind != event.Retrying || ev.Text != tt.want || ev.Retry.WaitMS != tt.in.Wait.Milliseconds() {
			t.Errorf("%+v: got %q %+v, want %q", tt.in, ev.Text, ev.Retry, tt.want)
		}
	}
}
