package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/coder-nvim/coder-nvim/core/llm"
)

// bodyTransport answers every request with body as a 200 event stream,
// without a network.
type bodyTransport struct{ body []byte }

func (b bodyTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		io.Copy(io.Discard, req.Body)
		req.Body.Close()
	}
	return &http.Response{
		StatusCode: http.StatusOK,
		Status:     "200 OK",
		Header:     http.Header{"Content-Type": {"text/event-stream"}},
		Body:       io.NopCloser(bytes.NewReader(b.body)),
		Request:    req,
	}, nil
}

// streamBody runs one Stream over body (no retries) and returns what was
// passed to onDelta alongside the result.
func streamBody(t *testing.T, body []byte) (content, reasoning string, resp llm.Response, err error) {
	t.Helper()
	p := NewOpenAI(Options{BaseURL: "http://fuzz.invalid/v1", MaxAttempts: 1, HTTPClient: &http.Client{Transport: bodyTransport{body}}})
	req := llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}
	var c, r strings.Builder
	resp, err = p.Stream(context.Background(), req, func(d llm.Delta) {
		c.WriteString(d.Content)
		r.WriteString(d.Reasoning)
	})
	return c.String(), r.String(), resp, err
}

// FuzzStreamBody feeds arbitrary bytes as the SSE body. Decoding must not
// panic, what was shown to the user must be exactly the returned message
// (also when the stream fails half way), a success must have a finish
// reason, and every tool call must carry an id.
func FuzzStreamBody(f *testing.F) {
	for _, s := range []string{
		"data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\ndata: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n",
		"data: {\"choices\":[{\"delta\":{\"reasoning\":\"r\",\"content\":\"a\"}}]}\n\n: ping\n\ndata: {\"choices\":[{\"delta\":{\"content\":\"b\"},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":1}}\n\n",
		"data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c1\",\"function\":{\"name\":\"read\",\"arguments\":\"{\\\"pa\"}}]}}]}\n\ndata: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"th\\\":1}\"}}]},\"finish_reason\":\"tool_calls\"}]}\n\n",
		"data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"function\":{\"name\":\"x\"}},{\"id\":\"b\"}]}}]}\n\ndata: {\"choices\":[{\"finish_reason\":\"stop\"}]}\n\n",
		"data: {\"error\":{\"message\":\"overloaded\"}}\n\n",
		"data: {\"choices\":[{\"delta\":{\"content\":\"x\"}}]}\n\ndata: not json\n\n",
		"data:{\"choices\":[{\"delta\":{\"reasoning_content\":\"t\"},\"finish_reason\":\"length\"}]}\r\n\r\n",
		"event: x\nid: 1\nretry: 5\n\n",
		"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		content, reasoning, resp, err := streamBody(t, body)
		if content != resp.Message.Content || reasoning != resp.Message.Reasoning {
			t.Fatalf("shown %q/%q but returned %q/%q (err %v)", content, reasoning, resp.Message.Content, resp.Message.Reasoning, err)
		}
		if err == nil && resp.FinishReason == "" {
			t.Fatal("a stream without a finish reason succeeded")
		}
		if err != nil && err.Error() == "" {
			t.Fatal("empty error message")
		}
		for _, c := range resp.Message.ToolCalls {
			if c.ID == "" {
				t.Fatalf("tool call without id: %+v", resp.Message.ToolCalls)
			}
		}
	})
}

// FuzzStreamText encodes text and reasoning as a well-formed stream, cut
// into pieces at rune boundaries chosen by cuts, with keep-alive comments
// and LF or CRLF line ends: the stream must succeed and the text deltas
// must concatenate to exactly the text.
func FuzzStreamText(f *testing.F) {
	f.Add("Hello there, streaming world!", "", uint64(0x5555), false)
	f.Add("多字节 ünïcödé 🚀 text\nwith lines\r\n", "think first", uint64(0xffffffff), true)
	f.Add("", "only reasoning", uint64(1), false)
	f.Add("data: [DONE]\n\n", "\n\ndata: x", uint64(7), true)
	f.Fuzz(func(t *testing.T, text, thought string, cuts uint64, crlf bool) {
		if !utf8.ValidString(text) || !utf8.ValidString(thought) {
			return // JSON cannot carry invalid UTF-8 unchanged
		}
		nl := "\n"
		if crlf {
			nl = "\r\n"
		}
		var body bytes.Buffer
		event := func(delta map[string]any, finish string) {
			choice := map[string]any{"index": 0, "delta": delta}
			if finish != "" {
				choice["finish_reason"] = finish
			}
			b, err := json.Marshal(map[string]any{"choices": []any{choice}})
			if err != nil {
				t.Fatal(err)
			}
			body.WriteString("data: " + string(b) + nl + nl)
		}
		body.WriteString(": keep-alive" + nl + nl)
		if thought != "" {
			event(map[string]any{"reasoning_content": thought}, "")
		}
		i := 0
		start := 0
		for pos := range text {
			if pos > start && cuts>>(i%64)&1 == 1 {
				event(map[string]any{"content": text[start:pos]}, "")
				body.WriteString(": ping" + nl + nl)
				start = pos
			}
			i++
		}
		if start < len(text) {
			event(map[string]any{"content": text[start:]}, "")
		}
		event(map[string]any{}, "stop")
		body.WriteString("data: [DONE]" + nl + nl)

		content, reasoning, resp, err := streamBody(t, body.Bytes())
		if err != nil {
			t.Fatalf("well-formed stream failed: %v\n%s", err, body.String())
		}
		if content != text || resp.Message.Content != text {
			t.Fatalf("content deltas %q, message %q, want %q", content, resp.Message.Content, text)
		}
		if reasoning != thought || resp.Message.Reasoning != thought {
			t.Fatalf("reasoning deltas %q, message %q, want %q", reasoning, resp.Message.Reasoning, thought)
		}
		if resp.FinishReason != "stop" {
			t.Fatalf("finish reason %q", resp.FinishReason)
		}
	})
}
