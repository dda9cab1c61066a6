// Package authtest is test support: a loopback OAuth authorization
// server (dynamic registration, PKCE verified, refresh; access tokens
// that expire at once), an MCP server on the go-sdk that takes only its
// tokens, and a "browser" that follows the sign-in address and its
// redirect.
package authtest

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// authServer is a loopback OAuth authorization server of the test's own:
// dynamic registration, the authorization endpoint (which redirects at
// once: the "browser" signs in by following it), and the token endpoint,
// which verifies PKCE and refreshes. Access tokens expire at once, so
// every use refreshes.
type AuthServer struct {
	*httptest.Server
	mu        sync.Mutex
	clients   map[string]string // client id → redirect URI
	codes     map[string]string // code → code challenge
	valid     map[string]bool   // access tokens issued
	refreshes int
	pkceFails int
	n         int
}

// NewAuthServer starts the authorization server; Close it when done.
func NewAuthServer() *AuthServer {
	a := &AuthServer{clients: map[string]string{}, codes: map[string]string{}, valid: map[string]bool{}}
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
	return a
}

// Counts are the refresh grants served and the code exchanges whose
// PKCE verifier did not match.
func (a *AuthServer) Counts() (refreshes, pkceFails int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.refreshes, a.pkceFails
}

// Valid reports whether tok is an access token a issued.
func (a *AuthServer) Valid(tok string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.valid[tok]
}

// Protected starts an MCP server (tool "echo") that takes only tokens of
// as; seen records every token sent to it. It returns the server (Close
// it) and its MCP address.
func Protected(as *AuthServer, seen *sync.Map) (*httptest.Server, string) {
	s := sdk.NewServer(&sdk.Implementation{Name: "protected", Version: "1"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "echo", Description: "echo text", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *sdk.CallToolRequest, a struct {
			Text string `json:"text"`
		}) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "echo: " + a.Text}}}, nil, nil
		})
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil)
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/.well-known/oauth-protected-resource" || r.URL.Path == "/.well-known/oauth-protected-resource/mcp" {
			jsonOut(w).Encode(map[string]any{"resource": srv.URL + "/mcp", "authorization_servers": []string{as.URL}, "scopes_supported": []string{"tools"}})
			return
		}
		tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		seen.Store(tok, true)
		if !as.Valid(tok) {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+srv.URL+`/.well-known/oauth-protected-resource/mcp"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	return srv, srv.URL + "/mcp"
}

// Browse follows the sign-in address u and its redirect, in the
// background, as the user's browser would once they signed in.
func Browse(ctx context.Context, u string) {
	go func() {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			return
		}
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
}

func jsonOut(w http.ResponseWriter) *json.Encoder {
	w.Header().Set("Content-Type", "application/json")
	return json.NewEncoder(w)
}
