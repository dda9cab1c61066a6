package backend

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
)

func loadConfig(t *testing.T, userFile string, vars map[string]string) config.Config {
	t.Helper()
	xdg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", xdg)
	if vars == nil {
		vars = map[string]string{}
	}
	vars["XDG_CONFIG_HOME"] = xdg
	vars["XDG_STATE_HOME"] = t.TempDir()
	if err := os.MkdirAll(filepath.Join(xdg, "coder"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(config.UserFile(), []byte(userFile), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(t.TempDir(), func(k string) string { return vars[k] })
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// Every preset but copilot (copilot_test.go) and the demo, pointed at the
// fake server: the key goes as a Bearer token, the preset's headers and
// model go with the request, and a 401 names the provider and the
// variable, never the key.
func TestPresetsAgainstFakeServer(t *testing.T) {
	srv := fakellm.New()
	defer srv.Close()
	for _, p := range config.Presets() {
		if p.Name == config.ProviderDemo || p.Name == config.ProviderCopilot {
			continue
		}
		t.Run(p.Name, func(t *testing.T) {
			vars := map[string]string{}
			if p.KeyEnv != "" {
				vars[p.KeyEnv] = "secret-" + p.Name
			}
			cfg := loadConfig(t, `{"provider":"`+p.Name+`","base_url":"`+srv.URL()+`"}`, vars)
			be, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer be.Close()
			if be.Demo || be.Name != p.Name {
				t.Fatalf("backend %q demo %v", be.Name, be.Demo)
			}
			before := len(srv.Requests())
			srv.Enqueue(fakellm.Reply{Content: "hello from " + p.Name})
			resp, err := be.Provider.Stream(context.Background(), llm.Request{Model: cfg.Model, Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}, nil)
			if err != nil || resp.Message.Content != "hello from "+p.Name {
				t.Fatalf("stream: %q %v", resp.Message.Content, err)
			}
			req := srv.Requests()[before]
			wantAuth := "Bearer secret-" + p.Name
			if p.KeyEnv == "" {
				wantAuth = ""
			}
			if got := strings.TrimSpace(req.Header.Get("Authorization")); got != strings.TrimSpace(wantAuth) && !(wantAuth == "" && got == "Bearer") {
				t.Errorf("Authorization %q, want %q", got, wantAuth)
			}
			if req.Model != p.Model && p.Model != "" {
				t.Errorf("model %q, want %q", req.Model, p.Model)
			}
			for k, v := range p.Headers {
				if req.Header.Get(k) != v {
					t.Errorf("header %s = %q, want %q", k, req.Header.Get(k), v)
				}
			}
			if !req.IncludeUsage {
				t.Error("usage not asked for")
			}

			srv.Enqueue(fakellm.Reply{Status: 401})
			_, err = be.Provider.Stream(context.Background(), llm.Request{Model: cfg.Model, Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}, nil)
			if err == nil || !strings.Contains(err.Error(), p.Name) || strings.Contains(err.Error(), "secret-") {
				t.Fatalf("401: %v", err)
			}
			if p.KeyEnv != "" && !strings.Contains(err.Error(), p.KeyEnv) {
				t.Errorf("401 does not name %s: %v", p.KeyEnv, err)
			}
		})
	}
}

// A 401 with the variable unset says so.
func TestAuthErrorUnsetKey(t *testing.T) {
	srv := fakellm.New()
	defer srv.Close()
	cfg := loadConfig(t, `{"provider":"groq","base_url":"`+srv.URL()+`"}`, nil)
	be, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	srv.Enqueue(fakellm.Reply{Status: 403})
	_, err = be.Provider.Stream(context.Background(), llm.Request{Model: cfg.Model, Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}, nil)
	if err == nil || !strings.Contains(err.Error(), "groq needs an API key: GROQ_API_KEY is not set") {
		t.Fatalf("403: %v", err)
	}
}

// With nothing configured, an Ollama that answers is used, with one of
// its models; one that does not leaves the demo, saying why.
func TestDetectOllama(t *testing.T) {
	srv := fakellm.New()
	defer srv.Close()
	ollama := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/tags" {
			json.NewEncoder(w).Encode(map[string]any{"models": []map[string]string{{"name": "llama3:8b"}, {"name": "qwen2.5-coder:7b"}}})
			return
		}
		// The OpenAI-compatible routes: hand them to the fake model.
		http.Redirect(w, r, strings.TrimSuffix(srv.URL(), "/v1")+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer ollama.Close()

	cfg := loadConfig(t, `{}`, nil)
	if cfg.Provider != config.ProviderDemo || !cfg.Detected {
		t.Fatalf("not a detected demo: %q %v", cfg.Provider, cfg.Detected)
	}
	cfg.OllamaURL = ollama.URL
	be, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	if be.Demo || be.Name != config.ProviderOllama || be.Config.Model != "qwen2.5-coder:7b" || be.Config.BaseURL != ollama.URL+"/v1" || !strings.Contains(be.Reason, "Ollama answers at "+ollama.URL) {
		t.Fatalf("ollama not chosen: %q model %q base %q (%s)", be.Name, be.Config.Model, be.Config.BaseURL, be.Reason)
	}
	srv.Enqueue(fakellm.Reply{Content: "local answer"})
	resp, err := be.Provider.Stream(context.Background(), llm.Request{Model: be.Config.Model, Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}, nil)
	if err != nil || resp.Message.Content != "local answer" {
		t.Fatalf("stream: %q %v", resp.Message.Content, err)
	}

	// Nobody listening: the demo, and the reason names the probe.
	ollama.Close()
	be2, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer be2.Close()
	if !be2.Demo || !strings.Contains(be2.Reason, "no Ollama at "+ollama.URL) || !strings.Contains(be2.Reason, "nothing configured") {
		t.Fatalf("demo not chosen: %q (%s)", be2.Name, be2.Reason)
	}
}
