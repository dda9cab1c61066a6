package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
)

// runAt is run with the session's workspace at dir.
func (w *sandboxWorld) runAt(t *testing.T, dir, mode string, extraEnv []string, calls ...llm.ToolCall) (result, map[string]string) {
	t.Helper()
	w.srv.Reset()
	for _, c := range calls {
		w.srv.Enqueue(fakellm.Reply{ToolCalls: []llm.ToolCall{c}})
	}
	w.srv.Enqueue(fakellm.Reply{Content: "done"})
	r := execWithEnv(t, w.bin, dir, append(slices.Clone(w.env), extraEnv...), "--mode", mode, "go")
	return r, toolResults(w.srv)
}

// git runs the user's own git in dir, outside any sandbox, as the user
// would after the session.
func userGit(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = env
	out, _ := cmd.CombinedOutput()
	return string(out)
}

func mustGit(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t", "-c", "protocol.file.allow=always"}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// goEnv lets go test run confined without touching the user's caches.
var goEnv = []string{"GOTOOLCHAIN=local", "GOFLAGS=", "GOCACHE=", "XDG_CACHE_HOME="}

// TestExecSandboxWorktreeAndSubmodule: in a linked worktree (`git
// worktree add`) and in a submodule, where .git is a file naming a git
// directory elsewhere, ls, go test, git add and git commit run confined
// and unasked in auto-edit, and the commit lands; the .git file and the
// common directory's config stay read-only.
func TestExecSandboxWorktreeAndSubmodule(t *testing.T) {
	requireSandbox(t)
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go on PATH")
	}
	w := newSandboxWorld(t)
	writeFiles(t, w.ws, map[string]string{
		"go.mod":       "module calc\n\ngo 1.26\n",
		"calc.go":      "package calc\n\nfunc Add(a, b int) int { return a + b }\n",
		"calc_test.go": "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 3) != 5 {\n\t\tt.Fatal(Add(2, 3))\n\t}\n}\n",
	})
	mustGit(t, w.ws, "add", "-A")
	mustGit(t, w.ws, "commit", "-qm", "calc")
	wt := filepath.Join(t.TempDir(), "wt")
	mustGit(t, w.ws, "worktree", "add", "-q", "-b", "feature", wt)
	super := gitRepo(t)
	mustGit(t, super, "submodule", "add", "-q", w.ws, "sub")
	mustGit(t, super, "commit", "-qm", "sub")
	home := t.TempDir()
	for name, dir := range map[string]string{"worktree": wt, "submodule": filepath.Join(super, "sub")} {
		t.Run(name, func(t *testing.T) {
			dotGit := filepath.Join(dir, ".git")
			before, _ := os.ReadFile(dotGit)
			r, res := w.runAt(t, dir, "auto-edit", append([]string{"HOME=" + home}, goEnv...),
				bash("ls", "ls"),
				bash("test", "go test ./..."),
				bash("commit", "echo x > new.txt && git add new.txt && git commit -qm 'from the agent' && git log -1 --format=%s"),
				bash("dotgit", "echo 'gitdir: /tmp' > .git"),
				bash("cfg", "git config core.fsmonitor 'touch pwned'"),
			)
			if r.code != 0 {
				t.Fatalf("exec: exit %d\n%s", r.code, r.stderr)
			}
			for _, id := range []string{"ls", "test", "commit"} {
				if !strings.Contains(res[id], "exit code 0") {
					t.Errorf("%s in the %s: %q", id, name, res[id])
				}
			}
			if got := userGit(t, dir, w.env, "log", "-1", "--format=%s"); got != "from the agent\n" {
				t.Errorf("the commit did not land: %q", got)
			}
			if after, _ := os.ReadFile(dotGit); string(after) != string(before) {
				t.Errorf(".git was rewritten: %q", after)
			}
			if got := userGit(t, dir, w.env, "config", "core.fsmonitor"); got != "" {
				t.Errorf("the repository's config was written: %q", got)
			}
		})
	}
}
