package config

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Copilot holds the GitHub Copilot settings. They are never taken from a
// project file: the token URL receives the user's GitHub token.
type Copilot struct {
	// TokenURL exchanges the GitHub OAuth token for a short-lived API
	// token; default https://api.github.com/copilot_internal/v2/token.
	TokenURL string `json:"token_url"`
	// TokenFile is the file holding the OAuth token; default the one
	// copilot.vim / copilot.lua write (CopilotTokenFiles).
	TokenFile string `json:"token_file"`
}

// DefaultCopilotTokenURL is the default copilot.token_url.
const DefaultCopilotTokenURL = "https://api.github.com/copilot_internal/v2/token"

// keySet records which provider settings were given and by whom, so that
// presets fill only the rest and a project file cannot choose a secret.
type keySet struct {
	model, contextWindow, apiKeyEnv, baseURL bool
	providerFrom                             string // the file or variable that named the provider
	providerByProject, baseURLByProject      bool
}

// note records the top-level keys of a file that was applied whole
// (the user's, or a trusted project's).
func (k *keySet) note(path string, data []byte, project bool) {
	var top map[string]json.RawMessage
	if json.Unmarshal(data, &top) != nil {
		return
	}
	has := func(key string) bool { _, ok := top[key]; return ok }
	k.model = k.model || has("model")
	k.contextWindow = k.contextWindow || has("context_window")
	if has("api_key_env") && !project {
		k.apiKeyEnv = true
	}
	if has("base_url") {
		k.baseURL, k.baseURLByProject = true, project
	}
	if has("provider") {
		k.providerFrom, k.providerByProject = path, project
	}
}

// detectOrder is the zero-config order: the first variable set chooses.
func detectOrder() []struct{ env, provider string } {
	return []struct{ env, provider string }{
		{"OPENAI_API_KEY", ProviderOpenAI},
		{"ANTHROPIC_API_KEY", "anthropic"},
		{"GEMINI_API_KEY", "gemini"},
		{"OPENROUTER_API_KEY", "openrouter"},
		{"DEEPSEEK_API_KEY", "deepseek"},
	}
}

// CopilotTokenFiles are the files copilot.vim and copilot.lua keep the
// GitHub OAuth token in, in the order they are read:
// $XDG_CONFIG_HOME/github-copilot/{apps,hosts}.json, with
// $HOME/.config when XDG_CONFIG_HOME is unset.
func CopilotTokenFiles(getenv func(string) string) []string {
	dir := getenv("XDG_CONFIG_HOME")
	if dir == "" {
		home := getenv("HOME")
		if home == "" {
			return nil
		}
		dir = filepath.Join(home, ".config")
	}
	return []string{filepath.Join(dir, "github-copilot", "apps.json"), filepath.Join(dir, "github-copilot", "hosts.json")}
}

// copilotFile returns the configured or first existing token file.
func (c Config) copilotFile(getenv func(string) string) string {
	if c.Copilot.TokenFile != "" {
		return c.Copilot.TokenFile
	}
	for _, f := range CopilotTokenFiles(getenv) {
		if _, err := os.Stat(f); err == nil {
			return f
		}
	}
	return ""
}

// resolveProvider chooses the provider when none is configured, then fills
// what its preset gives and the settings do not.
func (c *Config) resolveProvider(getenv func(string) string) error {
	switch {
	case c.Provider != "":
		c.ProviderReason = "configured in " + c.set.providerFrom
		if c.set.providerFrom == "" {
			c.ProviderReason = "configured"
		}
	case c.BaseURL != "":
		c.Provider, c.ProviderReason = ProviderOpenAI, "base_url is set"
	case c.APIKeyEnv != "" && getenv(c.APIKeyEnv) != "":
		c.Provider, c.ProviderReason = ProviderOpenAICompat, c.APIKeyEnv+" (api_key_env) is set"
	default:
		for _, d := range detectOrder() {
			if getenv(d.env) != "" {
				c.Provider, c.ProviderReason = d.provider, d.env+" is set"
				break
			}
		}
		if c.Provider != "" {
			break
		}
		if f := c.copilotFile(getenv); f != "" {
			c.Provider, c.ProviderReason = ProviderCopilot, "Copilot token file "+f
			break
		}
		var vars []string
		for _, d := range detectOrder() {
			vars = append(vars, d.env)
		}
		c.Provider, c.Detected = ProviderDemo, true
		c.ProviderReason = fmt.Sprintf("nothing configured: none of %s is set and there is no Copilot token file", strings.Join(vars, ", "))
	}
	p, ok := LookupPreset(c.Provider)
	if !ok {
		return fmt.Errorf("key \"provider\": unknown provider %q (known: %s)", c.Provider, strings.Join(PresetNames(), ", "))
	}
	c.Provider = p.Name
	if c.OllamaURL == "" {
		c.OllamaURL = "http://localhost:11434"
	}
	if p.Name == ProviderDemo {
		if !c.set.model {
			c.Model = "demo" // the demo is no model: do not show one
		}
		return nil
	}
	if c.BaseURL == "" {
		c.BaseURL = p.BaseURL
	}
	if !c.set.apiKeyEnv {
		c.APIKeyEnv = p.KeyEnv
		// A project file may name a provider; the variable of that
		// provider's key is read only when the requests go to its own
		// endpoint. Elsewhere, as before presets, OPENAI_API_KEY.
		if c.set.providerByProject && strings.TrimRight(c.BaseURL, "/") != p.BaseURL && p.KeyEnv != "" {
			c.APIKeyEnv = "OPENAI_API_KEY"
		}
	}
	if c.APIKeyEnv != "" {
		c.APIKey = getenv(c.APIKeyEnv)
	}
	if !c.set.model && p.Model != "" {
		c.Model = p.Model
	}
	if !c.set.contextWindow {
		c.ContextWindow = c.WindowFor(c.Model)
	}
	if c.WireAPI == "" {
		c.WireAPI = WireChat
		if p.Name == ProviderOpenAI && responsesOnly(c.Model) {
			c.WireAPI = WireResponses
		}
	}
	if c.Copilot.TokenURL == "" {
		c.Copilot.TokenURL = DefaultCopilotTokenURL
	}
	if p.Name == ProviderCopilot && c.Copilot.TokenFile == "" {
		c.Copilot.TokenFile = c.copilotFile(getenv)
		if c.Copilot.TokenFile == "" {
			// Asked for copilot: say what is missing, never fall back.
			return fmt.Errorf("provider copilot (%s): no Copilot token file (looked for %s); sign in with copilot.vim or copilot.lua (:Copilot auth), or set copilot.token_file",
				c.ProviderReason, strings.Join(CopilotTokenFiles(getenv), " and "))
		}
	}
	return nil
}

// WindowFor is the context window for a model when context_window is not
// configured: the built-in table, else the preset's, else the default.
func (c Config) WindowFor(model string) int {
	if c.set.contextWindow {
		return c.ContextWindow
	}
	if w := ModelWindow(model); w > 0 {
		return w
	}
	if p, ok := LookupPreset(c.Provider); ok && p.ContextWindow > 0 {
		return p.ContextWindow
	}
	return Defaults().ContextWindow
}

// BaseURLSet reports whether base_url was configured (or OPENAI_BASE_URL
// set), rather than filled in by the preset.
func (c Config) BaseURLSet() bool { return c.set.baseURL }

// ContextWindowSet reports whether context_window was configured (then
// the endpoint's model metadata does not replace it).
func (c Config) ContextWindowSet() bool { return c.set.contextWindow }

// UseLocal switches a detected demo configuration to a local server that
// answered the probe: preset name (ollama), its base URL, and one of the
// models it serves (the configured one when it is among them).
func (c Config) UseLocal(name, baseURL string, models []string, reason string) Config {
	p, _ := LookupPreset(name)
	c.Provider, c.BaseURL, c.Detected, c.ProviderReason = p.Name, baseURL, false, reason
	c.APIKeyEnv, c.APIKey, c.WireAPI = "", "", WireChat
	if !c.set.model || !slices.Contains(models, c.Model) {
		c.Model = ""
		for _, m := range models {
			if strings.HasPrefix(m, p.Model) {
				c.Model = m
				break
			}
		}
		if c.Model == "" && len(models) > 0 {
			c.Model = models[0]
		}
	}
	if !c.set.contextWindow {
		c.ContextWindow = c.WindowFor(c.Model)
	}
	return c
}

// SetModel sets the model as the user chose it (a flag, /model): a
// detected server keeps it, and the context window follows it.
func (c *Config) SetModel(model string) {
	c.Model, c.set.model = model, true
	c.ContextWindow = c.WindowFor(model)
}

// ModelSet reports whether model was configured (a file's "model",
// CODER_MODEL), rather than left to the preset's default.
func (c Config) ModelSet() bool { return c.set.model }
