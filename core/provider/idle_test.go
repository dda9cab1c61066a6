package provider

import (
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
)

// idleSetup is setup with a short idle timeout.
func idleSetup(t *testing.T, idle time.Duration) (*fakellm.Server, *OpenAI) {
	t.Helper()
	s := fakellm.New()
	t.Cleanup(s.Close)
	return s, NewOpenAI(Options{BaseURL: s.URL(), BaseBackoff: time.Millisecond, MaxBackoff: 50 * time.Millisecond, IdleTimeout: idle})
}

func retries(deltas []llm.Delta) []llm.Retry {
	var out []llm.Retry
	for _, d := range deltas {
		if d.Retry != nil {
			out = append(out, *d.Retry)
		}
	}
	return out
}

// A silent server is retried once, then reported; a second silence is
// not waited for again. Every case would hang forever without the timeout.
func TestIdleTimeout(t *testing.T) {
	tests := []struct {
		name     string
		replies  []fakellm.Reply
		wantErr  string // "" : the last reply's content comes back
		requests int
		retries  int
	}{
		{"headers then silence, then an answer",
			[]fakellm.Reply{{Hang: true}, {Content: "ok"}}, "", 2, 1},
		{"503 headers without a body, then an answer",
			[]fakellm.Reply{{Status: 503, Hang: true}, {Content: "ok"}}, "", 2, 1},
		{"silent twice: one retry, then the error",
			[]fakellm.Reply{{Hang: true}, {Hang: true}, {Content: "must not be reached"}}, "the server stopped sending for 0.3 s (stream_idle_timeout)", 2, 1},
		{"503 silent twice",
			[]fakellm.Reply{{Status: 503, Hang: true}, {Status: 503, Hang: true}, {Content: "must not be reached"}}, "stream_idle_timeout", 2, 1},
		{"silence after the answer began: no retry",
			[]fakellm.Reply{{Content: "partial answer", Chunk: 4, Hang: true, HangAfter: 3}, {Content: "must not be reached"}}, "the server stopped sending", 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, p := idleSetup(t, 300*time.Millisecond)
			s.Enqueue(tt.replies...)
			resp, deltas, err := collect(t, p, simpleReq)
			if tt.wantErr == "" {
				if err != nil || resp.Message.Content != "ok" {
					t.Fatalf("err %v, content %q", err, resp.Message.Content)
				}
			} else {
				var pe *Error
				if !errors.As(err, &pe) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
				}
			}
			if n := len(s.Requests()); n != tt.requests {
				t.Errorf("%d requests, want %d", n, tt.requests)
			}
			rs := retries(deltas)
			if len(rs) != tt.retries {
				t.Fatalf("retry notices %+v, want %d", rs, tt.retries)
			}
			for _, r := range rs {
				if r.Reason != llm.RetryIdle || r.Attempt != 1 || !strings.Contains(r.Message, "stream_idle_timeout") {
					t.Errorf("retry notice %+v", r)
				}
			}
		})
	}
}

// No response headers at all is the same silence.
func TestIdleTimeoutBeforeHeaders(t *testing.T) {
	ln := listenSilently(t)
	p := NewOpenAI(Options{BaseURL: "http://" + ln + "/v1", BaseBackoff: time.Millisecond, IdleTimeout: 200 * time.Millisecond})
	_, deltas, err := collect(t, p, simpleReq)
	if err == nil || !strings.Contains(err.Error(), "no response from http://"+ln+"/v1 for 0.2 s") {
		t.Fatalf("err = %v", err)
	}
	if rs := retries(deltas); len(rs) != 1 {
		t.Errorf("retry notices %+v, want 1", rs)
	}
}

// Time the caller spends on a delta is not the server's silence.
func TestIdleTimeoutIgnoresSlowConsumer(t *testing.T) {
	s, p := idleSetup(t, 100*time.Millisecond)
	s.Enqueue(fakellm.Reply{Content: "one two three", Chunk: 4})
	slept := false
	resp, err := p.Stream(t.Context(), simpleReq, func(d llm.Delta) {
		if !slept {
			slept = true
			time.Sleep(400 * time.Millisecond)
		}
	})
	if err != nil || resp.Message.Content != "one two three" {
		t.Fatalf("err %v, content %q", err, resp.Message.Content)
	}
}

func TestRetryNotices(t *testing.T) {
	s, p := setup(t)
	s.Enqueue(fakellm.Reply{Status: 429, RetryAfter: "0"}, fakellm.Reply{Status: 503, EmptyBody: true}, fakellm.Reply{Content: "finally"})
	resp, deltas, err := collect(t, p, simpleReq)
	if err != nil || resp.Message.Content != "finally" {
		t.Fatalf("err %v, content %q", err, resp.Message.Content)
	}
	rs := retries(deltas)
	if len(rs) != 2 {
		t.Fatalf("retry notices %+v, want 2", rs)
	}
	if r := rs[0]; r.Reason != llm.RetryRateLimited || r.StatusCode != 429 || r.Wait != 0 || r.Attempt != 1 || r.MaxAttempts != 4 {
		t.Errorf("first notice %+v", r)
	}
	if r := rs[1]; r.Reason != llm.RetryServerError || r.StatusCode != 503 || r.Wait <= 0 || r.Attempt != 2 {
		t.Errorf("second notice %+v", r)
	}
	for _, d := range deltas {
		if d.Retry != nil && (d.Content != "" || d.Reasoning != "") {
			t.Errorf("mixed delta %+v", d)
		}
	}
}

// listenSilently accepts connections on loopback and never answers.
func listenSilently(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return ln.Addr().String()
}

// Images go out as image_url parts; messages without images keep plain
// string content, byte for byte, so prompt caches stay warm.
func TestImagesAsContentParts(t *testing.T) {
	s, p := setup(t)
	s.Enqueue(fakellm.Reply{Content: "a cat"})
	img := "data:image/png;base64,iVBORw0KGgo="
	req := llm.Request{Model: "m1", Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: "sys"},
		{Role: llm.RoleUser, Content: "hi"},
		{Role: llm.RoleUser, Content: "what is this?", Images: []llm.Image{{URL: img}}},
	}}
	if _, _, err := collect(t, p, req); err != nil {
		t.Fatal(err)
	}
	got := s.Requests()[0]
	raw := string(got.Raw)
	for _, want := range []string{
		`{"role":"system","content":"sys"}`,
		`{"role":"user","content":"hi"}`,
		`{"role":"user","content":[{"type":"text","text":"what is this?"},{"type":"image_url","image_url":{"url":"` + img + `"}}]}`,
	} {
		if !strings.Contains(raw, want) {
			t.Errorf("request lacks %s:\n%s", want, raw)
		}
	}
	if m := got.Messages[2]; m.Content != "what is this?" || len(m.Images) != 1 || m.Images[0].URL != img {
		t.Errorf("the server read %+v", m)
	}
}
