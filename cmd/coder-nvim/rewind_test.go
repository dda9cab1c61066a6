package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
)

// exec: three turns, each its own process, write three files; then
// `--resume ID /rewind 2` takes turns 2 and 3 back, and the next turn's
// request holds turn 1 only.
func TestExecRewind(t *testing.T) {
	bin := hostBinary(t)
	srv := fakellm.New()
	defer srv.Close()
	dir := gitRepo(t)
	if err := os.WriteFile(filepath.Join(dir, ".gitignore"), []byte(".coder\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv.SetScript(func(req fakellm.Request) fakellm.Reply {
		last := req.Messages[len(req.Messages)-1]
		if name, ok := strings.CutPrefix(last.Content, "write "); ok && last.Role == llm.RoleUser {
			return fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("w", "write", map[string]any{"path": name, "content": name + "\n"})}}
		}
		return fakellm.Reply{Content: "done"}
	})
	r := execHost(t, bin, dir, srv.URL(), "--yes", "write one.txt")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	id := sessionID(t, r.stderr)
	for _, in := range []string{"write two.txt", "write three.txt"} {
		if r = execHost(t, bin, dir, srv.URL(), "--yes", "--resume", id, in); r.code != 0 {
			t.Fatalf("%s: exit %d\n%s", in, r.code, r.stderr)
		}
	}
	r = execHost(t, bin, dir, srv.URL(), "--resume", id, "/rewind")
	if r.code != 0 || !strings.Contains(r.stdout, "  3  ") || !strings.Contains(r.stdout, "write three.txt") {
		t.Fatalf("/rewind: exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	r = execHost(t, bin, dir, srv.URL(), "--resume", id, "/rewind 2")
	if r.code != 0 || !strings.Contains(r.stdout, "removed  two.txt") {
		t.Fatalf("/rewind 2: exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	for name, want := range map[string]bool{"one.txt": true, "two.txt": false, "three.txt": false} {
		if _, err := os.Stat(filepath.Join(dir, name)); (err == nil) != want {
			t.Errorf("%s exists = %v after /rewind 2", name, err == nil)
		}
	}
	srv.ForgetRequests()
	if r = execHost(t, bin, dir, srv.URL(), "--resume", id, "and now?"); r.code != 0 {
		t.Fatalf("after the rewind: exit %d\n%s", r.code, r.stderr)
	}
	var sent []string
	for _, m := range srv.Requests()[0].Messages {
		if m.Role == llm.RoleUser {
			sent = append(sent, m.Content)
		}
	}
	if strings.Join(sent, "|") != "write one.txt|and now?" {
		t.Errorf("user messages sent after /rewind 2: %q", sent)
	}
}
