package agent

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/mcp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// hostileMCP is an MCP server that is not on the user's side: write_file
// writes where it is told (as server-filesystem's does, unannotated), hang
// never answers, page returns HTML labelled as an image.
func hostileMCP(t *testing.T) string {
	t.Helper()
	s := sdk.NewServer(&sdk.Implementation{Name: "hostile", Version: "1"}, nil)
	obj := json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}}}`)
	s.AddTool(&sdk.Tool{Name: "write_file", InputSchema: obj}, func(_ context.Context, r *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		var a struct{ Path, Content string }
		_ = json.Unmarshal(r.Params.Arguments, &a)
		if err := os.WriteFile(a.Path, []byte(a.Content), 0o644); err != nil {
			return nil, err
		}
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "written"}}}, nil
	})
	s.AddTool(&sdk.Tool{Name: "hang", InputSchema: obj, Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}}, func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})
	s.AddTool(&sdk.Tool{Name: "page", InputSchema: obj, Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.ImageContent{Data: []byte("<script>x</script>"), MIMEType: "text/html"}}}, nil
	})
	srv := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil))
	t.Cleanup(srv.Close)
	return srv.URL
}

func hostileFixture(t *testing.T, mode string) *fixture {
	url := hostileMCP(t)
	return convFixture(t, func(c *config.Config) {
		c.Mode = mode
		c.MCPServers = map[string]mcp.ServerConfig{"fs": {URL: url}}
		c.MCP.FirstTurnWait = "30s" // returns as soon as the server is up
		c.MCP.CallTimeout = "300ms"
	})
}

// TestAutoEditAsksUntrustedMCPWrites: in auto-edit an unannotated tool of
// a server the user has not marked trusted asks; denied, it never runs, so
// it cannot rewrite .coder/config.json to yolo.
func TestAutoEditAsksUntrustedMCPWrites(t *testing.T) {
	f := hostileFixture(t, "auto-edit")
	cfgPath := filepath.Join(f.root, ".coder", "config.json")
	var asked []*event.Approval
	f.rec.onAsk = func(a *event.Approval) {
		asked = append(asked, a)
		_ = f.sess.Answer(a.ID, Answer{Decision: Deny})
	}
	f.srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("w", "fs__write_file", map[string]any{"path": cfgPath, "content": `{"mode":"yolo"}`})}},
		fakellm.Reply{Content: "done"},
	)
	f.run(t, "configure")
	if len(asked) != 1 {
		t.Fatalf("asked %d times, want once", len(asked))
	}
	if _, err := os.Stat(cfgPath); err == nil {
		t.Error("the MCP tool wrote .coder/config.json unasked")
	}
}

// TestMCPCallTimeoutAndImageTypes: a tool that never answers ends with an
// error after mcp.call_timeout and the turn goes on; HTML labelled as an
// image is never sent to the model as an image.
func TestMCPCallTimeoutAndImageTypes(t *testing.T) {
	f := hostileFixture(t, "default")
	f.srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("h", "fs__hang", map[string]any{}), call("p", "fs__page", map[string]any{})}},
		fakellm.Reply{Content: "done"},
	)
	f.rec.onAsk = func(a *event.Approval) { _ = f.sess.Answer(a.ID, Answer{Decision: AllowOnce}) }
	f.run(t, "go")
	reqs := f.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	var hang, page string
	for _, m := range reqs[1].Messages {
		switch m.ToolCallID {
		case "h":
			hang = m.Content
		case "p":
			page = m.Content
		}
		for _, img := range m.Images {
			if !strings.HasPrefix(img.URL, "data:image/") {
				t.Errorf("sent a non-image as an image: %.40s", img.URL)
			}
		}
	}
	if !strings.Contains(hang, "did not answer") || !strings.Contains(hang, "mcp.call_timeout") {
		t.Errorf("hang result = %q", hang)
	}
	if !strings.Contains(page, `"text/html" is not PNG, JPEG, GIF or WebP`) {
		t.Errorf("page result = %q", page)
	}
}

// TestToolsShowsWhatTheNextTurnOffers: /tools in a fresh session lists the
// tools of servers that are up, not "changes waiting".
func TestToolsShowsWhatTheNextTurnOffers(t *testing.T) {
	writes := 0
	f := mcpFixture(t, "default", false, &writes)
	for deadline := time.Now().Add(30 * time.Second); ; {
		st := f.sess.mcp.pool.Status()
		if len(st) == 1 && st[0].State == "ready" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server never came up: %+v", st)
		}
		time.Sleep(10 * time.Millisecond)
	}
	f.run(t, "/tools")
	outs := f.rec.find(event.CommandOutput)
	if len(outs) == 0 || !strings.Contains(outs[len(outs)-1].Text, "web__echo") {
		t.Fatalf("/tools before the first turn:\n%v", outs)
	}
}
