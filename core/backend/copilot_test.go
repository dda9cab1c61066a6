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

// The chat endpoint the token exchange names (endpoints.api: Copilot
// Business hosts) gets the chat and model requests, with the Copilot
// token; a configured base_url is kept.
func TestCopilotRoutesToExchangeEndpoint(t *testing.T) {
	github := fakellm.New() // the token endpoint
	defer github.Close()
	business := fakellm.New() // the account's chat endpoint
	defer business.Close()
	github.SetCopilot("gho_user", time.Hour)
	github.SetCopilotAPI(business.URL())
	business.SetModels([]string{"gpt-4o", "business-model"})

	file := filepath.Join(t.TempDir(), "apps.json")
	if err := os.WriteFile(file, []byte(`{"github.com":{"oauth_token":"gho_user"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := loadConfig(t, `{"provider":"copilot","copilot":{"token_url":"`+github.CopilotTokenURL()+`","token_file":"`+file+`"}}`, nil)
	be, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	business.Enqueue(fakellm.Reply{Content: "from business"})
	resp, err := be.Provider.Stream(context.Background(), llm.Request{Model: cfg.Model, Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}, nil)
	if err != nil || resp.Message.Content != "from business" {
		t.Fatalf("stream: %q %v", resp.Message.Content, err)
	}
	reqs := business.Requests()
	if len(reqs) != 1 || !strings.HasPrefix(reqs[0].Header.Get("Authorization"), "Bearer tid=fake") || reqs[0].Header.Get("Copilot-Integration-Id") == "" {
		t.Fatalf("business endpoint requests: %d %v", len(reqs), reqs)
	}
	models, err := be.Models(context.Background())
	if err != nil || strings.Join(provider.ModelIDs(models), ",") != "business-model,gpt-4o" {
		t.Errorf("models %v %v", models, err)
	}

	// base_url configured: it is kept.
	cfg = loadConfig(t, `{"provider":"copilot","base_url":"`+github.URL()+`","copilot":{"token_url":"`+github.CopilotTokenURL()+`","token_file":"`+file+`"}}`, nil)
	be2, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer be2.Close()
	github.Enqueue(fakellm.Reply{Content: "from base_url"})
	resp, err = be2.Provider.Stream(context.Background(), llm.Request{Model: cfg.Model, Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}, nil)
	if err != nil || resp.Message.Content != "from base_url" || len(business.Requests()) != 1 {
		t.Fatalf("configured base_url: %q %v, business got %d", resp.Message.Content, err, len(business.Requests()))
	}
}
