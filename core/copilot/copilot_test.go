package copilot

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
)

func TestReadOAuthToken(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, body string
		want, err  string
	}{
		{"apps.json", `{"github.com:Iv1.b507a08c87ecfe98":{"user":"u","oauth_token":"gho_apps","githubAppId":"Iv1"}}`, "gho_apps", ""},
		{"hosts.json", `{"ghe.example.com":{"oauth_token":"gho_ghe"},"github.com":{"user":"u","oauth_token":"gho_hosts"}}`, "gho_hosts", ""},
		{"malformed", `{"github.com": [`, "", "is not the JSON object"},
		{"no token", `{"github.com":{"user":"u"}}`, "", "holds no oauth_token"},
		{"missing", "", "", "does not exist"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, tt.name)
			if tt.name != "missing" {
				if err := os.WriteFile(path, []byte(tt.body), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			got, err := ReadOAuthToken(path)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || !strings.Contains(err.Error(), path) || strings.Contains(err.Error(), "gho_") {
					t.Fatalf("err = %v, want %q naming the file", err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %q %v, want %q", got, err, tt.want)
			}
		})
	}
}

// The fake server is both GitHub (token exchange) and the chat endpoint:
// a token is exchanged once, reused, and replaced before it expires.
func TestExchangeAndRefresh(t *testing.T) {
	srv := fakellm.New()
	defer srv.Close()
	srv.SetCopilot("gho_user", time.Hour)
	srv.SetModels([]string{"gpt-4o", "claude-sonnet-4"})
	var mu sync.Mutex
	now := time.Now()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	src := NewSource("gho_user", "apps.json", srv.CopilotTokenURL(), nil, clock)
	client := &http.Client{Transport: &Transport{Source: src}}

	get := func() (int, string) {
		t.Helper()
		resp, err := client.Get(srv.URL() + "/models")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for i := 0; i < 3; i++ {
		if code, body := get(); code != 200 || !strings.Contains(body, "claude-sonnet-4") {
			t.Fatalf("GET /models: %d %s", code, body)
		}
	}
	if n := srv.CopilotExchanges(); n != 1 {
		t.Fatalf("%d exchanges for 3 requests, want 1", n)
	}
	// Until 2 minutes before expiry (or refresh_in) the token is kept;
	// then, before it expires, it is replaced.
	mu.Lock()
	now = now.Add(57 * time.Minute)
	mu.Unlock()
	get()
	if n := srv.CopilotExchanges(); n != 1 {
		t.Fatalf("refreshed too early: %d exchanges", n)
	}
	mu.Lock()
	now = now.Add(2 * time.Minute)
	mu.Unlock()
	if code, _ := get(); code != 200 || srv.CopilotExchanges() != 2 {
		t.Fatalf("not refreshed before expiry: %d, %d exchanges", code, srv.CopilotExchanges())
	}
	if got := src.API(); got != srv.URL() {
		t.Errorf("endpoint from the exchange: %q", got)
	}
}

// A rejected OAuth token is a 401 naming the file, never a token, and not
// a connection error.
func TestRejectedToken(t *testing.T) {
	srv := fakellm.New()
	defer srv.Close()
	srv.SetCopilot("gho_right", time.Hour)
	src := NewSource("gho_wrong", "/x/apps.json", srv.CopilotTokenURL(), nil, nil)
	client := &http.Client{Transport: &Transport{Source: src}}
	resp, err := client.Get(srv.URL() + "/models")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 401 || !strings.Contains(string(b), "/x/apps.json") || !strings.Contains(string(b), ":Copilot auth") || strings.Contains(string(b), "gho_") {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	if _, err := src.Token(context.Background()); err == nil {
		t.Fatal("a rejected token gave an API token")
	}
}

// endpoints.api is taken only as an https URL (http only when the token
// URL is http, a local test server).
func TestAcceptAPI(t *testing.T) {
	for _, c := range []struct{ tokenURL, api, want string }{
		{"https://api.github.com/copilot_internal/v2/token", "https://api.business.githubcopilot.com/", "https://api.business.githubcopilot.com"},
		{"https://api.github.com/copilot_internal/v2/token", "http://api.business.githubcopilot.com", ""},
		{"https://api.github.com/copilot_internal/v2/token", "https://user:pw@example.com", ""},
		{"https://api.github.com/copilot_internal/v2/token", "not a url", ""},
		{"https://api.github.com/copilot_internal/v2/token", "", ""},
		{"http://127.0.0.1:1/copilot_internal/v2/token", "http://127.0.0.1:2/v1", "http://127.0.0.1:2/v1"},
	} {
		s := NewSource("gho", "f", c.tokenURL, nil, nil)
		if got := s.acceptAPI(c.api); got != c.want {
			t.Errorf("acceptAPI(%q) with token URL %s = %q, want %q", c.api, c.tokenURL, got, c.want)
		}
	}
}
