package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
)

// TestTaskConfinedCommandCannotWriteMainTree: a task's commands run with
// its worktree as the writable root. Writing the user's working tree (or
// its hooks) fails, while writing and committing in the worktree works;
// before linked worktrees were supported by the sandbox every confined
// call there failed (exit 125), so the in-worktree half fails without it.
func TestTaskConfinedCommandCannotWriteMainTree(t *testing.T) {
	requireSandbox(t)
	bin := hostBinary(t)
	srv := fakellm.New()
	defer srv.Close()
	dir := committedRepo(t)
	escape := filepath.Join(dir, "escape.txt")
	hook := filepath.Join(dir, ".git", "hooks", "post-checkout")
	srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("b1", "bash", map[string]any{"command": "echo x > " + escape})}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("b2", "bash", map[string]any{"command": "echo x > " + hook})}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("b3", "bash", map[string]any{"command": "echo inside > inside.txt && git add inside.txt && git -c user.name=t -c user.email=t@t commit -qm inside && echo committed"})}},
		fakellm.Reply{Content: "done"},
	)
	// The temp dir is writable to every confined command: not the one
	// that holds the repository.
	tmp := filepath.Join(t.TempDir(), "tmp")
	if err := os.Mkdir(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	env := append(slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "TMPDIR=") }),
		"TMPDIR="+tmp, "OPENAI_BASE_URL="+srv.URL(), "OPENAI_API_KEY=test", "XDG_CONFIG_HOME="+t.TempDir())
	r := execWithEnv(t, bin, dir, env, "--worktree", "--mode", "auto-edit", "--yes", "try to escape")
	_, branch := worktreeOf(t, r.stdout)
	res := toolResults(srv)
	for _, p := range []string{escape, hook} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("the task wrote %s: %v", p, err)
		}
	}
	if !strings.Contains(res["b3"], "committed") {
		t.Errorf("a command in the worktree failed: %s\nstderr:\n%s", res["b3"], r.stderr)
	}
	if got := gitOut(t, dir, "show", branch+":inside.txt"); got != "inside\n" {
		t.Errorf("inside.txt on %s = %q", branch, got)
	}
	if st := gitOut(t, dir, "status", "--porcelain"); strings.TrimSpace(st) != "" {
		t.Errorf("main tree not clean:\n%s", st)
	}
}
