//go:build unix

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
)

// execIn runs `exec --cwd dir args…` from dir itself (so that relative
// PATH entries name the workspace's directories) with env.
func execIn(t *testing.T, bin, dir string, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"exec", "--cwd", dir}, args...)...)
	cmd.Dir, cmd.Env = dir, env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{out.String(), errb.String(), code}
}

func writeExec(t *testing.T, path, body string) {
	t.Helper()
	writeTestFile(t, path, body)
	if err := os.Chmod(path, 0o755); err != nil {
		t.Fatal(err)
	}
}

func present(path string) bool { _, err := os.Stat(path); return err == nil }

// withPath is env with PATH replaced.
func withPath(env []string, path string) []string {
	out := []string{}
	for _, kv := range env {
		if !strings.HasPrefix(kv, "PATH=") {
			out = append(out, kv)
		}
	}
	return append(out, "PATH="+path)
}

// A workspace bin/ on PATH (and a relative node_modules/.bin): the host's
// snapshots run the real git, never the workspace's, and the user's hook
// `prettier` is the one outside the workspace.
func TestExecHostProgramsNotFromWorkspace(t *testing.T) {
	bin := hostBinary(t)
	realGit, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	srv := fakellm.New()
	defer srv.Close()
	dir := gitRepo(t)
	marks, outside := t.TempDir(), t.TempDir()
	writeExec(t, filepath.Join(dir, "bin", "git"), "#!/bin/sh\ntouch "+filepath.Join(marks, "workspace-git")+"\nexec "+realGit+" \"$@\"\n")
	writeExec(t, filepath.Join(dir, "node_modules", ".bin", "prettier"), "#!/bin/sh\ntouch "+filepath.Join(marks, "workspace-prettier")+"\n")
	writeExec(t, filepath.Join(outside, "prettier"), "#!/bin/sh\ntouch "+filepath.Join(marks, "real-prettier")+"\n")
	cfg := t.TempDir()
	writeTestFile(t, filepath.Join(cfg, "coder", "config.json"),
		`{"hooks": {"post_tool_use": [{"matcher": "write", "command": "prettier"}]}}`)
	sep := string(os.PathListSeparator)
	path := filepath.Join(dir, "bin") + sep + "node_modules/.bin" + sep + sep + outside + sep + os.Getenv("PATH")
	env := withPath(append(os.Environ(), "OPENAI_BASE_URL="+srv.URL(), "OPENAI_API_KEY=test", "XDG_CONFIG_HOME="+cfg), path)
	srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("w", "write", map[string]any{"path": "a.txt", "content": "hello\n"})}},
		fakellm.Reply{Content: "done"},
	)
	r := execIn(t, bin, dir, env, "--yes", "write a.txt")
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	if !present(filepath.Join(dir, "a.txt")) {
		t.Fatalf("a.txt was not written; stderr:\n%s", r.stderr)
	}
	if present(filepath.Join(marks, "workspace-git")) {
		t.Error("the host ran the workspace's bin/git")
	}
	if present(filepath.Join(marks, "workspace-prettier")) {
		t.Error("the user's hook ran the workspace's node_modules/.bin/prettier")
	}
	if !present(filepath.Join(marks, "real-prettier")) {
		t.Errorf("the user's hook did not run the prettier outside the workspace; stderr:\n%s", r.stderr)
	}
	// The turn's snapshot was taken, by the real git.
	refs, err := exec.Command(realGit, "-C", dir, "for-each-ref", "refs/coder-nvim/").Output()
	if err != nil || len(bytes.TrimSpace(refs)) == 0 {
		t.Errorf("no snapshot ref (%v): %q; stderr:\n%s", err, refs, r.stderr)
	}
}
