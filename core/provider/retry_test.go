package provider

import (
	"errors"

	"net/http"
	"strings"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"testing"
	"time"
)

func TestRetryOn429(t *testing.T) {
	s, p := setup(t)
	s.Enqueue(fakellm.Reply{Status: 429, RetryAfter: "0"}, fakellm.Reply{Status: 429}, fakellm.Reply{Content: "finally"})
	resp, _, err := collect(t, p, simpleReq)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Content != "finally" || len(s.Requests()) != 3 {
		t.Errorf("content %q after %d requests", resp.Message.Content, len(s.Requests()))
	}
}

func TestRetryAfterHonoured(t *testing.T) {
	s := fakellm.New()
	defer s.Close()
	// Base backoff is tiny, so a wait near the capped Retry-After proves
	// the header was used and capped at MaxBackoff.
	p := NewOpenAI(Options{BaseURL: s.URL(), BaseBackoff: time.Millisecond, MaxBackoff: 300 * time.Millisecond})
	s.Enqueue(fakellm.Reply{Status: 429, RetryAfter: "120"}, fakellm.Reply{Content: "ok"})
	start := time.Now()
	if _, _, err := collect(t, p, simpleReq); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 280*time.Millisecond || d > 5*time.Second {
		t.Errorf("retry after %v, want about 300ms (Retry-After capped at MaxBackoff)", d)
	}
}

func TestRetryOn500ThenSuccess(t *testing.T) {
	s, p := setup(t)
	s.Enqueue(fakellm.Reply{Status: 503}, fakellm.Reply{Content: "ok"})
	resp, _, err := collect(t, p, simpleReq)
	if err != nil || resp.Message.Content != "ok" || len(s.Requests()) != 2 {
		t.Errorf("err %v content %q requests %d", err, resp.Message.Content, len(s.Requests()))
	}
}

func TestBoundedAttempts(t *testing.T) {
	s := fakellm.New()
	defer s.Close()
	p := NewOpenAI(Options{BaseURL: s.URL(), MaxAttempts: 3, BaseBackoff: time.Millisecond})
	for range 5 {
		s.Enqueue(fakellm.Reply{Status: 500})
	}
	_, _, err := collect(t, p, simpleReq)
	var pe *Error
	if !errors.As(err, &pe) {
		t.Fatalf("err = %v, want *Error", err)
	}
	if pe.Attempts != 3 || pe.StatusCode != 500 || len(s.Requests()) != 3 {
		t.Errorf("attempts %d status %d requests %d", pe.Attempts, pe.StatusCode, len(s.Requests()))
	}
	if !strings.Contains(err.Error(), "server error (HTTP 500)") || !strings.Contains(err.Error(), "fakellm: scripted HTTP 500") || !strings.Contains(err.Error(), "3 attempts") {
		t.Errorf("message %q", err)
	}
}

func TestStatusErrorsNotRetried(t *testing.T) {
	tests := []struct {
		status int
		want   []string
	}{
		{401, []string{"authentication failed (HTTP 401)", "OPENAI_API_KEY", "provider.api_key_env", "fakellm: scripted HTTP 401"}},
		{403, []string{"authentication failed (HTTP 403)"}},
		{404, []string{"not found (HTTP 404)", "model", "base URL"}},
		{400, []string{"request rejected (HTTP 400)"}},
	}
	for _, tt := range tests {
		s, p := setup(t)
		s.Enqueue(fakellm.Reply{Status: tt.status}, fakellm.Reply{Content: "must not be reached"})
		_, deltas, err := collect(t, p, simpleReq)
		var pe *Error
		if !errors.As(err, &pe) || pe.StatusCode != tt.status || pe.Retryable {
			t.Errorf("%d: err = %#v", tt.status, err)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%d: message %q lacks %q", tt.status, err, w)
			}
		}
		if n := len(s.Requests()); n != 1 || len(deltas) != 0 {
			t.Errorf("%d: %d requests, %d deltas; want 1 request, no retry", tt.status, n, len(deltas))
		}
	}
}

func TestMidStreamCutNotRetried(t *testing.T) {
	s, p := setup(t)
	// Chunks: role, then content pieces; cut after two content pieces.
	s.Enqueue(fakellm.Reply{Content: "partial answer that never ends", Chunk: 4, CutAfter: 3}, fakellm.Reply{Content: "retry"})
	resp, deltas, err := collect(t, p, simpleReq)
	if err == nil {
		t.Fatalf("no error; got %+v", resp)
	}
	if len(deltas) == 0 || resp.Message.Content != "partial " {
		t.Errorf("deltas %d, partial content %q", len(deltas), resp.Message.Content)
	}
	if n := len(s.Requests()); n != 1 {
		t.Errorf("%d requests; a stream shown to the user must not be retried", n)
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"", 0, false},
		{"0", 0, true},
		{"3", 3 * time.Second, true},
		{" 1.5 ", 1500 * time.Millisecond, true},
		{"-1", 0, false},
		{"soon", 0, false},
		{now.Add(7 * time.Second).Format(http.TimeFormat), 7 * time.Second, true},
		{"Thu, 02 Jan 2025 03:04:15 GMT", 10 * time.Second, true},
		{now.Add(-time.Minute).Format(http.TimeFormat), 0, true},
		{"999999999", 24 * time.Hour, true},
	}
	for _, tt := range tests {
		got, ok := parseRetryAfter(tt.in, now)
		if got != tt.want || ok != tt.ok {
			t.Errorf("parseRetryAfter(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestBackoff(t *testing.T) {
	base, maxWait := 500*time.Millisecond, 3*time.Second
	tests := []struct {
		attempt int
		ra      time.Duration
		hasRA   bool
		want    time.Duration
	}{
		{1, 0, false, 500 * time.Millisecond},
		{2, 0, false, time.Second},
		{3, 0, false, 2 * time.Second},
		{4, 0, false, 3 * time.Second},
		{40, 0, false, 3 * time.Second},
		{1, 0, true, 0},
		{1, 2 * time.Second, true, 2 * time.Second},
		{1, time.Hour, true, 3 * time.Second},
	}
	for _, tt := range tests {
		if got := backoff(tt.attempt, base, maxWait, tt.ra, tt.hasRA); got != tt.want {
			t.Errorf("backoff(%d, ra %v %v) = %v, want %v", tt.attempt, tt.ra, tt.hasRA, got, tt.want)
		}
	}
}
