package config

import (
	"fmt"
	"strings"

	"github.com/coder-nvim/coder-nvim/core/pricing"
)

// PriceOf is the price of model's calls and where it comes from, for the
// cost shown: the user's prices entry, else the built-in table's when
// requests go to the preset's own endpoint (a proxy or another server
// behind the same preset may charge otherwise). ok is false when neither
// knows the model: then only tokens are shown.
func (c Config) PriceOf(model string) (p pricing.Price, source string, ok bool) {
	if p, ok := c.Prices[model]; ok {
		return p, "your prices (config key prices)", true
	}
	preset, found := LookupPreset(c.Provider)
	if !found || strings.TrimRight(c.BaseURL, "/") != preset.BaseURL {
		return pricing.Price{}, "", false
	}
	if p, ok := pricing.BuiltIn(preset.Name, model); ok {
		return p, fmt.Sprintf("built-in prices taken %s", pricing.Date), true
	}
	return pricing.Price{}, "", false
}
