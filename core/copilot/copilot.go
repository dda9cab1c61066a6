// Package copilot authenticates to the GitHub Copilot chat endpoint: it
// reads the GitHub OAuth token copilot.vim / copilot.lua stored, exchanges
// it for a short-lived API token, refreshes that before it expires, and
// sends it with the headers the endpoint requires. Neither token is ever
// written or put in a message.
package copilot

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strings"
	"sync"
	"time"
)

// ReadOAuthToken reads the GitHub OAuth token from a copilot.vim /
// copilot.lua file (apps.json or hosts.json): an object of entries keyed
// "github.com…", each with "oauth_token". Errors say what is wrong with
// the file, never the token.
func ReadOAuthToken(path string) (string, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("copilot: token file %s does not exist; sign in with copilot.vim or copilot.lua (:Copilot auth)", path)
	}
	if err != nil {
		return "", fmt.Errorf("copilot: read token file %s: %w", path, err)
	}
	var entries map[string]struct {
		OAuthToken string `json:"oauth_token"`
	}
	if err := json.Unmarshal(data, &entries); err != nil {
		return "", fmt.Errorf("copilot: token file %s is not the JSON object copilot.vim writes; sign in again with :Copilot auth", path)
	}
	keys := make([]string, 0, len(entries))
	for k := range entries {
		keys = append(keys, k)
	}
	// github.com entries first (a file may also hold GitHub Enterprise
	// hosts), then by name, so the choice is stable.
	sort.Slice(keys, func(i, j int) bool {
		gi, gj := strings.HasPrefix(keys[i], "github.com"), strings.HasPrefix(keys[j], "github.com")
		if gi != gj {
			return gi
		}
		return keys[i] < keys[j]
	})
	for _, k := range keys {
		if tok := strings.TrimSpace(entries[k].OAuthToken); tok != "" {
			return tok, nil
		}
	}
	return "", fmt.Errorf("copilot: token file %s holds no oauth_token; sign in again with :Copilot auth", path)
}

// Headers are the headers the Copilot chat endpoint requires besides the
// token.
func Headers() map[string]string {
	return map[string]string{
		"Copilot-Integration-Id": "vscode-chat",
		"Editor-Version":         "Neovim/0.10.0",
		"Editor-Plugin-Version":  "coder-nvim/1",
		"Openai-Intent":          "conversation-panel",
	}
}

// Source exchanges the OAuth token for API tokens and caches the current
// one. It is safe for concurrent use.
type Source struct {
	oauth    string
	file     string // where the OAuth token came from, for messages
	tokenURL string
	client   *http.Client
	now      func() time.Time

	mu        sync.Mutex
	token     string
	refreshAt time.Time
	api       string // the chat endpoint the exchange named, "" if none
}

// NewSource returns a source exchanging oauth (read from file) at
// tokenURL. client nil: http.DefaultClient; now nil: time.Now.
func NewSource(oauth, file, tokenURL string, client *http.Client, now func() time.Time) *Source {
	if client == nil {
		client = http.DefaultClient
	}
	if now == nil {
		now = time.Now
	}
	return &Source{oauth: oauth, file: file, tokenURL: tokenURL, client: client, now: now}
}

// refreshMargin is how long before its expiry a token is replaced.
const refreshMargin = 2 * time.Minute

// AuthError is an exchange the token endpoint refused: not worth a retry.
type AuthError struct {
	Status  int
	Message string
}

func (e *AuthError) Error() string { return e.Message }

// Token returns a valid API token, exchanging the OAuth token for a new
// one when there is none or the current one is about to expire.
func (s *Source) Token(ctx context.Context) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.token != "" && s.now().Before(s.refreshAt) {
		return s.token, nil
	}
	tok, refreshAt, api, err := s.exchange(ctx)
	if err != nil {
		return "", err
	}
	s.token, s.refreshAt, s.api = tok, refreshAt, api
	return tok, nil
}

// API is the chat endpoint the last exchange named ("" when none).
func (s *Source) API() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.api
}

func (s *Source) exchange(ctx context.Context) (string, time.Time, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.tokenURL, nil)
	if err != nil {
		return "", time.Time{}, "", fmt.Errorf("copilot: bad copilot.token_url %q: %v", s.tokenURL, err)
	}
	req.Header.Set("Authorization", "token "+s.oauth)
	req.Header.Set("Accept", "application/json")
	for k, v := range Headers() {
		req.Header.Set(k, v)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return "", time.Time{}, "", fmt.Errorf("copilot: token exchange at %s: %w", s.tokenURL, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	switch {
	case resp.StatusCode == http.StatusUnauthorized:
		return "", time.Time{}, "", &AuthError{Status: resp.StatusCode, Message: fmt.Sprintf("copilot: GitHub rejected the token in %s (expired or revoked); sign in again with :Copilot auth", s.file)}
	case resp.StatusCode == http.StatusForbidden || resp.StatusCode == http.StatusNotFound:
		return "", time.Time{}, "", &AuthError{Status: http.StatusForbidden, Message: fmt.Sprintf("copilot: the account of the token in %s has no Copilot access (HTTP %d)", s.file, resp.StatusCode)}
	case resp.StatusCode != http.StatusOK:
		return "", time.Time{}, "", fmt.Errorf("copilot: token exchange at %s: HTTP %d", s.tokenURL, resp.StatusCode)
	}
	var out struct {
		Token     string `json:"token"`
		ExpiresAt int64  `json:"expires_at"`
		RefreshIn int64  `json:"refresh_in"`
		Endpoints struct {
			API string `json:"api"`
		} `json:"endpoints"`
	}
	if err := json.Unmarshal(bytes.TrimSpace(body), &out); err != nil || out.Token == "" {
		return "", time.Time{}, "", fmt.Errorf("copilot: the token exchange at %s answered without a token", s.tokenURL)
	}
	api := s.acceptAPI(out.Endpoints.API)
	now := s.now()
	refreshAt := now.Add(25 * time.Minute)
	if out.ExpiresAt > 0 {
		refreshAt = time.Unix(out.ExpiresAt, 0).Add(-refreshMargin)
	}
	if out.RefreshIn > 0 {
		if r := now.Add(time.Duration(out.RefreshIn) * time.Second); r.Before(refreshAt) {
			refreshAt = r
		}
	}
	return out.Token, refreshAt, api, nil
}

// acceptAPI is the chat endpoint the exchange named, without a trailing
// slash, when it is an https URL (http only when the token URL itself is
// http: a local test server); "" otherwise.
func (s *Source) acceptAPI(api string) string {
	u, err := url.Parse(strings.TrimRight(strings.TrimSpace(api), "/"))
	if err != nil || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return ""
	}
	tu, _ := url.Parse(s.tokenURL)
	if u.Scheme != "https" && !(u.Scheme == "http" && tu != nil && tu.Scheme == "http") {
		return ""
	}
	return u.String()
}

// Transport sends requests with a current API token and the Copilot
// headers. A refused exchange becomes a 401 answer carrying the reason,
// so the caller reports it as an authentication failure (not retried).
type Transport struct {
	Source *Source
	Base   http.RoundTripper // nil: http.DefaultTransport
	// Route, when set, is the base URL requests are built for (the
	// default api.githubcopilot.com): requests under it go to the chat
	// endpoint the token exchange names instead (endpoints.api, e.g.
	// api.business.githubcopilot.com for Copilot Business).
	Route string
}

func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.Base
	if base == nil {
		base = http.DefaultTransport
	}
	tok, err := t.Source.Token(req.Context())
	if err != nil {
		var ae *AuthError
		if errors.As(err, &ae) {
			if req.Body != nil {
				req.Body.Close()
			}
			body, _ := json.Marshal(map[string]any{"error": map[string]any{"message": ae.Message, "type": "authentication_error"}})
			return &http.Response{StatusCode: ae.Status, Status: http.StatusText(ae.Status), Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
				Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(bytes.NewReader(body)), ContentLength: int64(len(body)), Request: req}, nil
		}
		return nil, err
	}
	req = req.Clone(req.Context())
	if t.Route != "" {
		if api := t.Source.API(); api != "" {
			route(req, strings.TrimRight(t.Route, "/"), api)
		}
	}
	req.Header.Set("Authorization", "Bearer "+tok)
	for k, v := range Headers() {
		req.Header.Set(k, v)
	}
	return base.RoundTrip(req)
}

// route moves a request under base to the same path under api.
func route(req *http.Request, base, api string) {
	b, err1 := url.Parse(base)
	a, err2 := url.Parse(api)
	if err1 != nil || err2 != nil || req.URL.Scheme != b.Scheme || req.URL.Host != b.Host {
		return
	}
	rest, ok := strings.CutPrefix(req.URL.Path, b.Path)
	if !ok || rest != "" && !strings.HasPrefix(rest, "/") {
		return
	}
	u := *req.URL
	u.Scheme, u.Host, u.Path, u.RawPath = a.Scheme, a.Host, a.Path+rest, ""
	req.URL, req.Host = &u, ""
}
