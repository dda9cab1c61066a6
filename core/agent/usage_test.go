package agent

import (
	"fmt"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/pricing"
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

// TestTurnCostAtKnownPrices: a preset model with a built-in price shows
// what a call cost (per call, the turn, the conversation's stats,
// /status saying where the price comes from); the user's prices win; a
// model nobody prices shows tokens only.
func TestTurnCostAtKnownPrices(t *testing.T) {
	tests := []struct {
		name, model string
		prices      map[string]pricing.Price
		cost        string // as /status shows it; "" none
		basis       string
	}{
		{"built-in", "gpt-4o-mini", nil, "$0.1800", "cost: at built-in prices taken " + pricing.Date + ": $0.15 input, $0.075 cached input, $0.6 output"},
		{"user's price wins", "gpt-4o-mini", map[string]pricing.Price{"gpt-4o-mini": {Input: 1, Output: 2}}, "$1.2000", "cost: at your prices (config key prices): $1 input, $1 cached input, $2 output"},
		{"unknown model", "test-model", nil, "", "cost: tokens only"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, func(c *config.Config, _ *Options) {
				c.Provider, c.BaseURL, c.Model, c.Prices = "openai", "https://api.openai.com/v1", tt.model, tt.prices
			})
			// 1M tokens in (400k cached), 100k out.
			f.srv.Enqueue(fakellm.Reply{Content: "done", Usage: &llm.Usage{PromptTokens: 1_000_000, CompletionTokens: 100_000, TotalTokens: 1_100_000,
				PromptTokensDetails: &llm.PromptTokensDetails{CachedTokens: 400_000}}})
			f.run(t, "go")
			toks := f.rec.find(event.TokenCount)
			if len(toks) != 1 {
				t.Fatalf("%d token counts", len(toks))
			}
			if got := fmt.Sprintf("$%.4f", toks[0].Tokens.Cost); tt.cost != "" && got != tt.cost || tt.cost == "" && toks[0].Tokens.Cost != 0 {
				t.Errorf("call cost %s, want %q", got, tt.cost)
			}
			f.run(t, "/status")
			out := lastOutput(f)
			if !strings.Contains(out, tt.basis) {
				t.Errorf("/status lacks %q:\n%s", tt.basis, out)
			}
			if tt.cost == "" {
				if strings.Contains(out, "cost $") {
					t.Errorf("/status shows a cost for an unpriced model:\n%s", out)
				}
				return
			}
			if !strings.Contains(out, "100000 out, cost "+tt.cost) || !strings.Contains(out, "model calls: 1, cost "+tt.cost) {
				t.Errorf("/status lacks the turn's and the conversation's cost %s:\n%s", tt.cost, out)
			}
		})
	}
}
