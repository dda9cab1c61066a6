package fakellm

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/llm"
)

// post sends a raw JSON body and returns the response.
func post(t *testing.T, url, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatalf("post: %v", err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// sse reads every data payload of a stream.
func sse(t *testing.T, resp *http.Response) []string {
	t.Helper()
	var out []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			t.Fatalf("line without data prefix: %q", line)
		}
		out = append(out, data)
	}
	return out
}

type rawChunk struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	Model   string `json:"model"`
	Choices []struct {
		Index        int                        `json:"index"`
		Delta        map[string]json.RawMessage `json:"delta"`
		FinishReason *string                    `json:"finish_reason"`
	} `json:"choices"`
	Usage *llm.Usage `json:"usage"`
}

const streamBody = `{"model":"m1","stream":true,"stream_options":{"include_usage":true},
 "messages":[{"role":"system","content":"sys"},{"role":"user","content":[{"type":"text","text":"hi "},{"type":"text","text":"there"}],"extra":1},
  {"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"ls","arguments":"{}"}}]},
  {"role":"tool","tool_call_id":"c1","content":"a.txt"}],
 "tools":[{"type":"function","function":{"name":"ls","description":"list","parameters":{"type":"object"}}}],
 "unknown_field":true}`

func TestRecordsRequests(t *testing.T) {
	s := New()
	defer s.Close()
	s.Enqueue(Reply{Content: "ok"})
	resp := post(t, s.URL()+"/chat/completions", streamBody)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	sse(t, resp)

	reqs := s.Requests()
	if len(reqs) != 1 {
		t.Fatalf("got %d requests, want 1", len(reqs))
	}
	r := reqs[0]
	if r.Model != "m1" || !r.Stream || !r.IncludeUsage {
		t.Errorf("model/stream/usage = %q %v %v", r.Model, r.Stream, r.IncludeUsage)
	}
	want := []llm.Message{
		{Role: "system", Content: "sys"},
		{Role: "user", Content: "hi there"},
		{Role: "assistant", ToolCalls: []llm.ToolCall{{ID: "c1", Type: "function", Function: llm.FunctionCall{Name: "ls", Arguments: "{}"}}}},
		{Role: "tool", ToolCallID: "c1", Content: "a.txt"},
	}
	gotJSON, _ := json.Marshal(r.Messages)
	wantJSON, _ := json.Marshal(want)
	if string(gotJSON) != string(wantJSON) {
		t.Errorf("messages\n got %s\nwant %s", gotJSON, wantJSON)
	}
	if len(r.Tools) != 1 || r.Tools[0].Function.Name != "ls" || string(r.Tools[0].Function.Parameters) != `{"type":"object"}` {
		t.Errorf("tools = %+v", r.Tools)
	}
	if !strings.Contains(string(r.Raw), "unknown_field") || r.Header.Get("Content-Type") != "application/json" {
		t.Errorf("raw body or header not kept")
	}
}

func TestStreamShape(t *testing.T) {
	s := New()
	defer s.Close()
	args := `{"path":"dir/file.go","content":"x"}`
	s.Enqueue(Reply{
		Content:   "Hello, wonderful world",
		Reasoning: "think think",
		ToolCalls: []llm.ToolCall{{ID: "call_1", Function: llm.FunctionCall{Name: "write", Arguments: args}}},
		Usage:     &llm.Usage{PromptTokens: 1, CompletionTokens: 2, TotalTokens: 3},
	})
	data := sse(t, post(t, s.URL()+"/chat/completions", streamBody))
	if data[len(data)-1] != "[DONE]" {
		t.Fatalf("last event %q, want [DONE]", data[len(data)-1])
	}
	var chunks []rawChunk
	for _, d := range data[:len(data)-1] {
		var c rawChunk
		if err := json.Unmarshal([]byte(d), &c); err != nil {
			t.Fatalf("chunk %q: %v", d, err)
		}
		if c.ID == "" || c.Object != "chat.completion.chunk" || c.Created == 0 || c.Model != "m1" {
			t.Errorf("chunk header wrong: %s", d)
		}
		chunks = append(chunks, c)
	}
	if string(chunks[0].Choices[0].Delta["role"]) != `"assistant"` {
		t.Errorf("first chunk %+v has no assistant role", chunks[0])
	}
	var content, reasoning, gotArgs strings.Builder
	contentChunks, argChunks := 0, 0
	var finish string
	for _, c := range chunks[1:] {
		if len(c.Choices) == 0 {
			continue
		}
		d := c.Choices[0].Delta
		var s string
		if json.Unmarshal(d["content"], &s) == nil && s != "" {
			content.WriteString(s)
			contentChunks++
		}
		if json.Unmarshal(d["reasoning_content"], &s) == nil {
			reasoning.WriteString(s)
		}
		if raw, ok := d["tool_calls"]; ok {
			var tcs []map[string]json.RawMessage
			json.Unmarshal(raw, &tcs)
			tc := tcs[0]
			if string(tc["index"]) != "0" {
				t.Errorf("tool call chunk without index 0: %s", raw)
			}
			var fn struct{ Name, Arguments string }
			json.Unmarshal(tc["function"], &fn)
			if _, ok := tc["id"]; ok {
				if string(tc["id"]) != `"call_1"` || string(tc["type"]) != `"function"` || fn.Name != "write" || fn.Arguments != "" {
					t.Errorf("first tool call chunk wrong: %s", raw)
				}
			} else {
				argChunks++
				if json.Valid([]byte(fn.Arguments)) {
					t.Errorf("argument piece %q is valid JSON on its own; want split mid-JSON", fn.Arguments)
				}
				gotArgs.WriteString(fn.Arguments)
			}
		}
		if c.Choices[0].FinishReason != nil {
			finish = *c.Choices[0].FinishReason
		}
	}
	if content.String() != "Hello, wonderful world" || contentChunks < 2 {
		t.Errorf("content %q in %d chunks", content.String(), contentChunks)
	}
	if reasoning.String() != "think think" {
		t.Errorf("reasoning %q", reasoning.String())
	}
	if gotArgs.String() != args || argChunks < 2 {
		t.Errorf("args %q in %d chunks", gotArgs.String(), argChunks)
	}
	if finish != "tool_calls" {
		t.Errorf("finish_reason %q", finish)
	}
	last := chunks[len(chunks)-1]
	if len(last.Choices) != 0 || last.Usage == nil || last.Usage.TotalTokens != 3 {
		t.Errorf("usage chunk wrong: %+v", last)
	}
}

func TestReasoningFieldAndOmitIndex(t *testing.T) {
	s := New()
	defer s.Close()
	s.Enqueue(Reply{Reasoning: "hmm", ReasoningField: "reasoning",
		ToolCalls: []llm.ToolCall{{ID: "a", Function: llm.FunctionCall{Name: "ls", Arguments: `{"path":"."}`}}}, OmitIndex: true})
	body := strings.Replace(streamBody, `"include_usage":true`, `"include_usage":false`, 1)
	data := strings.Join(sse(t, post(t, s.URL()+"/chat/completions", body)), "\n")
	if !strings.Contains(data, `"reasoning":"hmm"`) || strings.Contains(data, "reasoning_content") {
		t.Errorf("reasoning not under the reasoning field:\n%s", data)
	}
	if strings.Contains(data, `"index":0,"id"`) || strings.Contains(data, `{"function":{"arguments":`) == false {
		t.Errorf("tool call chunks:\n%s", data)
	}
	for _, line := range strings.Split(data, "\n") {
		if strings.Contains(line, "tool_calls") && strings.Contains(line, `"tool_calls":[{"index"`) {
			t.Errorf("tool call chunk has an index: %s", line)
		}
	}
	if strings.Contains(data, `"usage"`) {
		t.Errorf("usage sent without include_usage:\n%s", data)
	}
}

func TestErrorsAndCut(t *testing.T) {
	s := New()
	defer s.Close()

	// Empty queue, no script.
	resp := post(t, s.URL()+"/chat/completions", streamBody)
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 500 || !strings.Contains(string(b), "fakellm: no scripted reply") {
		t.Errorf("no reply: %d %s", resp.StatusCode, b)
	}

	s.Enqueue(Reply{Status: 429, RetryAfter: "3"})
	resp = post(t, s.URL()+"/chat/completions", streamBody)
	b, _ = io.ReadAll(resp.Body)
	var e struct {
		Error struct{ Message, Type string }
	}
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "3" || json.Unmarshal(b, &e) != nil || e.Error.Message == "" {
		t.Errorf("status reply: %d %q %s", resp.StatusCode, resp.Header.Get("Retry-After"), b)
	}

	s.Enqueue(Reply{Content: "0123456789abcdefghij", Chunk: 2, CutAfter: 3})
	resp = post(t, s.URL()+"/chat/completions", streamBody)
	b, err := io.ReadAll(resp.Body)
	if err == nil {
		t.Errorf("cut stream read cleanly: %s", b)
	}
	if n := strings.Count(string(b), "data: "); n != 3 || strings.Contains(string(b), "[DONE]") {
		t.Errorf("cut after 3 chunks sent %d chunks:\n%s", n, b)
	}

	s.Enqueue(Reply{Content: "abc", Garbage: true})
	b, _ = io.ReadAll(post(t, s.URL()+"/chat/completions", streamBody).Body)
	if !strings.Contains(string(b), "data: {\"id\": not json") {
		t.Errorf("no garbage line:\n%s", b)
	}

	resp = post(t, s.URL()+"/other", streamBody)
	if resp.StatusCode != 404 {
		t.Errorf("unknown path: %d", resp.StatusCode)
	}
}

func TestScriptWhenQueueEmpty(t *testing.T) {
	s := New()
	defer s.Close()
	s.SetScript(func(req Request) Reply { return Reply{Content: "script:" + req.Model} })
	s.Enqueue(Reply{Content: "queued"})
	var got []string
	for range 2 {
		data := sse(t, post(t, s.URL()+"/chat/completions", streamBody))
		var text strings.Builder
		for _, d := range data {
			var c rawChunk
			if json.Unmarshal([]byte(d), &c) == nil && len(c.Choices) > 0 {
				var s string
				json.Unmarshal(c.Choices[0].Delta["content"], &s)
				text.WriteString(s)
			}
		}
		got = append(got, text.String())
	}
	if got[0] != "queued" || got[1] != "script:m1" {
		t.Errorf("got %q", got)
	}
}

func TestDeltasAndInterval(t *testing.T) {
	s := New()
	defer s.Close()
	deltas := make([]string, 50)
	for i := range deltas {
		deltas[i] = "x"
	}
	s.Enqueue(Reply{Content: "ignored", Deltas: deltas, Interval: 2 * time.Millisecond})
	start := time.Now()
	data := sse(t, post(t, s.URL()+"/chat/completions", streamBody))
	elapsed := time.Since(start)
	count := 0
	for _, d := range data {
		if strings.Contains(d, `"content":"x"`) {
			count++
		}
		if strings.Contains(d, "ignored") {
			t.Errorf("Content sent although Deltas were set")
		}
	}
	if count != 50 {
		t.Errorf("got %d deltas, want 50", count)
	}
	// 53 chunks paced 2ms apart take at least ~100ms.
	if elapsed < 90*time.Millisecond {
		t.Errorf("stream took %v; pacing not applied", elapsed)
	}
}

func TestSplit(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want []string
	}{
		{"", 3, nil},
		{"abcdefg", 3, []string{"abc", "def", "g"}},
		{"héllo", 2, []string{"hé", "ll", "o"}},
		{"日本語", 1, []string{"日", "本", "語"}},
	}
	for _, tt := range tests {
		got := split(tt.in, tt.n)
		if strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
			t.Errorf("split(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

// BenchmarkPacedRate measures the rate a paced reply reaches when asked for
// 5,000 deltas/s (one second of stream per iteration).
func BenchmarkPacedRate(b *testing.B) {
	s := New()
	defer s.Close()
	deltas := make([]string, 5000)
	for i := range deltas {
		deltas[i] = "t"
	}
	body := `{"model":"m","stream":true,"messages":[]}`
	var total time.Duration
	for range b.N {
		s.Enqueue(Reply{Deltas: deltas, Interval: time.Second / 5000})
		start := time.Now()
		resp, err := http.Post(s.URL()+"/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		total += time.Since(start)
	}
	b.ReportMetric(float64(b.N*len(deltas))/total.Seconds(), "deltas/s")
}

// The Responses stream's usage has every field OpenAI sends (Codex CLI
// refuses a response.completed without total_tokens).
func TestResponsesUsageFields(t *testing.T) {
	srv := New()
	defer srv.Close()
	srv.Enqueue(Reply{Content: "hi"}, Reply{Content: "hi", Usage: &llm.Usage{PromptTokens: 3, CompletionTokens: 2, TotalTokens: 5}})
	for i := 0; i < 2; i++ {
		resp, err := http.Post(srv.URL()+"/responses", "application/json", strings.NewReader(`{"model":"m","stream":true,"input":[{"role":"user","content":"hi"}]}`))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var usage map[string]any
		for _, line := range strings.Split(string(body), "\n") {
			data, ok := strings.CutPrefix(line, "data: ")
			var ev struct {
				Type     string `json:"type"`
				Response struct {
					Usage map[string]any `json:"usage"`
				} `json:"response"`
			}
			if ok && json.Unmarshal([]byte(data), &ev) == nil && ev.Type == "response.completed" {
				usage = ev.Response.Usage
			}
		}
		for _, k := range []string{"input_tokens", "output_tokens", "total_tokens", "input_tokens_details", "output_tokens_details"} {
			if _, ok := usage[k]; !ok {
				t.Errorf("reply %d: usage lacks %s: %v", i, k, usage)
			}
		}
	}
}
