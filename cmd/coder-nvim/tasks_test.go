package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
)

// committedRepo is a git repository with one commit.
func committedRepo(t *testing.T) string {
	t.Helper()
	dir := gitRepo(t)
	writeTestFile(t, filepath.Join(dir, "main.txt"), "hello\n")
	writeTestFile(t, filepath.Join(dir, ".gitignore"), ".coder/\n")
	for _, c := range [][]string{{"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, c...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", c, err, out)
		}
	}
	return dir
}

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v %s", args, err, out)
	}
	return string(out)
}

// worktreeOf parses exec --worktree's last stdout lines.
func worktreeOf(t *testing.T, stdout string) (path, branch string) {
	t.Helper()
	for _, line := range strings.Split(stdout, "\n") {
		if v, ok := strings.CutPrefix(line, "worktree: "); ok {
			path = v
		}
		if v, ok := strings.CutPrefix(line, "branch: "); ok {
			branch = v
		}
	}
	if path == "" || branch == "" {
		t.Fatalf("no worktree and branch printed:\n%s", stdout)
	}
	return path, branch
}

func TestExecWorktreeBranchHoldsTheChange(t *testing.T) {
	bin := hostBinary(t)
	srv := fakellm.New()
	defer srv.Close()
	dir := committedRepo(t)
	srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("w1", "write", map[string]any{"path": "feature.txt", "content": "new feature\n"})}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("b1", "bash", map[string]any{"command": "echo built > built.txt"})}},
		fakellm.Reply{Content: "Feature added."},
	)
	r := execHost(t, bin, dir, srv.URL(), "--worktree", "--mode", "auto-edit", "--yes", "add the feature")
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	path, branch := worktreeOf(t, r.stdout)
	if lines := strings.Split(strings.TrimSpace(r.stdout), "\n"); !strings.HasPrefix(lines[len(lines)-1], "branch: ") {
		t.Errorf("the branch is not the last line:\n%s", r.stdout)
	}
	if strings.HasPrefix(path, dir) {
		t.Errorf("worktree %s inside the workspace", path)
	}
	for file, want := range map[string]string{"feature.txt": "new feature\n", "built.txt": "built\n"} {
		if got := gitOut(t, dir, "show", branch+":"+file); got != want {
			t.Errorf("%s on %s = %q, want %q", file, branch, got, want)
		}
	}
	if st := gitOut(t, dir, "status", "--porcelain"); strings.TrimSpace(st) != "" {
		t.Errorf("main tree not clean:\n%s", st)
	}
	if _, err := os.Stat(filepath.Join(dir, "feature.txt")); !os.IsNotExist(err) {
		t.Errorf("the change reached the main tree: %v", err)
	}
	cmd := exec.Command(bin, "tasks", "--cwd", dir)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "done") || !strings.Contains(string(out), "add the feature") || !strings.Contains(string(out), "1 tasks") {
		t.Errorf("coder-nvim tasks: %v\n%s", err, out)
	}
}

func TestExecWorktreeOutsideGit(t *testing.T) {
	bin := hostBinary(t)
	srv := fakellm.New()
	defer srv.Close()
	r := execHost(t, bin, t.TempDir(), srv.URL(), "--worktree", "do it")
	if r.code == 0 || !strings.Contains(r.stderr, "tasks need a git repository") {
		t.Errorf("exit %d\n%s", r.code, r.stderr)
	}
}
