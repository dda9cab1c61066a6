package provider

import (
	"context"
	"encoding/json"
	"errors"
	"net"

	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
)

// setup starts a fake server and a client with fast retries.
func setup(t *testing.T) (*fakellm.Server, *OpenAI) {
	t.Helper()
	s := fakellm.New()
	t.Cleanup(s.Close)
	p := NewOpenAI(Options{BaseURL: s.URL(), APIKey: "sk-test", BaseBackoff: time.Millisecond, MaxBackoff: 50 * time.Millisecond})
	return s, p
}

var simpleReq = llm.Request{Model: "m1", Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}

// collect runs Stream and records the deltas.
func collect(t *testing.T, p *OpenAI, req llm.Request) (llm.Response, []llm.Delta, error) {
	t.Helper()
	var deltas []llm.Delta
	resp, err := p.Stream(context.Background(), req, func(d llm.Delta) { deltas = append(deltas, d) })
	return resp, deltas, err
}

func TestPlainText(t *testing.T) {
	s, p := setup(t)
	s.Enqueue(fakellm.Reply{Content: "Hello there, streaming world!", Chunk: 4})
	resp, deltas, err := collect(t, p, simpleReq)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Content != "Hello there, streaming world!" || resp.Message.Role != llm.RoleAssistant {
		t.Errorf("message = %+v", resp.Message)
	}
	if resp.FinishReason != "stop" {
		t.Errorf("finish = %q", resp.FinishReason)
	}
	var joined strings.Builder
	for _, d := range deltas {
		if d.Reasoning != "" || d.Content == "" {
			t.Errorf("unexpected delta %+v", d)
		}
		joined.WriteString(d.Content)
	}
	if len(deltas) != 8 || joined.String() != resp.Message.Content {
		t.Errorf("%d deltas joined to %q", len(deltas), joined.String())
	}
	if resp.Usage == nil || resp.Usage.TotalTokens == 0 {
		t.Errorf("usage not captured: %+v", resp.Usage)
	}

	reqs := s.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	r := reqs[0]
	if r.Model != "m1" || !r.Stream || !r.IncludeUsage || r.Header.Get("Authorization") != "Bearer sk-test" {
		t.Errorf("request: model %q stream %v usage %v auth %q", r.Model, r.Stream, r.IncludeUsage, r.Header.Get("Authorization"))
	}
}

func TestUsageCaptured(t *testing.T) {
	s, p := setup(t)
	s.Enqueue(fakellm.Reply{Content: "x", Usage: &llm.Usage{PromptTokens: 11, CompletionTokens: 22, TotalTokens: 33}})
	resp, _, err := collect(t, p, simpleReq)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Usage == nil || *resp.Usage != (llm.Usage{PromptTokens: 11, CompletionTokens: 22, TotalTokens: 33}) {
		t.Errorf("usage = %+v", resp.Usage)
	}
}

func TestReasoningFields(t *testing.T) {
	for _, field := range []string{"reasoning_content", "reasoning"} {
		t.Run(field, func(t *testing.T) {
			s, p := setup(t)
			s.Enqueue(fakellm.Reply{Reasoning: "let me think about it", ReasoningField: field, Content: "answer", Chunk: 5})
			resp, deltas, err := collect(t, p, simpleReq)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Message.Reasoning != "let me think about it" || resp.Message.Content != "answer" {
				t.Errorf("message = %+v", resp.Message)
			}
			var reasoning strings.Builder
			seenContent := false
			for _, d := range deltas {
				if d.Reasoning != "" && d.Content != "" {
					t.Errorf("delta with both fields: %+v", d)
				}
				if d.Reasoning != "" {
					if seenContent {
						t.Errorf("reasoning after content")
					}
					reasoning.WriteString(d.Reasoning)
				}
				seenContent = seenContent || d.Content != ""
			}
			if reasoning.String() != "let me think about it" {
				t.Errorf("reasoning deltas joined to %q", reasoning.String())
			}
		})
	}
}

func TestToolCalls(t *testing.T) {
	calls := []llm.ToolCall{
		{ID: "call_a", Type: "function", Function: llm.FunctionCall{Name: "read", Arguments: `{"path":"main.go","offset":10}`}},
		{ID: "call_b", Type: "function", Function: llm.FunctionCall{Name: "bash", Arguments: `{"command":"go test ./... | grep -v ok"}`}},
		{ID: "call_c", Type: "function", Function: llm.FunctionCall{Name: "ls", Arguments: `{}`}},
	}
	for _, omit := range []bool{false, true} {
		name := "with index"
		if omit {
			name = "without index"
		}
		t.Run(name, func(t *testing.T) {
			s, p := setup(t)
			s.Enqueue(fakellm.Reply{Content: "Running tools.", ToolCalls: calls, OmitIndex: omit, Chunk: 3})
			resp, _, err := collect(t, p, simpleReq)
			if err != nil {
				t.Fatal(err)
			}
			if resp.FinishReason != "tool_calls" {
				t.Errorf("finish = %q", resp.FinishReason)
			}
			got, _ := json.Marshal(resp.Message.ToolCalls)
			want, _ := json.Marshal(calls)
			if string(got) != string(want) {
				t.Errorf("tool calls\n got %s\nwant %s", got, want)
			}
		})
	}
}

// Each tool call's name is handed on once, as it arrives (the agent
// starts the turn's snapshot then, for a call that edits), on both wires.
func TestToolCallNamesStreamFirst(t *testing.T) {
	calls := []llm.ToolCall{
		{ID: "call_a", Type: "function", Function: llm.FunctionCall{Name: "write", Arguments: `{"path":"a.go","content":"package a\n"}`}},
		{ID: "call_b", Type: "function", Function: llm.FunctionCall{Name: "bash", Arguments: `{"command":"go test ./..."}`}},
	}
	for name, setupWire := range map[string]func(*testing.T) (*fakellm.Server, *OpenAI){"chat": setup, "responses": setupResponses} {
		t.Run(name, func(t *testing.T) {
			s, p := setupWire(t)
			s.Enqueue(fakellm.Reply{ToolCalls: calls, Chunk: 3})
			var names []string
			resp, err := p.Stream(context.Background(), simpleReq, func(d llm.Delta) {
				if d.ToolCall != "" {
					names = append(names, d.ToolCall)
				}
			})
			if err != nil || len(resp.Message.ToolCalls) != 2 {
				t.Fatalf("%+v %v", resp, err)
			}
			if strings.Join(names, ",") != "write,bash" {
				t.Errorf("tool call names handed on: %q, want write,bash", names)
			}
		})
	}
}

func TestAccumulatorOutOfOrderIndex(t *testing.T) {
	var a accumulator
	events := []string{
		`{"choices":[{"delta":{"tool_calls":[{"index":1,"id":"b","type":"function","function":{"name":"two","arguments":""}}]}}]}`,
		`{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"a","type":"function","function":{"name":"one","arguments":"{\"x\""}}]}}]}`,
		`{"choices":[{"delta":{"tool_calls":[{"index":1,"function":{"arguments":"{}"}}]}}]}`,
		`{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":":1}"}}]}}]}`,
		`{"choices":[{"delta":{},"finish_reason":"tool_calls"}]}`,
	}
	for _, e := range events {
		if err := a.add([]byte(e), func(llm.Delta) {}); err != nil {
			t.Fatal(err)
		}
	}
	got := a.response().Message.ToolCalls
	if len(got) != 2 || got[0].ID != "a" || got[0].Function.Arguments != `{"x":1}` || got[1].ID != "b" || got[1].Function.Arguments != "{}" || got[1].Type != "function" {
		t.Errorf("tool calls = %+v", got)
	}
}

func TestRequestConversion(t *testing.T) {
	s, p := setup(t)
	s.Enqueue(fakellm.Reply{Content: "ok"})
	req := llm.Request{
		Model: "m2",
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: "sys"},
			{Role: llm.RoleUser, Content: "do it"},
			{Role: llm.RoleAssistant, Reasoning: "secret thoughts", ToolCalls: []llm.ToolCall{{ID: "c1", Type: "function", Function: llm.FunctionCall{Name: "ls", Arguments: `{"path":"."}`}}}},
			{Role: llm.RoleTool, ToolCallID: "c1", Name: "ls", Content: "a.go"},
		},
		Tools: []llm.Tool{{Type: "function", Function: llm.FunctionDef{Name: "ls", Description: "list files", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}}},
	}
	if _, _, err := collect(t, p, req); err != nil {
		t.Fatal(err)
	}
	r := s.Requests()[0]
	if r.Model != "m2" || len(r.Messages) != 4 {
		t.Fatalf("request %+v", r)
	}
	want := req.Messages
	want[2].Reasoning = "" // never sent back
	gotJSON, _ := json.Marshal(r.Messages)
	wantJSON, _ := json.Marshal(want)
	if string(gotJSON) != string(wantJSON) {
		t.Errorf("messages\n got %s\nwant %s", gotJSON, wantJSON)
	}
	if strings.Contains(string(r.Raw), "secret thoughts") {
		t.Errorf("reasoning sent back to the provider: %s", r.Raw)
	}
	var raw struct {
		Messages []map[string]json.RawMessage `json:"messages"`
	}
	json.Unmarshal(r.Raw, &raw)
	if c, ok := raw.Messages[2]["content"]; ok && string(c) != `""` && string(c) != "null" {
		t.Errorf("assistant tool-call message content = %s", c)
	}
	gotTools, _ := json.Marshal(r.Tools)
	wantTools, _ := json.Marshal(req.Tools)
	if string(gotTools) != string(wantTools) {
		t.Errorf("tools\n got %s\nwant %s", gotTools, wantTools)
	}
}

func TestCutBeforeFinish(t *testing.T) {
	// The connection drops after the role chunk, before any delta: an error,
	// retried since nothing was shown, then given up. The only deltas are
	// the notices of the three retries.
	s, p := setup(t)
	s.Enqueue(fakellm.Reply{Content: "abc", CutAfter: 1}, fakellm.Reply{Content: "abc", CutAfter: 1},
		fakellm.Reply{Content: "abc", CutAfter: 1}, fakellm.Reply{Content: "abc", CutAfter: 1})
	_, deltas, err := collect(t, p, simpleReq)
	var pe *Error
	if !errors.As(err, &pe) || len(deltas) != 3 || len(retries(deltas)) != 3 {
		t.Fatalf("err = %v, deltas %d", err, len(deltas))
	}
	if n := len(s.Requests()); n != 4 || pe.Attempts != 4 {
		t.Errorf("%d requests, %d attempts; want 4 (default MaxAttempts)", n, pe.Attempts)
	}
}

func TestCleanEOFWithoutFinish(t *testing.T) {
	// A server that closes the body properly but never finishes.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				buf := make([]byte, 64<<10)
				c.Read(buf) // the request; small enough for one read here
				c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n" +
					"data: {\"choices\":[{\"delta\":{\"content\":\"half\"}}]}\n\n"))
			}()
		}
	}()
	p := NewOpenAI(Options{BaseURL: "http://" + ln.Addr().String() + "/v1", BaseBackoff: time.Millisecond})
	resp, _, err := collect(t, p, simpleReq)
	if err == nil || !strings.Contains(err.Error(), "stream ended before the model finished") {
		t.Errorf("err = %v, content %q", err, resp.Message.Content)
	}
}

func TestGarbage(t *testing.T) {
	s, p := setup(t)
	s.Enqueue(fakellm.Reply{Content: "some content here", Garbage: true})
	_, _, err := collect(t, p, simpleReq)
	if err == nil || !strings.Contains(err.Error(), "invalid stream event") {
		t.Errorf("err = %v", err)
	}
}

func TestConnectionRefused(t *testing.T) {
	s := fakellm.New()
	url := s.URL()
	s.Close()
	p := NewOpenAI(Options{BaseURL: url, MaxAttempts: 3, BaseBackoff: time.Millisecond})
	_, _, err := collect(t, p, simpleReq)
	var pe *Error
	if !errors.As(err, &pe) || pe.Attempts != 3 || !pe.Retryable {
		t.Fatalf("err = %#v", err)
	}
	if !strings.Contains(err.Error(), "cannot reach "+url) {
		t.Errorf("message %q", err)
	}
}

func TestCancelStopsStream(t *testing.T) {
	s, p := setup(t)
	s.Enqueue(fakellm.Reply{Content: strings.Repeat("slow ", 200), Chunk: 5, Delay: 20 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	first := make(chan struct{})
	var once sync.Once
	done := make(chan error, 1)
	var returned time.Time
	go func() {
		_, err := p.Stream(ctx, simpleReq, func(llm.Delta) { once.Do(func() { close(first) }) })
		returned = time.Now()
		done <- err
	}()
	<-first
	cancelled := time.Now()
	cancel()
	err := <-done
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	// The rest of the stream takes ~4 s; the bound is loose for loaded
	// machines but still fails if the cancel waits for the stream.
	if d := returned.Sub(cancelled); d > 2*time.Second {
		t.Errorf("Stream returned %v after cancel, want < 2s", d)
	}
}

func TestCancelDuringBackoff(t *testing.T) {
	s := fakellm.New()
	defer s.Close()
	p := NewOpenAI(Options{BaseURL: s.URL(), BaseBackoff: 10 * time.Second})
	s.Enqueue(fakellm.Reply{Status: 500})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := p.Stream(ctx, simpleReq, nil)
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 2*time.Second {
		t.Errorf("err %v after %v", err, time.Since(start))
	}
}

func TestBodyMessage(t *testing.T) {
	tests := []struct{ body, want string }{
		{`{"error":"model not loaded"}`, "model not loaded"},
		{`{"error":{"message":"bad key"}}`, "bad key"},
		{`{"message":"upstream down"}`, "upstream down"},
		{`{"detail":"Not Found"}`, "Not Found"},
		{"<html>\n<body>502 Bad Gateway</body></html>", "<html> <body>502 Bad Gateway</body></html>"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := bodyMessage([]byte(tt.body)); got != tt.want {
			t.Errorf("bodyMessage(%q) = %q, want %q", tt.body, got, tt.want)
		}
	}
	if got := bodyMessage([]byte(strings.Repeat("é", 300))); len(got) > 210 || !strings.HasSuffix(got, "…") {
		t.Errorf("long body not shortened: %d bytes", len(got))
	}
}

func TestDemoThroughProvider(t *testing.T) {
	s, p := setup(t)
	s.SetScript(fakellm.DemoScript)
	req := llm.Request{Model: "demo", Messages: []llm.Message{{Role: llm.RoleUser, Content: "hello"}}}
	for _, want := range []string{"ls", "write", "bash", ""} {
		resp, _, err := collect(t, p, req)
		if err != nil {
			t.Fatal(err)
		}
		m := resp.Message
		if !strings.HasPrefix(m.Content, "[demo] ") {
			t.Errorf("content %q", m.Content)
		}
		if want == "" {
			if len(m.ToolCalls) != 0 || !strings.Contains(m.Content, "/undo") {
				t.Errorf("final step: %+v", m)
			}
			break
		}
		if len(m.ToolCalls) != 1 || m.ToolCalls[0].Function.Name != want || !json.Valid([]byte(m.ToolCalls[0].Function.Arguments)) {
			t.Fatalf("want %s call, got %+v", want, m.ToolCalls)
		}
		req.Messages = append(req.Messages, m, llm.Message{Role: llm.RoleTool, ToolCallID: m.ToolCalls[0].ID, Content: "ok"})
	}
}

func BenchmarkStream1000Deltas(b *testing.B) {
	s := fakellm.New()
	defer s.Close()
	p := NewOpenAI(Options{BaseURL: s.URL()})
	deltas := make([]string, 1000)
	for i := range deltas {
		deltas[i] = "token "
	}
	b.ResetTimer()
	for range b.N {
		s.Enqueue(fakellm.Reply{Deltas: deltas})
		if _, err := p.Stream(context.Background(), simpleReq, func(llm.Delta) {}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(deltas))/b.Elapsed().Seconds(), "deltas/s")
}

// TestEmptyContentIsSent: go-openai drops empty content, but OpenAI rejects
// tool results and assistant messages without tool calls that lack it.
func TestEmptyContentIsSent(t *testing.T) {
	tests := []struct {
		name        string
		msg         llm.Message
		wantContent bool
	}{
		{"empty assistant answer", llm.Message{Role: llm.RoleAssistant, Reasoning: "only thoughts"}, true},
		{"empty tool result", llm.Message{Role: llm.RoleTool, ToolCallID: "c1", Name: "ls"}, true},
		{"assistant with tool calls", llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c2", Type: "function", Function: llm.FunctionCall{Name: "ls", Arguments: "{}"}}}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, p := setup(t)
			s.Enqueue(fakellm.Reply{Content: "ok"})
			msgs := []llm.Message{{Role: llm.RoleUser, Content: "hi"}, tt.msg}
			if tt.msg.Role == llm.RoleTool {
				msgs = []llm.Message{{Role: llm.RoleUser, Content: "hi"}, {Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c1", Type: "function", Function: llm.FunctionCall{Name: "ls", Arguments: "{}"}}}}, tt.msg}
			}
			if _, _, err := collect(t, p, llm.Request{Model: "m", Messages: msgs}); err != nil {
				t.Fatal(err)
			}
			var raw struct {
				Messages []map[string]json.RawMessage `json:"messages"`
			}
			if err := json.Unmarshal(s.Requests()[0].Raw, &raw); err != nil {
				t.Fatal(err)
			}
			last := raw.Messages[len(raw.Messages)-1]
			var content string
			json.Unmarshal(last["content"], &content)
			if got := content != ""; got != tt.wantContent {
				t.Errorf("content = %s, want present: %v", last["content"], tt.wantContent)
			}
		})
	}
}
