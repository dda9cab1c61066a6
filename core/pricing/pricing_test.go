package pricing

import (
	"math"
	"testing"
)

func TestCost(t *testing.T) {
	p := Price{Input: 2, CachedInput: 0.5, Output: 8}
	tests := []struct {
		name                       string
		price                      Price
		prompt, cached, completion int
		want                       float64
	}{
		{"input and output", p, 1_000_000, 0, 500_000, 2 + 4},
		{"cached part at its price", p, 1_000_000, 400_000, 0, 0.6*2 + 0.4*0.5},
		{"no cached price: cached costs as input", Price{Input: 2, Output: 8}, 1_000_000, 400_000, 0, 2},
		{"more cached than prompt: capped", p, 100, 1000, 0, 100 * 0.5 / 1e6},
		{"nothing", p, 0, 0, 0, 0},
	}
	for _, tt := range tests {
		if got := tt.price.Cost(tt.prompt, tt.cached, tt.completion); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("%s: cost %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestBuiltIn(t *testing.T) {
	if p, ok := BuiltIn("openai", "gpt-4o-mini"); !ok || p.Input != 0.15 || p.Output != 0.60 {
		t.Errorf("openai gpt-4o-mini: %+v %v", p, ok)
	}
	for _, c := range [][2]string{{"openai", "no-such-model"}, {"ollama", "qwen2.5-coder"}, {"anthropic", "gpt-4o-mini"}} {
		if _, ok := BuiltIn(c[0], c[1]); ok {
			t.Errorf("%s %s has a built-in price", c[0], c[1])
		}
	}
}
