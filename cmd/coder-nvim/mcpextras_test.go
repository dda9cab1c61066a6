package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/mcptest"
)

// exec: `/server:prompt name=value` sends the MCP prompt's messages as
// the user's turn, and `@server:uri` attaches a resource's text.
func TestExecMCPPromptAndResource(t *testing.T) {
	bin := hostBinary(t)
	srv := fakellm.New()
	defer srv.Close()
	dir := gitRepo(t)
	url := mcptest.HTTP(t, mcptest.Server(mcptest.Options{Tools: 1, Prompts: true, Resources: true}))
	cfg := t.TempDir()
	writeTestFile(t, filepath.Join(cfg, "coder", "config.json"), `{"mcpServers": {"docs": {"url": "`+url+`"}}}`)
	env := append(os.Environ(), "OPENAI_BASE_URL="+srv.URL(), "OPENAI_API_KEY=test", "XDG_CONFIG_HOME="+cfg)
	srv.Enqueue(fakellm.Reply{Content: "reviewed"}, fakellm.Reply{Content: "read"})
	r := execWithEnv(t, bin, dir, env, `/docs:review lang=rust focus="unsafe blocks"`)
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	msgs := srv.Requests()[0].Messages
	if user := msgs[len(msgs)-1].Content; !strings.HasPrefix(user, "Review the rust code with a focus on unsafe blocks.") || !strings.Contains(user, mcptest.ReadmeText) {
		t.Errorf("the user's turn is %q", user)
	}
	r = execWithEnv(t, bin, dir, env, "what does @docs:"+mcptest.ReadmeURI+" say?")
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	msgs = srv.Requests()[1].Messages
	if user := msgs[len(msgs)-1].Content; !strings.Contains(user, "[context @docs:"+mcptest.ReadmeURI) || !strings.Contains(user, "The answer is forty-two.") {
		t.Errorf("the resource is not attached:\n%s", user)
	}
}
