package fakellm

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
	"unicode/utf8"

	"github.com/coder-nvim/coder-nvim/core/llm"
)

// chunk is one "chat.completion.chunk" event.
type chunk struct {
	ID      string        `json:"id"`
	Object  string        `json:"object"`
	Created int64         `json:"created"`
	Model   string        `json:"model"`
	Choices []chunkChoice `json:"choices"`
	Usage   *llm.Usage    `json:"usage,omitempty"`
}

type chunkChoice struct {
	Index        int            `json:"index"`
	Delta        map[string]any `json:"delta"`
	FinishReason *string        `json:"finish_reason"`
}

// events builds the data payloads of a streamed reply, in order, without
// the final [DONE].
func events(req Request, reply Reply, seq int) [][]byte {
	id := fmt.Sprintf("chatcmpl-fake-%d", seq)
	created := time.Now().Unix()
	model := req.Model
	if model == "" {
		model = "fakellm"
	}
	var out [][]byte
	add := func(delta map[string]any, finish *string, usage *llm.Usage) {
		c := chunk{ID: id, Object: "chat.completion.chunk", Created: created, Model: model, Choices: []chunkChoice{}, Usage: usage}
		if delta != nil {
			c.Choices = append(c.Choices, chunkChoice{Delta: delta, FinishReason: finish})
		}
		b, _ := json.Marshal(c) // only plain values: cannot fail
		out = append(out, b)
	}

	size := reply.Chunk
	if size <= 0 {
		size = 8
	}
	add(map[string]any{"role": "assistant", "content": ""}, nil, nil)

	field := reply.ReasoningField
	if field == "" {
		field = "reasoning_content"
	}
	for _, piece := range split(reply.Reasoning, size) {
		add(map[string]any{field: piece}, nil, nil)
	}

	pieces := reply.Deltas
	if pieces == nil {
		pieces = split(reply.Content, size)
	}
	for _, piece := range pieces {
		add(map[string]any{"content": piece}, nil, nil)
	}

	argsLen := 0
	for i, tc := range reply.ToolCalls {
		argsLen += len(tc.Function.Arguments)
		typ := tc.Type
		if typ == "" {
			typ = "function"
		}
		first := map[string]any{
			"id":       tc.ID,
			"type":     typ,
			"function": map[string]any{"name": tc.Function.Name, "arguments": ""},
		}
		if !reply.OmitIndex {
			first["index"] = i
		}
		add(map[string]any{"tool_calls": []any{first}}, nil, nil)
		// Small pieces so that every non-trivial argument object is cut
		// mid-JSON, as real models stream it.
		for _, piece := range split(tc.Function.Arguments, min(size, 5)) {
			next := map[string]any{"function": map[string]any{"arguments": piece}}
			if !reply.OmitIndex {
				next["index"] = i
			}
			add(map[string]any{"tool_calls": []any{next}}, nil, nil)
		}
	}

	finish := reply.FinishReason
	if finish == "" {
		finish = "stop"
		if len(reply.ToolCalls) > 0 {
			finish = "tool_calls"
		}
	}
	add(map[string]any{}, &finish, nil)

	if req.IncludeUsage {
		usage := reply.Usage
		if usage == nil {
			contentLen := len(reply.Content)
			for _, d := range reply.Deltas {
				contentLen += len(d)
			}
			u := llm.Usage{
				PromptTokens:     len(req.Raw)/4 + 1,
				CompletionTokens: (contentLen+len(reply.Reasoning)+argsLen)/4 + 1,
			}
			u.TotalTokens = u.PromptTokens + u.CompletionTokens
			usage = &u
		}
		add(nil, nil, usage)
	}
	return out
}

// split cuts s into pieces of at most n runes; never inside a rune, since
// each piece is JSON-encoded on its own.
func split(s string, n int) []string {
	var out []string
	for s != "" {
		end, count := 0, 0
		for end < len(s) && count < n {
			_, w := utf8.DecodeRuneInString(s[end:])
			end += w
			count++
		}
		out = append(out, s[:end])
		s = s[end:]
	}
	return out
}

// stream writes the reply as server-sent events.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, req Request, reply Reply, seq int) {
	var frames [][]byte
	for _, p := range events(req, reply, seq) {
		frames = append(frames, fmt.Appendf(nil, "data: %s\n\n", p))
	}
	s.writeFrames(w, r, reply, frames, true)
}

// writeFrames sends SSE frames paced and broken as reply says; done: end
// with "data: [DONE]" (chat completions; the Responses API has none).
func (s *Server) writeFrames(w http.ResponseWriter, r *http.Request, reply Reply, payloads [][]byte, done bool) {
	garbageAt := -1
	if reply.Garbage {
		garbageAt = min(2, len(payloads)-1)
	}

	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	rc.Flush() //nolint:errcheck // client gone: the writes below fail too.

	start := time.Now()
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	// wait sleeps until d from now, or returns false if the client or the
	// server went away.
	wait := func(d time.Duration) bool {
		if d <= 0 {
			return true
		}
		if timer == nil {
			timer = time.NewTimer(d)
		} else {
			timer.Reset(d)
		}
		select {
		case <-timer.C:
			return true
		case <-r.Context().Done():
			return false
		case <-s.done:
			return false
		}
	}

	for i, p := range payloads {
		if i > 0 {
			var ok bool
			if reply.Interval > 0 {
				ok = wait(time.Until(start.Add(time.Duration(i) * reply.Interval)))
			} else {
				ok = wait(reply.Delay)
			}
			if !ok {
				return
			}
		}
		if reply.Gate != nil && i == reply.GateAfter {
			select {
			case <-reply.Gate:
			case <-r.Context().Done():
				return
			case <-s.done:
				return
			}
		}
		if reply.Hang && i >= reply.HangAfter {
			s.hang(r)
			return
		}
		if reply.CutAfter > 0 && i >= reply.CutAfter {
			cut(rc)
			return
		}
		if i == garbageAt {
			if _, err := w.Write([]byte("data: {\"id\": not json\n\n")); err != nil {
				return
			}
		}
		if _, err := w.Write(p); err != nil {
			return
		}
		if rc.Flush() != nil {
			return
		}
	}
	if reply.Hang {
		s.hang(r)
		return
	}
	if reply.CutAfter > 0 && reply.CutAfter >= len(payloads) {
		cut(rc)
		return
	}
	if done {
		fmt.Fprint(w, "data: [DONE]\n\n") //nolint:errcheck // client gone.
	}
	rc.Flush() //nolint:errcheck
}

// cut drops the connection without finishing the chunked body, so the
// client sees an abrupt end as with a real network failure.
func cut(rc *http.ResponseController) {
	conn, _, err := rc.Hijack()
	if err != nil {
		// Hijacking is not possible on HTTP/2; a panic with this value
		// makes net/http abort the response instead.
		panic(http.ErrAbortHandler)
	}
	conn.Close()
}
