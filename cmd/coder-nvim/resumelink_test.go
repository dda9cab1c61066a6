package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
)

// TestExecResumeRefusesLinkedDir: in a workspace whose .coder/sessions is
// a link to another workspace's sessions (as a repository can ship it),
// /resume lists nothing and says why, and --resume of a session there is
// refused; the other workspace resumes it.
func TestExecResumeRefusesLinkedDir(t *testing.T) {
	bin := hostBinary(t)
	srv := fakellm.New()
	defer srv.Close()
	srv.SetScript(func(fakellm.Request) fakellm.Reply { return fakellm.Reply{Content: "hello"} })
	other := gitRepo(t)
	r := execHost(t, bin, other, srv.URL(), "say hi")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	id := sessionID(t, r.stderr)
	dir := gitRepo(t)
	writeTestFile(t, filepath.Join(dir, ".coder", ".keep"), "")
	if err := os.Symlink(filepath.Join(other, ".coder", "sessions"), filepath.Join(dir, ".coder", "sessions")); err != nil {
		t.Skip("no symlinks here:", err)
	}
	r = execHost(t, bin, dir, srv.URL(), "/resume")
	if strings.Contains(r.stdout+r.stderr, id) || !strings.Contains(r.stdout+r.stderr, "leads out of the workspace") {
		t.Errorf("/resume through a linked sessions directory: exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	r = execHost(t, bin, dir, srv.URL(), "--resume", id, "again")
	if r.code == 0 || !strings.Contains(r.stderr, "leads out of the workspace") {
		t.Errorf("--resume through a linked sessions directory: exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	if r = execHost(t, bin, other, srv.URL(), "--resume", id, "again"); r.code != 0 {
		t.Errorf("--resume in its own workspace: exit %d\n%s", r.code, r.stderr)
	}
}
