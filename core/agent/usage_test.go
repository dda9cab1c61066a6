package agent

import (
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
)

// The usage every response reports, cached prompt tokens and cost
// included, is summed per turn, sent with the token counts and shown by
// /status.
func TestTurnUsage(t *testing.T) {
	f := newFixture(t, func(c *config.Config, _ *Options) { c.ProviderReason = "ANTHROPIC_API_KEY is set" })
	f.run(t, "/status")
	if out := lastOutput(f); !strings.Contains(out, "last turn: no model call yet") || !strings.Contains(out, "ANTHROPIC_API_KEY is set") {
		t.Errorf("/status before any call:\n%s", out)
	}
	f.srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("t1", "todo", map[string]any{"todos": []map[string]string{{"content": "x", "status": "pending"}}})},
			Usage: &llm.Usage{PromptTokens: 1000, CompletionTokens: 40, TotalTokens: 1040, PromptTokensDetails: &llm.PromptTokensDetails{CachedTokens: 600}, Cost: 0.002}},
		fakellm.Reply{Content: "done", Usage: &llm.Usage{PromptTokens: 1000, CompletionTokens: 10, TotalTokens: 1010, PromptCacheHitTokens: 1000, Cost: 0.001}},
	)
	f.run(t, "go")
	toks := f.rec.find(event.TokenCount)
	if len(toks) != 2 {
		t.Fatalf("%d token counts", len(toks))
	}
	first, last := toks[0].Tokens, toks[1].Tokens
	if first.Cached != 600 || first.Cost != 0.002 || last.Cached != 1000 {
		t.Errorf("per call: %+v %+v", first, last)
	}
	want := event.TurnUsage{In: 2000, Out: 50, Cached: 1600, Cost: 0.003, Calls: 2}
	if got := *last.Turn; got.In != want.In || got.Out != want.Out || got.Cached != want.Cached || got.Calls != 2 || got.Cost < 0.0029 || got.Cost > 0.0031 {
		t.Errorf("turn = %+v, want %+v", got, want)
	}
	if st := f.sess.Status(); st.Turn == nil || st.Turn.In != 2000 {
		t.Errorf("status turn = %+v", st.Turn)
	}
	f.run(t, "/status")
	if out := lastOutput(f); !strings.Contains(out, "last turn: 2 model calls, 2000 tokens in (80% cached), 50 out, cost $0.0030") {
		t.Errorf("/status:\n%s", out)
	}
	// Every request asked for usage in the stream.
	for i, r := range f.srv.Requests() {
		if !r.IncludeUsage {
			t.Errorf("request %d: no stream_options.include_usage", i)
		}
	}
}
