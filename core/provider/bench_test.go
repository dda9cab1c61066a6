package provider

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/llm"
)

// BenchmarkStreamDecode streams a 4 MB answer in 40-byte deltas (events
// shaped as fakellm's and OpenAI's) through Stream, without a network,
// and reports the allocations per event: each one is garbage the host
// makes while a long answer floods in.
func BenchmarkStreamDecode(b *testing.B) {
	const events = 100000
	var body bytes.Buffer
	delta := strings.Repeat("x", 39) + "\n"
	for i := range events {
		role := ""
		if i == 0 {
			role = `"role":"assistant",`
		}
		fmt.Fprintf(&body, "data: {\"id\":\"chatcmpl-fake-1\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{%s\"content\":%q},\"finish_reason\":null}]}\n\n", role, delta)
	}
	body.WriteString("data: {\"id\":\"chatcmpl-fake-1\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n")
	body.WriteString("data: [DONE]\n\n")
	p := NewOpenAI(Options{BaseURL: "http://bench.invalid/v1", MaxAttempts: 1, HTTPClient: &http.Client{Transport: bodyTransport{body.Bytes()}}})
	req := llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		n := 0
		resp, err := p.Stream(context.Background(), req, func(d llm.Delta) { n += len(d.Content) })
		if err != nil || len(resp.Message.Content) != events*len(delta) || n != len(resp.Message.Content) {
			b.Fatalf("streamed %d bytes, answer %d, want %d: %v", n, len(resp.Message.Content), events*len(delta), err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*events), "ns/event")
}
