package agent

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/mcp"
	"github.com/coder-nvim/coder-nvim/core/mcptest"
)

func extrasFixture(t *testing.T) *fixture {
	docs := mcptest.HTTP(t, mcptest.Server(mcptest.Options{Tools: 1, Prompts: true, Resources: true}))
	plain := mcptest.HTTP(t, mcptest.Server(mcptest.Options{Tools: 1, Resources: true}))
	return convFixture(t, func(c *config.Config) {
		c.Mode = "yolo"
		c.MCPServers = map[string]mcp.ServerConfig{"docs": {URL: docs}, "plain": {URL: plain}}
		c.MCP.FirstTurnWait = "30s"
	})
}

// A server's prompt is a /server:prompt command: its arguments given as
// name=value, its messages (an embedded resource included) are the
// user's turn; it is listed with its argument hint, and a missing
// required argument is refused before anything is sent.
func TestMCPPromptAsCommand(t *testing.T) {
	f := extrasFixture(t)
	f.srv.Enqueue(fakellm.Reply{Content: "reviewed"})
	f.run(t, `/docs:review lang=go focus="error handling"`)
	reqs := f.srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	last := reqs[0].Messages[len(reqs[0].Messages)-1]
	if last.Role != llm.RoleUser || !strings.HasPrefix(last.Content, "Review the go code with a focus on error handling.") || !strings.Contains(last.Content, mcptest.ReadmeText) {
		t.Errorf("the user's turn is %q", last.Content)
	}
	var hint string
	for _, p := range f.sess.PromptCommands() {
		if p.Name == "docs:review" {
			hint = p.Arguments
		}
	}
	if hint != "lang=… [focus=…]" {
		t.Errorf("docs:review hint %q", hint)
	}
	f.run(t, "/docs:review focus=x")
	if len(f.srv.Requests()) != 1 {
		t.Error("a prompt without its required argument was sent")
	}
	var errs []string
	for _, e := range f.rec.find(event.Error) {
		errs = append(errs, e.Text)
	}
	if !strings.Contains(strings.Join(errs, "\n"), "needs lang") {
		t.Errorf("no refusal naming the argument: %q", errs)
	}
}

// `@server:uri` attaches the resource's text; a child conversation whose
// allowlist lacks the server can neither mention its resources nor read
// them with mcp_resource_read.
func TestMCPResourceMentionsAndViews(t *testing.T) {
	f := extrasFixture(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	f.srv.Enqueue(
		fakellm.Reply{Content: "hi"},
		fakellm.Reply{Content: "read it"},
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("c1", "conv_create", map[string]any{"user_instruction": "look", "mcp_allowlist": []string{"plain/tool_00"}})}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("r1", "mcp_resource_read", map[string]any{"server": "docs", "uri": mcptest.ReadmeURI})}},
		fakellm.Reply{Content: "child done"},
		fakellm.Reply{Content: "all done"},
	)
	f.run(t, "hello") // the servers are up after the first turn
	items, err := f.sess.RunMentions(ctx, "summarise @docs:"+mcptest.ReadmeURI)
	if err != nil || len(items) != 1 || items[0].Err != "" || items[0].Text != mcptest.ReadmeText {
		t.Fatalf("items %+v, %v", items, err)
	}
	reqs := f.srv.Requests()
	if last := reqs[1].Messages[len(reqs[1].Messages)-1]; !strings.Contains(last.Content, "The answer is forty-two.") || !strings.Contains(last.Content, "@docs:"+mcptest.ReadmeURI) {
		t.Errorf("the resource is not attached: %q", last.Content)
	}
	if !strings.Contains(strings.Join(toolNames(reqs[1].Tools), " "), "mcp_resource_read") {
		t.Error("mcp_resource_read is not offered at the root")
	}
	f.run(t, "delegate")
	reqs = f.srv.Requests()
	if len(reqs) != 6 {
		for _, r := range reqs {
			t.Logf("%+v", r.Messages[len(r.Messages)-1])
		}
		t.Fatalf("%d requests", len(reqs))
	}
	m := toolMsg(reqs[4].Messages, "r1")
	if m == nil || !strings.Contains(m.Content, "not in this conversation's view") || strings.Contains(m.Content, "forty-two") {
		t.Errorf("the child's read = %+v", m)
	}
	var child ConversationID
	for _, c := range f.sess.Conversations() {
		if c.ID != f.sess.rootConv.ID {
			child = c.ID
		}
	}
	if got := f.sess.MCPResources(child); len(got) != 2 || !strings.HasPrefix(got[0], "plain:") {
		t.Errorf("the child completes %v, want plain's only", got)
	}
	_, items, err = f.sess.SubmitMentions(ctx, child, "see @docs:"+mcptest.ReadmeURI, nil)
	if err != nil || len(items) != 1 || !strings.Contains(items[0].Err, "not in this conversation's view") || items[0].Text != "" {
		t.Errorf("the child's mention: %+v, %v", items, err)
	}
}
