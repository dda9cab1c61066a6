package nvimhost

import (
	"strings"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/mcptest"
)

// An MCP server's prompts become /server:prompt commands once it is up
// (the plugin is sent the list again), one run with name=value arguments
// sends its messages as the user's turn; @server:uri completes and
// attaches the resource's text; :checkhealth counts prompts and
// resources.
func TestMCPPromptsAndResourcesInNeovim(t *testing.T) {
	url := mcptest.HTTP(t, mcptest.Server(mcptest.Options{Tools: 1, Prompts: true, Resources: true}))
	e := newEditor(t, editorOpts{setup: `{mcp_servers = {docs = {url = '` + url + `'}}}`})
	e.llm.Enqueue(fakellm.Reply{Content: "reviewed"}, fakellm.Reply{Content: "summarised"})
	e.start()
	e.waitFor("the prompts among the commands", 30*time.Second, func() bool {
		return e.boolLua(`return vim.tbl_contains(require('coder.host').state.commands or {}, 'docs:review')
			and (require('coder.host').state.command_help or {})['docs:review'] == 'review code in a language'`)
	})
	e.run(`Coder /docs:review lang=lua`)
	reqs := e.llm.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d model requests, want 1", len(reqs))
	}
	if last := reqs[0].Messages[len(reqs[0].Messages)-1]; last.Role != llm.RoleUser || !strings.HasPrefix(last.Content, "Review the lua code.") || !strings.Contains(last.Content, mcptest.ReadmeText) {
		t.Errorf("the user's turn is %q", last.Content)
	}
	if tr := e.transcript(); !strings.Contains(tr, "/docs:review lang=lua") {
		t.Errorf("the transcript does not show what was typed:\n%s", tr)
	}

	e.lua(`vim.g.coder_test_items = nil
		require('coder.complete').items('path', 'docs:', function(l) vim.g.coder_test_items = l end)
		return true`, nil)
	var items []string
	e.waitFor("the resources in @ completion", 10*time.Second, func() bool {
		return e.boolLua(`return #(vim.g.coder_test_items or {}) > 0`)
	})
	e.lua(`local out = {}
		for _, it in ipairs(vim.g.coder_test_items) do
			table.insert(out, type(it) == 'table' and (it.word .. ' ' .. (it.menu or '')) or it)
		end
		return out`, &items)
	if got := strings.Join(items, ","); !strings.Contains(got, "@docs:"+mcptest.ReadmeURI+" [mcp]") || !strings.Contains(got, "@docs:notes://{name} [mcp]") {
		t.Errorf("@docs: completes %v", items)
	}
	e.run(`Coder summarise @docs:` + mcptest.ReadmeURI)
	reqs = e.llm.Requests()
	if len(reqs) != 2 || !strings.Contains(reqs[1].Messages[len(reqs[1].Messages)-1].Content, "The answer is forty-two.") {
		t.Fatalf("the resource is not attached: %+v", reqs[len(reqs)-1].Messages)
	}
	var report string
	e.cmd("checkhealth coder")
	e.lua(`return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')`, &report)
	if !strings.Contains(report, "docs (http): ready, 1 tools, 2 prompts, 2 resources") {
		t.Errorf("health report:\n%s", report)
	}
}
