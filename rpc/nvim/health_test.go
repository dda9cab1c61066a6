package nvimhost

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/backend"
	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/fakellm"
)

// healthConfig loads a user config file with vars as the environment.
func healthConfig(t *testing.T, user string, vars map[string]string) config.Config {
	t.Helper()
	xdg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", xdg)
	if vars == nil {
		vars = map[string]string{}
	}
	vars["XDG_CONFIG_HOME"], vars["XDG_STATE_HOME"] = xdg, t.TempDir()
	if err := os.MkdirAll(filepath.Join(xdg, "coder"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(config.UserFile(), []byte(user), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(t.TempDir(), func(k string) string { return vars[k] })
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestReachCopilot: the :checkhealth reachability check asks Copilot with
// the Copilot token (not as a key problem), and a rejected OAuth token is
// named as such.
func TestReachCopilot(t *testing.T) {
	srv := fakellm.New()
	defer srv.Close()
	srv.SetCopilot("gho_user", time.Hour)
	srv.SetModels([]string{"gpt-4o", "claude-sonnet-4"})
	for _, c := range []struct {
		name, token string
		want        []string
	}{
		{"valid", "gho_user", []string{"with the Copilot token: HTTP 200 (2 models)"}},
		{"revoked", "gho_revoked", []string{"HTTP 401", "GitHub rejected the token in", ":Copilot auth"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "apps.json")
			if err := os.WriteFile(file, []byte(`{"github.com":{"oauth_token":"`+c.token+`"}}`), 0o600); err != nil {
				t.Fatal(err)
			}
			cfg := healthConfig(t, `{"provider":"copilot","base_url":"`+srv.URL()+`","copilot":{"token_url":"`+srv.CopilotTokenURL()+`","token_file":"`+file+`"}}`, nil)
			be, err := backend.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer be.Close()
			ok, msg := reach(context.Background(), be)
			if !ok || strings.Contains(msg, "gho_") || strings.Contains(msg, "API key") {
				t.Fatalf("reach = %v %q", ok, msg)
			}
			for _, w := range c.want {
				if !strings.Contains(msg, w) {
					t.Errorf("reach %q lacks %q", msg, w)
				}
			}
		})
	}
}

// TestReachKey: a rejected key is reported as reachable with the provider
// and its variable; a closed port is not reachable.
func TestReachKey(t *testing.T) {
	srv := fakellm.New()
	cfg := healthConfig(t, `{"provider":"groq","base_url":"`+srv.URL()+`"}`, map[string]string{"GROQ_API_KEY": "secret-k"})
	be, err := backend.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	if ok, msg := reach(context.Background(), be); !ok || !strings.Contains(msg, "HTTP 404") {
		t.Errorf("no /models: %v %q", ok, msg)
	}
	srv.SetModels([]string{"m"})
	if ok, msg := reach(context.Background(), be); !ok || !strings.Contains(msg, "HTTP 200 (1 models)") {
		t.Errorf("listed: %v %q", ok, msg)
	}
	srv.Close()
	if ok, msg := reach(context.Background(), be); ok || !strings.Contains(msg, "cannot reach") {
		t.Errorf("closed: %v %q", ok, msg)
	}
}
