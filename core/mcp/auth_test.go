package mcp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/mcp/mcpauth/authtest"
)

// browser records the sign-in addresses and follows them.
func browser(opened *[]string, mu *sync.Mutex) func(context.Context, string, string) error {
	return func(ctx context.Context, _, u string) error {
		mu.Lock()
		*opened = append(*opened, u)
		mu.Unlock()
		authtest.Browse(context.WithoutCancel(ctx), u)
		return nil
	}
}

func TestOAuthLoginRefreshAndLogout(t *testing.T) {
	as := authtest.NewAuthServer()
	t.Cleanup(as.Close)
	var seen sync.Map
	ps, url := authtest.Protected(as, &seen)
	t.Cleanup(ps.Close)
	dir := filepath.Join(t.TempDir(), "state", "mcp-oauth")
	var mu sync.Mutex
	var opened []string
	log := &syncBuf{}
	t.Cleanup(func() {
		if t.Failed() {
			t.Log(log.String())
		}
	})
	p := newPool(t, Options{Log: log,
		Servers: map[string]ServerConfig{"remote": {URL: url}},
		Auth:    &AuthOptions{Dir: dir, Open: browser(&opened, &mu)},
	})
	// No token: the server waits for the user's login; nothing is opened.
	waitFor(t, "needs login", func() bool { return state(p, "remote").State == StateNeedsLogin })
	if st := state(p, "remote"); st.Auth != AuthNeeded || !strings.Contains(st.LastError, "/mcp login remote") {
		t.Fatalf("status = %+v", st)
	}
	mu.Lock()
	if len(opened) != 0 {
		t.Fatalf("opened %v without a login", opened)
	}
	mu.Unlock()

	if err := p.Login("remote"); err != nil {
		t.Fatal(err)
	}
	cat := ready(t, p, "remote")
	if st := state(p, "remote"); st.Auth != AuthToken {
		t.Errorf("auth after login = %q", st.Auth)
	}
	mu.Lock()
	if len(opened) != 1 || !strings.HasPrefix(opened[0], as.URL+"/authorize?") || !strings.Contains(opened[0], "code_challenge_method=S256") {
		t.Fatalf("opened %v", opened)
	}
	mu.Unlock()
	files, _ := filepath.Glob(filepath.Join(dir, "remote-*.json"))
	if len(files) != 1 {
		t.Fatalf("token files = %v", files)
	}
	fi, err := os.Stat(files[0])
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file mode = %v, %v", fi.Mode(), err)
	}
	v, _ := p.View(nil)
	if res := v.Call(context.Background(), cat, "remote__echo", json.RawMessage(`{"text":"hi"}`), 0); res.Text != "echo: hi" {
		t.Fatalf("call = %+v", res)
	}
	// The token expires at once: the call refreshed it, and the new one
	// was saved.
	refreshes, fails := as.Counts()
	if refreshes == 0 || fails != 0 {
		t.Errorf("refreshes %d, PKCE failures %d", refreshes, fails)
	}
	data, _ := os.ReadFile(files[0])
	var rec struct {
		AccessToken string `json:"access_token"`
		URL         string `json:"url"`
	}
	_ = json.Unmarshal(data, &rec)
	if !as.Valid(rec.AccessToken) || rec.URL != url {
		t.Errorf("saved record = %s", data)
	}
	if _, ok := seen.Load(rec.AccessToken); !ok {
		t.Errorf("the refreshed token %s was not the one sent", rec.AccessToken)
	}

	// A new pool (a new session) uses the kept token without a login.
	p2 := newPool(t, Options{Servers: map[string]ServerConfig{"remote": {URL: url}}, Auth: &AuthOptions{Dir: dir, Open: browser(&opened, &mu)}})
	ready(t, p2, "remote")
	// Another address never gets it.
	other := newPool(t, Options{Servers: map[string]ServerConfig{"remote": {URL: url + "/other"}}, Auth: &AuthOptions{Dir: dir, Open: browser(&opened, &mu)}})
	waitFor(t, "the other address needs login", func() bool { return state(other, "remote").State == StateNeedsLogin })

	if err := p2.Logout("remote"); err != nil {
		t.Fatal(err)
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "remote-*.json")); len(files) != 0 {
		t.Errorf("token files after logout = %v", files)
	}
	waitFor(t, "needs login after logout", func() bool { return state(p2, "remote").State == StateNeedsLogin })
	if err := p2.Login("nope"); err == nil {
		t.Error("login to an unknown server")
	}
}
