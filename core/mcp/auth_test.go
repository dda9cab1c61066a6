package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// authServer is a loopback OAuth authorization server of the test's own:
// dynamic registration, the authorization endpoint (which redirects at
// once: the "browser" signs in by following it), and the token endpoint,
// which verifies PKCE and refreshes. Access tokens expire at once, so
// every use refreshes.
type authServer struct {
	*httptest.Server
	mu        sync.Mutex
	clients   map[string]string // client id → redirect URI
	codes     map[string]string // code → code challenge
	valid     map[string]bool   // access tokens issued
	refreshes int
	pkceFails int
	n         int
}

func newAuthServer(t *testing.T) *authServer {
	a := &authServer{clients: map[string]string{}, codes: map[string]string{}, valid: map[string]bool{}}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		jsonOut(w).Encode(map[string]any{
			"issuer": a.URL, "authorization_endpoint": a.URL + "/authorize", "token_endpoint": a.URL + "/token",
			"registration_endpoint": a.URL + "/register", "code_challenge_methods_supported": []string{"S256"},
			"response_types_supported": []string{"code"}, "scopes_supported": []string{"tools", "offline_access"},
			"token_endpoint_auth_methods_supported": []string{"none"},
		})
	})
	mux.HandleFunc("/register", func(w http.ResponseWriter, r *http.Request) {
		var m struct {
			RedirectURIs []string `json:"redirect_uris"`
		}
		_ = json.NewDecoder(r.Body).Decode(&m)
		a.mu.Lock()
		a.n++
		id := fmt.Sprintf("client-%d", a.n)
		a.clients[id] = m.RedirectURIs[0]
		a.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		jsonOut(w).Encode(map[string]any{"client_id": id, "redirect_uris": m.RedirectURIs, "token_endpoint_auth_method": "none"})
	})
	mux.HandleFunc("/authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		a.mu.Lock()
		defer a.mu.Unlock()
		redirect, ok := a.clients[q.Get("client_id")]
		if !ok || redirect != q.Get("redirect_uri") || q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" {
			http.Error(w, "bad authorization request", http.StatusBadRequest)
			return
		}
		a.n++
		code := fmt.Sprintf("code-%d", a.n)
		a.codes[code] = q.Get("code_challenge")
		http.Redirect(w, r, redirect+"?code="+code+"&state="+url.QueryEscape(q.Get("state")), http.StatusFound)
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		a.mu.Lock()
		defer a.mu.Unlock()
		switch r.Form.Get("grant_type") {
		case "authorization_code":
			challenge, ok := a.codes[r.Form.Get("code")]
			delete(a.codes, r.Form.Get("code"))
			sum := sha256.Sum256([]byte(r.Form.Get("code_verifier")))
			if !ok || base64.RawURLEncoding.EncodeToString(sum[:]) != challenge {
				a.pkceFails++
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				jsonOut(w).Encode(map[string]string{"error": "invalid_grant"})
				return
			}
		case "refresh_token":
			if !strings.HasPrefix(r.Form.Get("refresh_token"), "refresh-") {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				jsonOut(w).Encode(map[string]string{"error": "invalid_grant"})
				return
			}
			a.refreshes++
		default:
			http.Error(w, "grant", http.StatusBadRequest)
			return
		}
		a.n++
		tok := fmt.Sprintf("access-%d", a.n)
		a.valid[tok] = true
		jsonOut(w).Encode(map[string]any{"access_token": tok, "token_type": "Bearer", "expires_in": 1, "refresh_token": fmt.Sprintf("refresh-%d", a.n)})
	})
	a.Server = httptest.NewServer(mux)
	t.Cleanup(a.Close)
	return a
}

func (a *authServer) ok(tok string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.valid[tok]
}

// protectedServer is an MCP server that takes only tokens of as.
func protectedServer(t *testing.T, as *authServer, seen *sync.Map) string {
	s := sdk.NewServer(&sdk.Implementation{Name: "protected", Version: "1"}, nil)
	addTestTools(s)
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil)
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/.well-known/oauth-protected-resource" || r.URL.Path == "/.well-known/oauth-protected-resource/mcp" {
			jsonOut(w).Encode(map[string]any{"resource": srv.URL + "/mcp", "authorization_servers": []string{as.URL}, "scopes_supported": []string{"tools"}})
			return
		}
		tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		seen.Store(tok, true)
		if !as.ok(tok) {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+srv.URL+`/.well-known/oauth-protected-resource/mcp"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

// browser follows the authorization address and its redirect, as the
// user's browser would once they signed in.
func browser(opened *[]string, mu *sync.Mutex) func(context.Context, string, string) error {
	return func(ctx context.Context, _, u string) error {
		mu.Lock()
		*opened = append(*opened, u)
		mu.Unlock()
		go func() {
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
			if resp, err := http.DefaultClient.Do(req); err == nil {
				resp.Body.Close()
			}
		}()
		return nil
	}
}

func TestOAuthLoginRefreshAndLogout(t *testing.T) {
	as := newAuthServer(t)
	var seen sync.Map
	url := protectedServer(t, as, &seen)
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
	as.mu.Lock()
	refreshes, fails := as.refreshes, as.pkceFails
	as.mu.Unlock()
	if refreshes == 0 || fails != 0 {
		t.Errorf("refreshes %d, PKCE failures %d", refreshes, fails)
	}
	data, _ := os.ReadFile(files[0])
	var rec struct {
		AccessToken string `json:"access_token"`
		URL         string `json:"url"`
	}
	_ = json.Unmarshal(data, &rec)
	if !as.ok(rec.AccessToken) || rec.URL != url {
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

func jsonOut(w http.ResponseWriter) *json.Encoder {
	w.Header().Set("Content-Type", "application/json")
	return json.NewEncoder(w)
}
