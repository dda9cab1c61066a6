package main

import (
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/mcp/elicitserver"
)

// exec has nobody to ask: an MCP server's question is declined, also
// under --yes (which allows calls, it answers no question), and what was
// asked is printed.
func TestExecDeclinesElicitation(t *testing.T) {
	site := elicitserver.New()
	t.Cleanup(site.Close)
	srv := fakellm.New()
	defer srv.Close()
	cfg := `{"mcpServers": {"ask": {"url": "` + site.URL + `", "trusted": true}}, "mcp": {"first_turn_wait": "30s"}}`
	for _, args := range [][]string{nil, {"--yes"}} {
		r := execWeb(t, srv, cfg, args, toolCall("e1", "ask__signup", map[string]any{}))
		if out := toolResults(srv)["e1"]; out != "action=decline content=null" {
			t.Fatalf("%v: exit %d, result %q\nstderr:\n%s", args, r.code, out, r.stderr)
		}
		for _, want := range []string{"MCP server ask asked: Who are you?", "Name (string, required)", "color (one of red, green, blue)", "declined: nobody can answer here"} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("%v: stderr lacks %q:\n%s", args, want, r.stderr)
			}
		}
	}
}
