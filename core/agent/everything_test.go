package agent

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/mcp"
)

// everythingVersion is the @modelcontextprotocol/server-everything the
// test installs (npm view … version, pinned).
const everythingVersion = "2026.8.31"

// everythingDir installs server-everything into a temporary directory
// ($CODER_MCP_EVERYTHING_DIR: one that holds it already); the test is
// skipped without node and npm, or when the install fails (offline).
func everythingDir(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("no node")
	}
	dir := os.Getenv("CODER_MCP_EVERYTHING_DIR")
	if dir == "" {
		if _, err := exec.LookPath("npm"); err != nil {
			t.Skip("no npm")
		}
		if testing.Short() {
			t.Skip("-short: no npm install")
		}
		dir = t.TempDir()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		out, err := exec.CommandContext(ctx, "npm", "install", "--prefix", dir, "--no-audit", "--no-fund", "@modelcontextprotocol/server-everything@"+everythingVersion).CombinedOutput()
		if err != nil {
			t.Skipf("npm install failed (offline?): %v\n%s", err, out)
		}
	}
	return dir
}

// With the reference server: its args-prompt as /everything:args-prompt
// reaches the model as the user's turn, and a static resource attaches
// its text.
func TestMCPServerEverything(t *testing.T) {
	dir := everythingDir(t)
	f := convFixture(t, func(c *config.Config) {
		c.Mode = "yolo"
		c.MCPServers = map[string]mcp.ServerConfig{"everything": {Command: "node", Args: []string{filepath.Join(dir, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js"), "stdio"}}}
		c.MCP.FirstTurnWait = "60s"
		c.MCP.StartTimeout = "60s"
	})
	f.srv.Enqueue(fakellm.Reply{Content: "sunny"}, fakellm.Reply{Content: "read"})
	f.run(t, "/everything:args-prompt city=Lisbon state=Lisboa")
	reqs := f.srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	if last := reqs[0].Messages[len(reqs[0].Messages)-1]; !strings.HasPrefix(last.Content, "What's weather in Lisbon, Lisboa?") {
		t.Errorf("the user's turn is %q", last.Content)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	items, err := f.sess.RunMentions(ctx, "explain @everything:demo://resource/static/document/architecture.md")
	if err != nil || len(items) != 1 || items[0].Err != "" || !strings.Contains(items[0].Text, "Architecture") {
		t.Fatalf("items %+v, %v", items, err)
	}
	if got := f.sess.MCPResources(""); len(got) == 0 || !strings.HasPrefix(got[0], "everything:") {
		t.Errorf("resources %v", got)
	}
}
