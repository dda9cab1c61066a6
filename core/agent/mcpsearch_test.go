package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/mcp"
	"github.com/coder-nvim/coder-nvim/core/mcptest"
)

// wireTools is a request's tools array as sent.
func wireTools(t *testing.T, r fakellm.Request) json.RawMessage {
	t.Helper()
	var body struct {
		Tools json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(r.Raw, &body); err != nil {
		t.Fatal(err)
	}
	return body.Tools
}

// 60 MCP tools are over mcp.tool_budget_tokens: the first request
// carries mcp_tool_search with the names, not 60 schemas; a found tool is
// appended and callable, and every request's messages and tools extend
// the previous request's byte for byte.
func TestMCPToolSearchKeepsRequestsLight(t *testing.T) {
	url := mcptest.HTTP(t, mcptest.Server(mcptest.Options{Tools: 60}))
	f := convFixture(t, func(c *config.Config) {
		c.Mode = "default"
		c.MCPServers = map[string]mcp.ServerConfig{"big": {URL: url}}
		c.MCP.FirstTurnWait = "30s"
	})
	f.srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("s1", "mcp_tool_search", map[string]any{"query": "big__tool_07"})}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("c1", "big__tool_07", map[string]any{"path": "a.go"})}},
		fakellm.Reply{Content: "done"},
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("s2", "mcp_tool_search", map[string]any{"query": "hash"})}},
		fakellm.Reply{Content: "found more"},
	)
	var asked []string
	f.rec.onAsk = func(a *event.Approval) {
		asked = append(asked, a.Tool)
		_ = f.sess.Answer(a.ID, Answer{Decision: AllowOnce})
	}
	f.run(t, "use tool 7")
	f.run(t, "find the hashing tools")
	reqs := f.srv.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d requests", len(reqs))
	}
	first := toolNames(reqs[0].Tools)
	var search *llm.Tool
	for i, tl := range reqs[0].Tools {
		if strings.HasPrefix(tl.Function.Name, "big__") {
			t.Fatalf("a schema of an MCP tool in the first request: %v", first)
		}
		if tl.Function.Name == mcp.ToolSearchTool {
			search = &reqs[0].Tools[i]
		}
	}
	if search == nil || strings.Count(search.Function.Description, "\nbig__tool_") != 60 {
		t.Fatalf("no mcp_tool_search naming the 60 tools in %v", first)
	}
	namesTokens := len(search.Function.Description) / 4
	total := len(reqs[0].Raw) / 4
	t.Logf("first request: %d tokens, of which the names list %d; 60 schemas would be %d", total, namesTokens, schemaTokensOf(t, url))
	if total > 2500+namesTokens {
		t.Errorf("first request %d tokens, want at most 2500 + %d (the names list)", total, namesTokens)
	}
	if got := toolNames(reqs[1].Tools); got[len(got)-1] != "big__tool_07" || len(got) != len(first)+1 {
		t.Errorf("after the search the tools are %v", got)
	}
	if m := toolMsg(reqs[2].Messages, "c1"); m == nil || !strings.Contains(m.Content, `tool_07 ran with {"path":"a.go"}`) {
		t.Errorf("the found tool's result = %+v", m)
	}
	if got := toolNames(reqs[4].Tools); len(got) != len(first)+6 || strings.Join(got[len(got)-5:], " ") != "big__tool_04 big__tool_10 big__tool_16 big__tool_22 big__tool_28" {
		t.Errorf("after the second search the tools are %v", got)
	}
	// Resumed, the conversation's searches are replayed: the same tools
	// in the same order, and its requests go on extending.
	f.sess.Close()
	again := mustResume(t, f.sess.opts, f.sess.ID())
	f.srv.Enqueue(fakellm.Reply{Content: "still here"})
	if err := again.Run(context.Background(), "and now?"); err != nil {
		t.Fatal(err)
	}
	reqs = f.srv.Requests()
	if got, want := toolNames(reqs[5].Tools), toolNames(reqs[4].Tools); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("after the resume the tools are %v, want %v", got, want)
	}
	if strings.Join(asked, " ") != "big__tool_07" {
		t.Errorf("asked for %v: the search is the host's own and never asked, the server's tool is", asked)
	}
	extendEachOther(t, reqs)
	for i := 1; i < len(reqs); i++ {
		prev, cur := wireTools(t, reqs[i-1]), wireTools(t, reqs[i])
		if !bytes.HasPrefix(cur, prev[:len(prev)-1]) {
			t.Errorf("request %d's tools do not extend request %d's:\nprev %s\ncur  %s", i, i-1, prev, cur)
		}
	}
}

// schemaTokensOf is what all 60 schemas would take.
func schemaTokensOf(t *testing.T, url string) int {
	p := mcp.New(mcp.Options{Servers: map[string]mcp.ServerConfig{"big": {URL: url}}, Root: t.TempDir()})
	defer func() { _ = p.Close() }()
	p.WaitStarted(t.Context(), 0)
	cat, _ := p.Advance()
	return mcp.SchemaTokens(cat.Tools)
}
