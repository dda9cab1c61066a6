package agent

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/mcp"
	"github.com/coder-nvim/coder-nvim/core/mcp/mcpauth/authtest"
)

// /mcp login signs in through the front end's opener (the event; the
// test's "browser" follows it), the tools then work, /mcp shows the
// state, and no token is in any session file nor the workspace.
func TestMCPLoginCommand(t *testing.T) {
	state := t.TempDir()
	as := authtest.NewAuthServer()
	t.Cleanup(as.Close)
	var seen sync.Map
	ps, url := authtest.Protected(as, &seen)
	t.Cleanup(ps.Close)
	f := newFixture(t, func(c *config.Config, o *Options) {
		c.Mode = "auto-edit"
		c.StateDir = filepath.Join(state, "coder-nvim")
		c.MCPServers = map[string]mcp.ServerConfig{"remote": {URL: url, Trusted: true}}
		c.MCP.FirstTurnWait = "30s"
		inner := o.OnEvent
		o.OnEvent = func(ev event.Event) {
			inner(ev)
			if ev.Kind == event.OpenURL {
				authtest.Browse(context.Background(), ev.Text)
			}
		}
	})
	waitMCP(t, f, func(st mcp.ServerStatus) bool { return st.State == mcp.StateNeedsLogin })
	f.run(t, "/mcp")
	out := f.rec.find(event.CommandOutput)
	if len(out) == 0 || !strings.Contains(out[len(out)-1].Text, "needs login") {
		t.Fatalf("/mcp before login: %+v", out)
	}
	f.run(t, "/mcp login remote")
	signedIn := func() bool {
		for _, n := range f.rec.find(event.Notice) {
			if strings.Contains(n.Text, "MCP server remote: signed in") {
				return true
			}
		}
		return false
	}
	for deadline := time.Now().Add(30 * time.Second); !signedIn(); time.Sleep(5 * time.Millisecond) { // polls
		if time.Now().After(deadline) {
			t.Fatalf("no sign-in notice; status %+v", f.sess.MCPStatus())
		}
	}
	if opened := f.rec.find(event.OpenURL); len(opened) != 1 || !strings.HasPrefix(opened[0].Text, as.URL+"/authorize?") {
		t.Fatalf("opened = %+v", opened)
	}
	f.srv.Enqueue(fakellm.Reply{ToolCalls: []llm.ToolCall{call("c1", "remote__echo", map[string]any{"text": "hi"})}}, fakellm.Reply{Content: "done"})
	f.run(t, "echo")
	if m := toolMsg(f.srv.Requests()[1].Messages, "c1"); m == nil || m.Content != "echo: hi" {
		t.Fatalf("echo = %+v", m)
	}
	f.run(t, "/mcp")
	out = f.rec.find(event.CommandOutput)
	if txt := out[len(out)-1].Text; !strings.Contains(txt, "logged in") || !strings.Contains(txt, "ready") {
		t.Errorf("/mcp after login:\n%s", txt)
	}
	f.sess.Close()
	var tokens []string
	seen.Range(func(k, _ any) bool {
		if tok := k.(string); tok != "" {
			tokens = append(tokens, tok)
		}
		return true
	})
	if len(tokens) == 0 {
		t.Fatal("no token was sent")
	}
	for _, root := range []string{state, f.root} {
		_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || strings.Contains(path, string(filepath.Separator)+"mcp-oauth"+string(filepath.Separator)) {
				return nil
			}
			data, _ := os.ReadFile(path)
			for _, tok := range tokens {
				if strings.Contains(string(data), tok) {
					t.Errorf("%s holds the token %s", path, tok)
				}
			}
			return nil
		})
	}
	files, _ := filepath.Glob(filepath.Join(state, "coder-nvim", "mcp-oauth", "remote-*.json"))
	if len(files) != 1 {
		t.Fatalf("token files = %v", files)
	}
	if fi, _ := os.Stat(files[0]); fi.Mode().Perm() != 0o600 {
		t.Errorf("token file mode %v", fi.Mode())
	}
}
