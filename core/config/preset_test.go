package config

import (
	"path/filepath"
	"strings"
	"testing"
)

// Each preset fills the endpoint, the key's variable, a model and a
// context window; explicit settings win.
func TestPresets(t *testing.T) {
	for _, p := range Presets() {
		if p.Name == ProviderDemo {
			continue
		}
		t.Run(p.Name, func(t *testing.T) {
			xdg := t.TempDir()
			t.Setenv("XDG_CONFIG_HOME", xdg)
			vars := map[string]string{"XDG_CONFIG_HOME": xdg, "XDG_STATE_HOME": t.TempDir()}
			if p.KeyEnv != "" {
				vars[p.KeyEnv] = "key-of-" + p.Name
			}
			if p.Name == ProviderCopilot {
				writeConfig(t, filepath.Join(xdg, "github-copilot", "apps.json"), `{"github.com:Iv1.x":{"oauth_token":"gho_x"}}`)
			}
			writeConfig(t, UserFile(), `{"provider":"`+strings.ToUpper(p.Name)+`"}`)
			cfg, err := Load(t.TempDir(), env(vars))
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Provider != p.Name || cfg.BaseURL != p.BaseURL || cfg.APIKeyEnv != p.KeyEnv || cfg.ContextWindow < 1000 {
				t.Errorf("preset not applied: provider %q base %q key env %q window %d", cfg.Provider, cfg.BaseURL, cfg.APIKeyEnv, cfg.ContextWindow)
			}
			if p.KeyEnv != "" && cfg.APIKey != "key-of-"+p.Name {
				t.Errorf("key not read from %s", p.KeyEnv)
			}
			if p.Model != "" && cfg.Model != p.Model {
				t.Errorf("model %q, want the preset's %q", cfg.Model, p.Model)
			}
			if !strings.Contains(cfg.ProviderReason, UserFile()) {
				t.Errorf("reason %q does not name the file", cfg.ProviderReason)
			}

			writeConfig(t, UserFile(), `{"provider":"`+p.Name+`","base_url":"http://127.0.0.1:1/v1","api_key_env":"MY_KEY","model":"m","context_window":5000,"wire_api":"responses"}`)
			vars["MY_KEY"] = "mine"
			cfg, err = Load(t.TempDir(), env(vars))
			if err != nil {
				t.Fatal(err)
			}
			if cfg.BaseURL != "http://127.0.0.1:1/v1" || cfg.APIKeyEnv != "MY_KEY" || cfg.APIKey != "mine" || cfg.Model != "m" || cfg.ContextWindow != 5000 || cfg.WireAPI != WireResponses {
				t.Errorf("explicit settings lost: %+v", cfg)
			}
		})
	}
}

func TestUnknownPreset(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	for _, getenv := range []func(string) string{env(map[string]string{"CODER_PROVIDER": "antropic"})} {
		_, err := Load(t.TempDir(), getenv)
		if err == nil || !strings.Contains(err.Error(), `unknown provider "antropic"`) || !strings.Contains(err.Error(), "anthropic, gemini, openrouter") {
			t.Errorf("err = %v", err)
		}
	}
	writeConfig(t, UserFile(), `{"provider":"nope"}`)
	if _, err := Load(t.TempDir(), env(nil)); err == nil || !strings.Contains(err.Error(), UserFile()) || !strings.Contains(err.Error(), "known: openai, anthropic") {
		t.Errorf("err = %v", err)
	}
}

// With nothing configured the first key variable set chooses, in the
// documented order, then a Copilot token file, else the demo (the backend
// then probes Ollama).
func TestDetectOrder(t *testing.T) {
	tests := []struct {
		name     string
		vars     map[string]string
		copilot  string // token file name under github-copilot/
		provider string
		reason   string
	}{
		{"nothing", nil, "", ProviderDemo, "nothing configured"},
		{"openai first", map[string]string{"DEEPSEEK_API_KEY": "d", "OPENAI_API_KEY": "o"}, "apps.json", ProviderOpenAI, "OPENAI_API_KEY is set"},
		{"anthropic before gemini", map[string]string{"GEMINI_API_KEY": "g", "ANTHROPIC_API_KEY": "a"}, "", "anthropic", "ANTHROPIC_API_KEY is set"},
		{"gemini", map[string]string{"GEMINI_API_KEY": "g", "OPENROUTER_API_KEY": "r"}, "", "gemini", "GEMINI_API_KEY"},
		{"openrouter", map[string]string{"OPENROUTER_API_KEY": "r", "DEEPSEEK_API_KEY": "d"}, "", "openrouter", "OPENROUTER_API_KEY"},
		{"deepseek", map[string]string{"DEEPSEEK_API_KEY": "d"}, "hosts.json", "deepseek", "DEEPSEEK_API_KEY"},
		{"copilot apps.json", nil, "apps.json", ProviderCopilot, "apps.json"},
		{"copilot hosts.json", nil, "hosts.json", ProviderCopilot, "hosts.json"},
		{"base url", map[string]string{"OPENAI_BASE_URL": "http://127.0.0.1:1/v1", "ANTHROPIC_API_KEY": "a"}, "", ProviderOpenAI, "base_url"},
		{"groq is not detected", map[string]string{"GROQ_API_KEY": "g"}, "", ProviderDemo, "nothing configured"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			xdg := t.TempDir()
			t.Setenv("XDG_CONFIG_HOME", xdg)
			vars := map[string]string{"XDG_CONFIG_HOME": xdg}
			for k, v := range tt.vars {
				vars[k] = v
			}
			if tt.copilot != "" {
				writeConfig(t, filepath.Join(xdg, "github-copilot", tt.copilot), `{"github.com":{"oauth_token":"gho_x"}}`)
			}
			cfg, err := Load(t.TempDir(), env(vars))
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Provider != tt.provider || !strings.Contains(cfg.ProviderReason, tt.reason) || cfg.Detected != (tt.provider == ProviderDemo) {
				t.Errorf("chose %q (%s, detected %v), want %q (%s)", cfg.Provider, cfg.ProviderReason, cfg.Detected, tt.provider, tt.reason)
			}
		})
	}
}

// Asked for copilot, a missing token file is one clear error, not the demo.
func TestCopilotWithoutTokenFile(t *testing.T) {
	xdg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", xdg)
	_, err := Load(t.TempDir(), env(map[string]string{"CODER_PROVIDER": "copilot", "XDG_CONFIG_HOME": xdg}))
	if err == nil || !strings.Contains(err.Error(), "no Copilot token file") || !strings.Contains(err.Error(), filepath.Join(xdg, "github-copilot", "apps.json")) {
		t.Errorf("err = %v", err)
	}
}

// A project file never chooses which secret is read or where the GitHub
// token goes; trusted, its provider's key is read only for that
// provider's own endpoint.
func TestProjectProviderKeys(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	state := t.TempDir()
	vars := map[string]string{"XDG_STATE_HOME": state, "OPENAI_API_KEY": "sk-user", "ANTHROPIC_API_KEY": "sk-ant"}
	tests := []struct {
		name, file       string
		trust            bool
		provider, keyEnv string
		ignored          []string
	}{
		{"untrusted: provider and wire ignored", `{"provider":"anthropic","wire_api":"responses","reasoning_effort":"high","copilot":{"token_url":"http://127.0.0.1:9/t"}}`, false,
			ProviderOpenAI, "OPENAI_API_KEY", []string{"provider: \"anthropic\"", "wire_api", "reasoning_effort", "copilot:"}},
		{"trusted: the provider's own endpoint gets its key", `{"provider":"anthropic"}`, true, "anthropic", "ANTHROPIC_API_KEY", nil},
		{"trusted: elsewhere, not that key", `{"provider":"anthropic","base_url":"http://127.0.0.1:9/v1"}`, true, "anthropic", "OPENAI_API_KEY", nil},
		{"trusted: copilot endpoints never", `{"copilot":{"token_url":"http://127.0.0.1:9/t"}}`, true, ProviderOpenAI, "OPENAI_API_KEY", []string{"copilot:"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			writeConfig(t, WorkspaceFile(root), tt.file)
			if tt.trust {
				if _, err := TrustWorkspace(root, env(vars)); err != nil {
					t.Fatal(err)
				}
			}
			cfg, err := Load(root, env(vars))
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Provider != tt.provider || cfg.APIKeyEnv != tt.keyEnv || cfg.Copilot.TokenURL != DefaultCopilotTokenURL && cfg.Provider != ProviderDemo {
				t.Errorf("provider %q key env %q token url %q, want %q %q", cfg.Provider, cfg.APIKeyEnv, cfg.Copilot.TokenURL, tt.provider, tt.keyEnv)
			}
			ignored := strings.Join(cfg.Workspace.Ignored, "\n")
			for _, w := range tt.ignored {
				if !strings.Contains(ignored, w) {
					t.Errorf("ignored lacks %q:\n%s", w, ignored)
				}
			}
		})
	}
}

func TestModelWindow(t *testing.T) {
	for model, want := range map[string]int{"gpt-4o-mini": 128000, "openai/gpt-4o": 128000, "claude-sonnet-4-5": 200000, "gemini-1.5-pro-002": 2097152, "gemini-2.5-flash": 1048576, "mystery": 0} {
		if got := ModelWindow(model); got != want {
			t.Errorf("ModelWindow(%q) = %d, want %d", model, got, want)
		}
	}
}
