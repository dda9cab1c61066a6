// Package pricing turns a model call's tokens into what it cost, for
// display only: the built-in prices of a few preset models, taken from the
// providers' public price lists on the date below, and the prices a user
// gives in their own config.
package pricing

// Date is when the built-in prices were taken. Prices change: a user's
// config (the prices key) overrides them.
const Date = "2026-11-28"

// Price is a model's price in US dollars per million tokens: input not
// served from the provider's cache, input served from it, and output.
// CachedInput 0 (omitted) means cached input costs as much as the rest.
type Price struct {
	Input       float64 `json:"input"`
	CachedInput float64 `json:"cached_input,omitempty"`
	Output      float64 `json:"output"`
}

// Cost is the price of one call: prompt tokens, cached of them served
// from the cache, completion tokens out.
func (p Price) Cost(prompt, cached, completion int) float64 {
	cachedPrice := p.CachedInput
	if cachedPrice == 0 {
		cachedPrice = p.Input
	}
	cached = min(max(cached, 0), prompt)
	return (float64(prompt-cached)*p.Input + float64(cached)*cachedPrice + float64(completion)*p.Output) / 1e6
}

// builtIn holds the prices of the presets' models, by preset and model,
// from each provider's price list (standard tier, short prompts) as
// published or quoted on the date in the comment. Left out: presets billed
// otherwise (copilot: a subscription; ollama, lmstudio: local), OpenRouter
// (its endpoint reports each call's cost), DeepSeek (prices by time of day
// since 2026) and Mistral (mistral-large-latest names whichever model is
// current, so its price moves with it).
var builtIn = map[string]map[string]Price{
	// openai.com/api/pricing (developers.openai.com/api/docs/pricing),
	// as read on 2026-11-05.
	"openai": {
		"gpt-4o-mini": {Input: 0.15, CachedInput: 0.075, Output: 0.60},
		"gpt-4o":      {Input: 2.50, CachedInput: 1.25, Output: 10.00},
	},
	// docs.anthropic.com/en/docs/about-claude/pricing and the model pages
	// on platform.claude.com (cache reads at a tenth of input); cache
	// writes, priced higher, are not told apart in the usage read here and
	// count as input.
	"anthropic": {
		"claude-sonnet-4-5": {Input: 3.00, CachedInput: 0.30, Output: 15.00},
		"claude-haiku-4-5":  {Input: 1.00, CachedInput: 0.10, Output: 5.00},
	},
	// ai.google.dev/gemini-api/docs/pricing, as quoted in March 2026
	// (context caching at a tenth of input).
	"gemini": {
		"gemini-2.5-flash": {Input: 0.30, CachedInput: 0.03, Output: 2.50},
	},
	// groq.com/pricing, as quoted in April 2026.
	"groq": {
		"llama-3.3-70b-versatile": {Input: 0.59, Output: 0.79},
	},
}

// BuiltIn returns the built-in price of model on preset's own endpoint.
func BuiltIn(preset, model string) (Price, bool) {
	p, ok := builtIn[preset][model]
	return p, ok
}
