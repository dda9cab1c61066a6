package config

import (
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/pricing"
)

// TestPrices: the user's prices override the built-in table and apply on
// any endpoint; the built-in ones only on the preset's own endpoint; a
// project file's prices never apply, trusted or not.
func TestPrices(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	getenv := env(map[string]string{"XDG_STATE_HOME": t.TempDir(), "OPENAI_API_KEY": "sk-user"})
	root := t.TempDir()
	writeConfig(t, UserFile(), `{"provider":"openai","model":"gpt-4o-mini","prices":{"gpt-4o":{"input":1,"output":2},"mine":{"input":3,"cached_input":0.5,"output":4}}}`)
	writeConfig(t, WorkspaceFile(root), `{"prices":{"gpt-4o-mini":{"input":900,"output":900},"mine":{"input":0,"output":0}}}`)
	for _, trusted := range []bool{false, true} {
		if trusted {
			if _, err := TrustWorkspace(root, getenv); err != nil {
				t.Fatal(err)
			}
		}
		cfg, err := Load(root, getenv)
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Workspace.Trusted != trusted {
			t.Fatalf("trusted %v, want %v", cfg.Workspace.Trusted, trusted)
		}
		tests := []struct {
			model, source string
			input         float64
			ok            bool
		}{
			{"gpt-4o-mini", "built-in prices taken", 0.15, true},
			{"gpt-4o", "your prices", 1, true},
			{"mine", "your prices", 3, true},
			{"unknown-model", "", 0, false},
		}
		for _, tt := range tests {
			p, source, ok := cfg.PriceOf(tt.model)
			if ok != tt.ok || p.Input != tt.input || !strings.HasPrefix(source, tt.source) {
				t.Errorf("trusted %v: %s: %+v %q %v, want input %v from %q", trusted, tt.model, p, source, ok, tt.input, tt.source)
			}
		}
		if ignored := strings.Join(cfg.Workspace.Ignored, "\n"); !strings.Contains(ignored, "prices: ") || !strings.Contains(ignored, "never taken from a project file") {
			t.Errorf("trusted %v: the project's prices not named as ignored:\n%s", trusted, ignored)
		}
	}

	// Another endpoint behind the preset: the built-in prices do not
	// apply, the user's still do.
	cfg := Defaults()
	cfg.Provider, cfg.BaseURL = "openai", "http://127.0.0.1:9/v1"
	cfg.Prices = map[string]pricing.Price{"gpt-4o": {Input: 1}}
	if _, _, ok := cfg.PriceOf("gpt-4o-mini"); ok {
		t.Error("built-in price used for another endpoint")
	}
	if _, _, ok := cfg.PriceOf("gpt-4o"); !ok {
		t.Error("the user's price not used for another endpoint")
	}
}

func TestPricesValidated(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	writeConfig(t, UserFile(), `{"prices":{"m":{"input":-1,"output":2}}}`)
	_, err := Load(t.TempDir(), env(map[string]string{"XDG_STATE_HOME": t.TempDir()}))
	if err == nil || !strings.Contains(err.Error(), `"prices.m"`) {
		t.Errorf("negative price: %v", err)
	}
}
