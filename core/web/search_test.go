package web

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/config"
)

// TestSearchBackends: each backend's request carries the query (and its
// key only to it), and its answer becomes titles, URLs and snippets.
func TestSearchBackends(t *testing.T) {
	for _, c := range []struct {
		backend, key, answer string
		check                func(r *http.Request) string
	}{
		{"searxng", "", `{"results":[{"title":"Go 1.26","url":"https://go.dev/doc/go1.26","content":"Release notes"}]}`,
			func(r *http.Request) string {
				return r.URL.Path + "?" + r.URL.Query().Get("q") + "&" + r.URL.Query().Get("format")
			}},
		{"brave", "bk", `{"web":{"results":[{"title":"Go 1.26","url":"https://go.dev/doc/go1.26","description":"Release notes"}]}}`,
			func(r *http.Request) string {
				return r.Header.Get("X-Subscription-Token") + "?" + r.URL.Query().Get("q")
			}},
		{"tavily", "tk", `{"results":[{"title":"Go 1.26","url":"https://go.dev/doc/go1.26","content":"Release notes"}]}`,
			func(r *http.Request) string {
				var body struct {
					Query string `json:"query"`
				}
				json.NewDecoder(r.Body).Decode(&body)
				return r.Header.Get("Authorization") + "?" + body.Query
			}},
	} {
		t.Run(c.backend, func(t *testing.T) {
			var got string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				got = c.check(r)
				w.Write([]byte(c.answer))
			}))
			defer srv.Close()
			s, err := NewSearcher(c.backend, srv.URL, c.key, "test")
			if err != nil {
				t.Fatal(err)
			}
			hits, err := s.Search(context.Background(), "go release")
			if err != nil {
				t.Fatal(err)
			}
			if len(hits) != 1 || hits[0].Title != "Go 1.26" || hits[0].Snippet != "Release notes" {
				t.Errorf("hits %+v", hits)
			}
			want := map[string]string{"searxng": "/search?go release&json", "brave": "bk?go release", "tavily": "Bearer tk?go release"}[c.backend]
			if got != want {
				t.Errorf("request %q, want %q", got, want)
			}
		})
	}
}

func TestNewSearcherErrors(t *testing.T) {
	if s, err := NewSearcher("", "", "", "t"); s != nil || err != nil {
		t.Errorf("no backend: %v %v", s, err)
	}
	for _, c := range []struct{ backend, url, key, want string }{
		{"searxng", "", "", "needs url"},
		{"brave", "", "", "needs its API key"},
		{"bing", "", "k", "unknown"},
	} {
		if _, err := NewSearcher(c.backend, c.url, c.key, "t"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.backend, err, c.want)
		}
	}
}

// TestSchemasBudget: both web tools' entries in a request cost at most
// 150 tokens (4 bytes a token, as the request budget tests count).
func TestSchemasBudget(t *testing.T) {
	s, err := NewSearcher("searxng", "http://127.0.0.1:1", "", "t")
	if err != nil {
		t.Fatal(err)
	}
	var specs []any
	for _, tool := range Tools(NewFetcher("t", false, nil), s) {
		specs = append(specs, tool.Spec())
	}
	data, err := json.Marshal(specs)
	if err != nil {
		t.Fatal(err)
	}
	if tokens := len(data) / 4; tokens > 150 {
		t.Errorf("web tool schemas ≈ %d tokens, budget 150", tokens)
	} else {
		t.Logf("web tool schemas ≈ %d tokens (%d bytes)", tokens, len(data))
	}
}

// TestForConfigHosted: the hosted backend is the provider's own search
// tool on the Responses wire, refused on the chat wire; either way
// web_fetch stays.
func TestForConfigHosted(t *testing.T) {
	cfg := config.Web{Search: config.WebSearch{Backend: "Hosted"}}
	got, err := ForConfig(cfg, config.WireResponses, "t", func(string) string { return "" }, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range got {
		spec := tool.Spec()
		names = append(names, spec.Type+":"+spec.Function.Name)
		if spec.Hosted() {
			if _, err := tool.Prepare(context.Background(), nil, json.RawMessage(`{"query":"x"}`)); err == nil {
				t.Error("the hosted tool was prepared as a function call")
			}
		}
	}
	if strings.Join(names, " ") != "function:web_fetch web_search:web_search" {
		t.Errorf("tools %v", names)
	}
	if _, err := ForConfig(cfg, config.WireChat, "t", func(string) string { return "" }, nil); err == nil || !strings.Contains(err.Error(), `"wire_api": "responses"`) {
		t.Errorf("hosted on the chat wire: %v", err)
	}
}
