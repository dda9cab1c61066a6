package backend

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/provider"
)

// copilotConfig loads a configuration naming copilot, its token file
// holding body and both endpoints at srv.
func copilotConfig(t *testing.T, srv *fakellm.Server, body string) config.Config {
	t.Helper()
	file := filepath.Join(t.TempDir(), "apps.json")
	if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return loadConfig(t, `{"provider":"copilot","base_url":"`+srv.URL()+`","copilot":{"token_url":"`+srv.CopilotTokenURL()+`","token_file":"`+file+`"}}`, nil)
}

func TestCopilotBackend(t *testing.T) {
	srv := fakellm.New()
	defer srv.Close()
	srv.SetCopilot("gho_user", time.Hour)
	srv.SetModels([]string{"gpt-4o", "claude-sonnet-4"})
	cfg := copilotConfig(t, srv, `{"github.com:Iv1.x":{"user":"u","oauth_token":"gho_user"}}`)
	be, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	if be.Name != config.ProviderCopilot || cfg.Model != "gpt-4o" {
		t.Fatalf("backend %q model %q", be.Name, cfg.Model)
	}
	models, err := be.Models(context.Background())
	if err != nil || strings.Join(provider.ModelIDs(models), ",") != "claude-sonnet-4,gpt-4o" {
		t.Fatalf("models %v %v", models, err)
	}
	for i := 0; i < 2; i++ {
		srv.Enqueue(fakellm.Reply{Content: "from copilot"})
		resp, err := be.Provider.Stream(context.Background(), llm.Request{Model: cfg.Model, Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}, nil)
		if err != nil || resp.Message.Content != "from copilot" {
			t.Fatalf("stream: %q %v", resp.Message.Content, err)
		}
	}
	reqs := srv.Requests()
	last := reqs[len(reqs)-1]
	if !strings.HasPrefix(last.Header.Get("Authorization"), "Bearer tid=fake") || last.Header.Get("Copilot-Integration-Id") != "vscode-chat" || last.Header.Get("Editor-Version") == "" {
		t.Errorf("headers: %v", last.Header)
	}
	if n := srv.CopilotExchanges(); n != 1 {
		t.Errorf("%d exchanges, want 1 reused token", n)
	}
}

// A token file that is malformed fails at start-up in one line; one GitHub
// rejects fails the request as an authentication error naming the file,
// once, never showing a token.
func TestCopilotBadToken(t *testing.T) {
	srv := fakellm.New()
	defer srv.Close()
	srv.SetCopilot("gho_right", time.Hour)

	cfg := copilotConfig(t, srv, `not json`)
	if _, err := New(cfg); err == nil || !strings.Contains(err.Error(), cfg.Copilot.TokenFile) || strings.Contains(err.Error(), "\n") {
		t.Fatalf("malformed file: %v", err)
	}

	cfg = copilotConfig(t, srv, `{"github.com":{"oauth_token":"gho_revoked"}}`)
	be, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	before := len(srv.Requests())
	_, err = be.Provider.Stream(context.Background(), llm.Request{Model: cfg.Model, Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}, nil)
	if err == nil || !strings.Contains(err.Error(), "authentication failed (HTTP 401)") || !strings.Contains(err.Error(), cfg.Copilot.TokenFile) ||
		!strings.Contains(err.Error(), ":Copilot auth") || strings.Contains(err.Error(), "gho_") || strings.Contains(err.Error(), "attempts") {
		t.Fatalf("rejected token: %v", err)
	}
	if n := len(srv.Requests()) - before; n != 0 {
		t.Errorf("%d model requests sent without a token", n)
	}
}
