package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/coder-nvim/coder-nvim/core/text"
)

// Result is one search hit.
type Result struct {
	Title, URL, Snippet string
}

// Search backends the user can configure (web.search.backend).
const (
	BackendSearXNG = "searxng"
	BackendBrave   = "brave"
	BackendTavily  = "tavily"
	// BackendHosted is the provider's own search, a tool of the
	// Responses API the provider runs (hostedTool).
	BackendHosted = "hosted"
)

// Backends lists them, for config validation.
var Backends = []string{BackendSearXNG, BackendBrave, BackendTavily, BackendHosted}

// defaultAPI is where Brave's and Tavily's APIs are; web.search.url
// overrides it (a proxy, a test server). SearXNG has none: the user names
// the instance.
var defaultAPI = map[string]string{
	BackendBrave:  "https://api.search.brave.com/res/v1/web/search",
	BackendTavily: "https://api.tavily.com/search",
}

// Searcher asks one backend. The backend is the user's own choice, so
// its address may be local (a SearXNG on this machine): no address rule
// applies to it, and its key goes only to it.
type Searcher struct {
	backend, endpoint, key, userAgent string
	client                            *http.Client
}

// NewSearcher is the backend the user configured, or nil with no
// backend (the tool is then not offered). An unknown backend, a SearXNG
// without its URL, or Brave and Tavily without a key are errors.
func NewSearcher(backend, endpoint, key, version string) (*Searcher, error) {
	backend = strings.ToLower(strings.TrimSpace(backend))
	if backend == "" {
		return nil, nil
	}
	if endpoint == "" {
		endpoint = defaultAPI[backend]
	}
	switch backend {
	case BackendSearXNG:
		if endpoint == "" {
			return nil, errors.New("web.search: the searxng backend needs url, the instance's address")
		}
		endpoint = strings.TrimSuffix(endpoint, "/") + "/search"
	case BackendHosted:
		return nil, errors.New("web.search: the hosted backend is the provider's own search, not a searcher of the host (ForConfig)")
	case BackendBrave, BackendTavily:
		if key == "" {
			return nil, fmt.Errorf("web.search: the %s backend needs its API key (web.search.key_env names the variable)", backend)
		}
	default:
		return nil, fmt.Errorf("web.search.backend: unknown %q (known: %s)", backend, strings.Join(Backends, ", "))
	}
	if _, err := url.Parse(endpoint); err != nil {
		return nil, fmt.Errorf("web.search.url: %w", err)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = nil
	return &Searcher{backend: backend, endpoint: endpoint, key: key, userAgent: "coder-nvim/" + version,
		client: &http.Client{Transport: tr, Timeout: Timeout}}, nil
}

// Host is the backend's host, which the user approves like a fetch's.
func (s *Searcher) Host() string {
	u, err := url.Parse(s.endpoint)
	if err != nil {
		return ""
	}
	return u.Host
}

// Backend is the backend's name.
func (s *Searcher) Backend() string { return s.backend }

// maxResults is how many hits a search returns.
const maxResults = 8

// Search asks the backend for query.
func (s *Searcher) Search(ctx context.Context, query string) ([]Result, error) {
	req, err := s.request(ctx, query)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", s.userAgent)
	req.Header.Set("Accept", "application/json")
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.backend, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 2<<20))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.backend, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s answered HTTP %s", s.backend, resp.Status)
	}
	out, err := s.decode(body)
	if err != nil {
		return nil, fmt.Errorf("%s: the answer is not what its API returns: %w", s.backend, err)
	}
	if len(out) > maxResults {
		out = out[:maxResults]
	}
	return out, nil
}

func (s *Searcher) request(ctx context.Context, query string) (*http.Request, error) {
	switch s.backend {
	case BackendTavily:
		body, _ := json.Marshal(map[string]any{"query": query, "max_results": maxResults})
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.endpoint, bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+s.key)
		return req, nil
	case BackendBrave:
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.endpoint+"?"+url.Values{"q": {query}, "count": {fmt.Sprint(maxResults)}}.Encode(), nil)
		if err != nil {
			return nil, err
		}
		req.Header.Set("X-Subscription-Token", s.key)
		return req, nil
	}
	return http.NewRequestWithContext(ctx, http.MethodGet, s.endpoint+"?"+url.Values{"q": {query}, "format": {"json"}}.Encode(), nil)
}

func (s *Searcher) decode(body []byte) ([]Result, error) {
	type hit struct {
		Title       string `json:"title"`
		URL         string `json:"url"`
		Content     string `json:"content"`
		Description string `json:"description"`
	}
	var hits []hit
	switch s.backend {
	case BackendBrave:
		var r struct {
			Web struct {
				Results []hit `json:"results"`
			} `json:"web"`
		}
		if err := json.Unmarshal(body, &r); err != nil {
			return nil, err
		}
		hits = r.Web.Results
	default: // SearXNG and Tavily both answer {"results": [...]}
		var r struct {
			Results []hit `json:"results"`
		}
		if err := json.Unmarshal(body, &r); err != nil {
			return nil, err
		}
		hits = r.Results
	}
	out := make([]Result, 0, len(hits))
	for _, h := range hits {
		snippet := h.Content
		if snippet == "" {
			snippet = h.Description
		}
		out = append(out, Result{Title: oneLine(h.Title, 200), URL: oneLine(h.URL, 500), Snippet: oneLine(snippet, 400)})
	}
	return out, nil
}

// oneLine is s on one line, cut to n bytes (on a character boundary).
func oneLine(s string, n int) string {
	return text.Truncate(strings.Join(strings.Fields(s), " "), n)
}
