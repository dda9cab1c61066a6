package agent

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/config"
)

// The web tools, search included, fit the first request's budget.
func TestPromptBudgetWithWebSearch(t *testing.T) {
	f := newFixture(t, func(c *config.Config, _ *Options) {
		c.Web.Search = config.WebSearch{Backend: "searxng", URL: "http://127.0.0.1:1"}
	})
	req := f.sess.request(f.sess.turnContext(&task{s: f.sess, conv: f.sess.rootConv}))
	data, err := json.Marshal(req.Tools)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"web_search"`) || !strings.Contains(string(data), `"web_fetch"`) {
		t.Fatal("web tools not offered")
	}
	tokens := (len(req.Messages[0].Content) + len(data)) / 4
	t.Logf("first request with the web tools ≈ %d tokens", tokens)
	if tokens >= 2500 {
		t.Errorf("instructions + tool schemas with the web tools ≈ %d tokens, budget 2500", tokens)
	}
}
