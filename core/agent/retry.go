package agent

import (
	"fmt"
	"time"

	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/llm"
)

// retryEvent tells the front ends why nothing arrives while the provider
// waits to send a request again.
func retryEvent(r llm.Retry) event.Event {
	var what string
	switch r.Reason {
	case llm.RetryRateLimited:
		what = "rate limited"
	case llm.RetryServerError:
		what = fmt.Sprintf("server error (HTTP %d)", r.StatusCode)
	case llm.RetryIdle:
		what = "no data from the model server"
	default:
		what = "connection failed"
	}
	when := "retrying now"
	if r.Wait > 0 {
		when = fmt.Sprintf("retrying in %d s", (r.Wait+time.Second-1)/time.Second)
	}
	text := what + "; " + when
	if r.Reason != llm.RetryIdle && r.MaxAttempts > 0 {
		text += fmt.Sprintf(" (attempt %d of %d)", r.Attempt+1, r.MaxAttempts)
	}
	return event.Event{Kind: event.Retrying, Text: text, Retry: &event.Retry{
		Reason:      r.Reason,
		StatusCode:  r.StatusCode,
		WaitMS:      r.Wait.Milliseconds(),
		Attempt:     r.Attempt,
		MaxAttempts: r.MaxAttempts,
		Message:     r.Message,
	}}
}
