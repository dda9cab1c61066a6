package provider

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/llm"
)

// A text written in pieces of every size, across block edges, reads back
// whole and in order, once.
func TestTextBlocks(t *testing.T) {
	var empty text
	if empty.String() != "" {
		t.Fatal("an empty text is not empty")
	}
	r := rand.New(rand.NewPCG(1, 2))
	var tx text
	defer tx.release()
	var want strings.Builder
	for want.Len() < 3*textBlock+17 {
		n := r.IntN(200)
		if r.IntN(50) == 0 {
			n = r.IntN(2 * textBlock) // a delta larger than a block
		}
		s := strings.Repeat(string(rune('a'+r.IntN(26))), n) + "é"
		tx.WriteString(s)
		want.WriteString(s)
	}
	if len(tx.first) != textBlock || len(tx.more) < 2 {
		t.Fatalf("%d bytes kept as %d on the heap and %d blocks", want.Len(), len(tx.first), len(tx.more))
	}
	for _, b := range tx.more[:len(tx.more)-1] {
		if len(b) != textBlock || cap(b) != textBlock {
			t.Fatalf("a whole block holds %d bytes (capacity %d), want %d", len(b), cap(b), textBlock)
		}
	}
	if got := tx.String(); got != want.String() {
		t.Fatalf("text of %d bytes reads back as %d bytes, or differs", want.Len(), len(got))
	}
	// The blocks were released by String: the text is empty and can be
	// released again safely.
	if tx.n != 0 || tx.more != nil || tx.String() != "" {
		t.Fatal("the text still holds something after String")
	}
	tx.release()
}

// A short text stays in one heap buffer.
func TestTextShort(t *testing.T) {
	var tx text
	tx.WriteString("hello, ")
	tx.WriteString("world")
	if tx.more != nil {
		t.Fatal("a short text took a block")
	}
	if got := tx.String(); got != "hello, world" {
		t.Fatalf("got %q", got)
	}
}

// A text released without String frees its blocks (the attempt's
// deferred release on an early return).
func TestTextRelease(t *testing.T) {
	var tx text
	tx.WriteString(strings.Repeat("x", 3*textBlock))
	if len(tx.more) != 2 {
		t.Fatalf("%d blocks, want 2", len(tx.more))
	}
	tx.release()
	if tx.more != nil || tx.n != 0 {
		t.Fatal("release left blocks")
	}
}

// add reuses its decoding space: nothing of one event may show in the
// next, which lacks the field.
func TestAccumulatorReuseLeaksNothing(t *testing.T) {
	var a accumulator
	defer a.release()
	events := []string{
		`{"choices":[{"delta":{"content":"a","reasoning_content":"r"}}],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}}`,
		`{"choices":[{"delta":{}}]}`,
		`{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]}}]}`,
		`{"choices":[{"delta":{}}]}`,
		`{"choices":[]}`,
		`{"choices":[{"delta":{"reasoning":"s"},"finish_reason":"stop"}]}`,
		`{"choices":[{"delta":{}}]}`,
	}
	var deltas []llm.Delta
	for _, e := range events {
		if err := a.add([]byte(e), func(d llm.Delta) { deltas = append(deltas, d) }); err != nil {
			t.Fatal(err)
		}
	}
	resp := a.response()
	m := resp.Message
	if m.Content != "a" || m.Reasoning != "rs" || len(m.ToolCalls) != 1 || m.ToolCalls[0].Function.Arguments != "{}" || resp.FinishReason != "stop" || len(deltas) != 4 || deltas[2].ToolCall != "f" {
		t.Fatalf("response %+v (finish %q) after %d deltas", m, resp.FinishReason, len(deltas))
	}
}
