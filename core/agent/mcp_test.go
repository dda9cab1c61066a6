package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/agent/command"
	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/mcp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpServer is a real MCP server on loopback (streamable HTTP) with a
// read-only echo, a writing tool and a picture; writes counts write calls.
func mcpServer(t *testing.T, writes *int) string {
	t.Helper()
	s := sdk.NewServer(&sdk.Implementation{Name: "agent-test", Version: "1"}, nil)
	obj := json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}}}`)
	s.AddTool(&sdk.Tool{Name: "echo", InputSchema: obj, Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}}, func(_ context.Context, r *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "echo " + string(r.Params.Arguments)}}}, nil
	})
	s.AddTool(&sdk.Tool{Name: "write", InputSchema: obj}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		*writes++
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "written"}}}, nil
	})
	s.AddTool(&sdk.Tool{Name: "picture", InputSchema: obj, Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.ImageContent{Data: []byte("PNG"), MIMEType: "image/png"}}}, nil
	})
	srv := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil))
	t.Cleanup(srv.Close)
	return srv.URL
}

func mcpFixture(t *testing.T, mode string, trusted bool, writes *int) *fixture {
	url := mcpServer(t, writes)
	return convFixture(t, func(c *config.Config) {
		c.Mode = mode
		c.MCPServers = map[string]mcp.ServerConfig{"web": {URL: url, Trusted: trusted}}
		c.MCP.FirstTurnWait = "30s" // returns as soon as the server is up
	})
}

func toolNames(ts []llm.Tool) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Function.Name)
	}
	return out
}

func TestMCPToolsOfferedAskedAndCalled(t *testing.T) {
	writes := 0
	f := mcpFixture(t, "default", true, &writes)
	var asked []*event.Approval
	f.rec.onAsk = func(a *event.Approval) {
		asked = append(asked, a)
		_ = f.sess.Answer(a.ID, Answer{Decision: AllowOnce})
	}
	f.srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{
			call("c1", "web__echo", map[string]any{"text": "hi"}),
			call("c2", "web__write", map[string]any{"text": "data"}),
			call("c3", "web__picture", map[string]any{}),
		}},
		fakellm.Reply{Content: "done"},
	)
	f.run(t, "use the server")
	reqs := f.srv.Requests()
	names := toolNames(reqs[0].Tools)
	if n := len(names); n != 18 || strings.Join(names[15:], " ") != "web__echo web__picture web__write" || names[14] != "conv_destroy" {
		t.Fatalf("offered %v, want the built-ins, the conversation tools, then web__* in order", names)
	}
	if got := toolNames(reqs[1].Tools); strings.Join(got, " ") != strings.Join(names, " ") {
		t.Errorf("tool list changed within the turn: %v", got)
	}
	msgs := reqs[1].Messages
	checkPairs(t, msgs)
	if m := toolMsg(msgs, "c1"); m == nil || m.Content != `echo {"text":"hi"}` {
		t.Errorf("echo result = %+v", m)
	}
	if m := toolMsg(msgs, "c2"); m == nil || m.Content != "written" || writes != 1 {
		t.Errorf("write result = %+v (writes %d)", m, writes)
	}
	last := msgs[len(msgs)-1]
	if last.Role != llm.RoleUser || len(last.Images) != 1 || !strings.HasPrefix(last.Images[0].URL, "data:image/png;base64,") {
		t.Errorf("image message = %+v", last)
	}
	// The conversation's metrics count the three MCP calls and their
	// latency (the longest is at most the sum).
	if st, _ := f.sess.ConversationStats(""); st.MCPCalls != 3 || st.ToolCalls["web__echo"] != 1 || st.ToolCalls["web__write"] != 1 || st.MCPMaxMS > st.MCPLatencyMS || !strings.Contains(strings.Join(st.Lines(), "\n"), "MCP calls: 3, mean latency") {
		t.Errorf("MCP stats = %+v", st)
	}
	// Only the write was asked: echo and picture are read-only tools of a
	// trusted server.
	if len(asked) != 1 || asked[0].Tool != "web__write" || asked[0].Kind != "mcp" || !strings.Contains(asked[0].Title, "web: write") || asked[0].Command != `{"text":"data"}` {
		t.Fatalf("approvals = %+v", asked)
	}
	for _, e := range f.rec.find(event.ToolCallEnd) {
		if e.Tool.Server != "web" || e.Tool.Kind != "mcp" || e.Tool.Status != event.ToolCompleted {
			t.Errorf("tool end = %+v", e.Tool)
		}
	}
	if st := f.sess.MCPStatus(); len(st) != 1 || st[0].State != mcp.StateReady || st[0].Tools != 3 {
		t.Errorf("status = %+v", st)
	}
}

func TestMCPPlanModeOffersReadOnlyOnly(t *testing.T) {
	writes := 0
	f := mcpFixture(t, "plan", false, &writes)
	f.srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("c1", "web__write", map[string]any{"text": "x"})}},
		fakellm.Reply{Content: "ok"},
	)
	f.run(t, "plan")
	reqs := f.srv.Requests()
	names := strings.Join(toolNames(reqs[0].Tools), " ")
	if !strings.Contains(names, "web__echo") || strings.Contains(names, "web__write") {
		t.Errorf("plan mode offers %s", names)
	}
	if m := toolMsg(reqs[1].Messages, "c1"); m == nil || !strings.Contains(m.Content, "unknown tool") || writes != 0 {
		t.Errorf("write in plan mode = %+v, writes %d", m, writes)
	}
}

func TestMCPAllowlistViews(t *testing.T) {
	writes := 0
	f := mcpFixture(t, "yolo", false, &writes)
	f.srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("c1", "conv_create", map[string]any{"user_instruction": "echo something", "mcp_allowlist": []string{"web/echo"}})}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("s1", "web__write", map[string]any{"text": "x"})}},
		fakellm.Reply{Content: "sub done"},
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("c2", "conv_create", map[string]any{"user_instruction": "x", "mcp_allowlist": []string{"web__nope", "web__echo"}})}},
		fakellm.Reply{Content: "finished"},
	)
	f.run(t, "delegate")
	reqs := f.srv.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d requests", len(reqs))
	}
	root, sub := strings.Join(toolNames(reqs[0].Tools), " "), strings.Join(toolNames(reqs[1].Tools), " ")
	if !strings.Contains(root, "web__write") || !strings.Contains(sub, "web__echo") || strings.Contains(sub, "web__write") || strings.Contains(sub, "web__picture") {
		t.Errorf("views: root %s; sub %s", root, sub)
	}
	if m := toolMsg(reqs[2].Messages, "s1"); m == nil || !strings.Contains(m.Content, "unknown tool") || writes != 0 {
		t.Errorf("call outside the view = %+v (writes %d)", m, writes)
	}
	if m := toolMsg(reqs[4].Messages, "c2"); m == nil || !strings.Contains(m.Content, "web__nope") || strings.Contains(m.Content, "web__echo,") {
		t.Errorf("unknown allowlist entry = %+v", m)
	}
	n := 0
	for _, e := range f.rec.find(event.Notice) {
		if strings.Contains(e.Text, "deprecated") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d deprecation notices, want 1", n)
	}
}

// TestMCPViewReleasedOnClose: a conversation holds one view of the pool
// (checking its allowlist takes none), and closing it gives the view back,
// so a server only it used can idle out.
func TestMCPViewReleasedOnClose(t *testing.T) {
	writes := 0
	f := mcpFixture(t, "yolo", false, &writes)
	f.srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("c1", "conv_create", map[string]any{"user_instruction": "echo something", "mcp_allowlist": []string{"web__echo"}})}},
		fakellm.Reply{Content: "sub done"},
		fakellm.Reply{Content: "finished"},
	)
	f.run(t, "delegate")
	views := func() int { return f.sess.MCPStatus()[0].Views }
	if n := views(); n != 2 {
		t.Fatalf("views of the server with the root and one sub-conversation = %d, want 2", n)
	}
	convs := f.sess.Conversations()
	if len(convs) != 2 {
		t.Fatalf("conversations = %+v", convs)
	}
	if err := f.sess.CloseConversation(convs[1].ID); err != nil {
		t.Fatal(err)
	}
	if n := views(); n != 1 {
		t.Errorf("views after closing the sub-conversation = %d, want 1 (the root's)", n)
	}
}

// TestMCPCloseFailureWarned (seed 004 §14): closing the session tells the
// user when an MCP server's session did not close cleanly (here the
// server drops the connection of the session's DELETE).
func TestMCPCloseFailureWarned(t *testing.T) {
	s := sdk.NewServer(&sdk.Implementation{Name: "drops-delete", Version: "1"}, nil)
	s.AddTool(&sdk.Tool{Name: "echo", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "echo"}}}, nil
	})
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodDelete {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	f := convFixture(t, func(c *config.Config) {
		c.MCPServers = map[string]mcp.ServerConfig{"web": {URL: srv.URL, Trusted: true}}
		c.MCP.FirstTurnWait = "30s"
	})
	f.srv.Enqueue(fakellm.Reply{Content: "hi"})
	f.run(t, "hello") // the first turn waits for the server
	f.sess.Close()
	var warned bool
	for _, e := range f.rec.find(event.Notice) {
		warned = warned || strings.Contains(e.Text, "MCP server web did not close cleanly")
	}
	if !warned {
		t.Errorf("no warning of the failed close among %+v", f.rec.find(event.Notice))
	}
}

// TestRefreshMCPWithServers (seed 002): a task's MCP tools are a snapshot
// taken at its first model call: a tool a server adds meanwhile is not
// offered in its later calls, unless the user asks for refresh_mcp, after
// which the next call offers the servers' tools as they are now.
func TestRefreshMCPWithServers(t *testing.T) {
	for _, refresh := range []bool{false, true} {
		t.Run(fmt.Sprint("refresh=", refresh), func(t *testing.T) {
			s := sdk.NewServer(&sdk.Implementation{Name: "grows", Version: "1"}, nil)
			obj := json.RawMessage(`{"type":"object"}`)
			s.AddTool(&sdk.Tool{Name: "grow", InputSchema: obj, Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				s.AddTool(&sdk.Tool{Name: "grown", InputSchema: obj, Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
					return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "new"}}}, nil
				})
				return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "added a tool"}}}, nil
			})
			srv := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil))
			t.Cleanup(srv.Close)
			f := convFixture(t, func(c *config.Config) {
				c.Mode = "yolo"
				c.MCPServers = map[string]mcp.ServerConfig{"web": {URL: srv.URL, Trusted: true}}
				c.MCP.FirstTurnWait = "30s"
			})
			var offered []string
			n := 0
			f.srv.SetScript(func(r fakellm.Request) fakellm.Reply {
				n++
				offered = append(offered, strings.Join(toolNames(r.Tools), " "))
				switch n {
				case 1:
					return fakellm.Reply{ToolCalls: []llm.ToolCall{call("g", "web__grow", map[string]any{})}}
				case 2:
					// The pool has the new tool; the user asks (or not)
					// for a fresh view while the task runs.
					waitMCP(t, f, func(st mcp.ServerStatus) bool { return st.Tools == 2 })
					if refresh {
						if _, _, err := f.sess.SetConversationContext(context.Background(), "", []command.Setting{{Key: "refresh_mcp"}}); err != nil {
							t.Error(err)
						}
					}
					return fakellm.Reply{ToolCalls: []llm.ToolCall{call("r", "read", map[string]any{"path": "README.md"})}}
				}
				return fakellm.Reply{Content: "done"}
			})
			f.run(t, "grow the server")
			if len(offered) != 3 {
				t.Fatalf("%d requests, want 3", len(offered))
			}
			if strings.Contains(offered[1], "web__grown") {
				t.Errorf("the tool added mid-task was offered before any refresh: %s", offered[1])
			}
			if got := strings.Contains(offered[2], "web__grown"); got != refresh {
				t.Errorf("after the step (refresh %v): web__grown offered %v: %s", refresh, got, offered[2])
			}
		})
	}
}

// waitMCP waits until the only MCP server's status satisfies cond.
func waitMCP(t *testing.T, f *fixture, cond func(mcp.ServerStatus) bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if st := f.sess.MCPStatus(); len(st) == 1 && cond(st[0]) {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("MCP status %+v", f.sess.MCPStatus())
			return
		}
		time.Sleep(5 * time.Millisecond) // polls
	}
}
