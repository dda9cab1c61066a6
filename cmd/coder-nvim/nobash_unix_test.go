//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
)

// TestExecWithoutBash: with no bash on PATH (FreeBSD without the bash
// package; on Windows, no Git for Windows) the bash tool is not offered to
// the model, and exec says why, once, rather than each call failing.
func TestExecWithoutBash(t *testing.T) {
	bin := hostBinary(t)
	git, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	path := t.TempDir()
	if err := os.Symlink(git, filepath.Join(path, "git")); err != nil {
		t.Fatal(err)
	}
	srv := fakellm.New()
	defer srv.Close()
	srv.Enqueue(fakellm.Reply{Content: "nothing to run"})
	dir := gitRepo(t)
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "PATH=") })
	env = append(env, "PATH="+path, "OPENAI_BASE_URL="+srv.URL(), "OPENAI_API_KEY=test", "XDG_CONFIG_HOME="+t.TempDir())
	r := execWithEnv(t, bin, dir, env, "list files")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	const why = "the bash tool is not offered: no bash on PATH"
	if n := strings.Count(r.stderr, why); n != 1 {
		t.Errorf("stderr says %q %d times, want once:\n%s", why, n, r.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) == 0 {
		t.Fatal("no model request")
	}
	var names []string
	for _, tool := range reqs[0].Tools {
		names = append(names, tool.Function.Name)
	}
	if slices.Contains(names, "bash") || !slices.Contains(names, "read") {
		t.Errorf("tools offered: %v; want read and no bash", names)
	}
}
