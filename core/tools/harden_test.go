package tools

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/shellcheck"
)

// TestReadOnlyEnvStopsRepositoryPrograms runs git the way a command
// allowed as read-only runs (RunShellEnv with shellcheck.ReadOnlyEnv) in
// repositories whose configuration names a program. The program only
// touches a marker in a temporary directory; each case first runs without
// the environment to show that the marker does appear then.
func TestReadOnlyEnvStopsRepositoryPrograms(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	write := func(t *testing.T, dir, p, content string) {
		t.Helper()
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git := func(t *testing.T, dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	// bare writes what the model can write with file tools: a bare
	// repository whose config runs marker on every index refresh.
	bare := func(t *testing.T, dir, sub, worktree, marker string) {
		write(t, dir, filepath.Join(sub, "HEAD"), "ref: refs/heads/main\n")
		write(t, dir, filepath.Join(sub, "config"), fmt.Sprintf("[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = %s\n\tfsmonitor = \"touch %s\"\n", worktree, marker))
		write(t, dir, filepath.Join(sub, "objects/x"), "x")
		write(t, dir, filepath.Join(sub, "refs/x"), "x")
	}
	tests := []struct {
		name    string
		setup   func(t *testing.T, dir, marker string)
		command string
	}{
		{"implicit bare repository at the root", func(t *testing.T, dir, marker string) {
			bare(t, dir, ".", ".", marker)
		}, "git status"},
		{"implicit bare repository in a subdirectory", func(t *testing.T, dir, marker string) {
			git(t, dir, "init", "-q")
			bare(t, dir, "sub", "..", marker)
		}, "cd sub && git status"},
		{"explicit --git-dir", func(t *testing.T, dir, marker string) {
			git(t, dir, "init", "-q")
			bare(t, dir, "sub", "..", marker)
		}, "git --git-dir=sub --work-tree=. status"},
		{"diff.external", func(t *testing.T, dir, marker string) {
			git(t, dir, "init", "-q")
			write(t, dir, "f", "a\n")
			git(t, dir, "add", "f")
			git(t, dir, "commit", "-qm", "init")
			write(t, dir, "f", "b\n")
			git(t, dir, "config", "diff.external", "touch "+marker)
		}, "git diff"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			marker := filepath.Join(t.TempDir(), "marker")
			tc.setup(t, dir, marker)
			ctx := context.Background()
			r := RunShell(ctx, dir, tc.command, 30*time.Second, DefaultOutputCap)
			if _, err := os.Stat(marker); err != nil {
				t.Fatalf("control: %q without the environment did not run the program (%v); output:\n%s", tc.command, err, r.Output())
			}
			os.Remove(marker)
			r = RunShellEnv(ctx, dir, tc.command, 30*time.Second, DefaultOutputCap, shellcheck.ReadOnlyEnv())
			if _, err := os.Stat(marker); err == nil {
				t.Fatalf("%q with ReadOnlyEnv ran the repository's program; output:\n%s", tc.command, r.Output())
			}
		})
	}
}

// The built-in grep and glob list files with git in the directory searched;
// a bare repository the model wrote there must not run its fsmonitor.
func TestSearchListingIgnoresModelRepository(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	ws := newWS(t, map[string]string{"sub/a.txt": "needle\n"})
	gitInit := exec.Command("git", "init", "-q")
	gitInit.Dir = ws.Root()
	if out, err := gitInit.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	marker := filepath.Join(t.TempDir(), "marker")
	for p, content := range map[string]string{
		"sub/HEAD":      "ref: refs/heads/main\n",
		"sub/config":    fmt.Sprintf("[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = .\n\tfsmonitor = \"touch %s\"\n", marker),
		"sub/objects/x": "x",
		"sub/refs/x":    "x",
	} {
		writeFile(t, filepath.Join(ws.Root(), p), content)
	}
	ws.noRipgrep = true
	for _, call := range []struct {
		tool string
		args m
	}{
		{"grep", m{"pattern": "needle", "path": "sub"}},
		{"glob", m{"pattern": "*.txt", "path": "sub"}},
	} {
		run(t, ws, call.tool, call.args)
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("%s ran the fsmonitor command of a repository the model wrote", call.tool)
		}
	}
}
