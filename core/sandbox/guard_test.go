package sandbox

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// TestGuardWorkspace: in a linked worktree the common dir and the
// worktree's own directory become writable, the entries git reads
// configuration and programs from are protected (missing ones made, a
// commondir as "."), the worktree's own directory is reopened inside the
// read-only worktrees/, and the user's git still works with the
// placeholders; without a repository the root gets an empty .git.
func TestGuardWorkspace(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	base, _ := filepath.EvalSymlinks(t.TempDir())
	main := filepath.Join(base, "main")
	git(t, base, "init", "-q", "--template=", main)
	git(t, main, "commit", "-q", "--allow-empty", "-m", "init")
	wt := filepath.Join(base, "wt")
	git(t, main, "worktree", "add", "-q", "-b", "x", wt)
	tmp := filepath.Join(base, "tmp")
	g := GuardWorkspace(context.Background(), GuardSpec{Root: wt, Writable: []string{wt, tmp}, Home: filepath.Join(base, "home")})
	common := filepath.Join(main, ".git")
	own := filepath.Join(common, "worktrees", "wt")
	for _, p := range []string{filepath.Join(wt, ".git"), filepath.Join(common, "config"), filepath.Join(common, "hooks"),
		filepath.Join(common, "commondir"), filepath.Join(common, "worktrees"), filepath.Join(common, "objects", "info", "alternates"),
		filepath.Join(own, "commondir"), filepath.Join(own, "gitdir"), filepath.Join(own, "config.worktree")} {
		if !slices.Contains(g.Protected, p) {
			t.Errorf("%s is not protected: %q", p, g.Protected)
		}
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s was not made: %v", p, err)
		}
	}
	if !slices.Contains(g.Writable, common) || !slices.Contains(g.Reopened, own) {
		t.Errorf("writable %q, reopened %q", g.Writable, g.Reopened)
	}
	if !slices.Contains(g.Pinned, filepath.Join(common, "objects", "info")) {
		t.Errorf("objects/info is not pinned: %q", g.Pinned)
	}
	if slices.Contains(g.Protected, filepath.Join(common, "gitdir")) {
		t.Error("a gitdir was made in the main git directory")
	}
	if data, _ := os.ReadFile(filepath.Join(common, "commondir")); string(data) != ".\n" {
		t.Errorf("commondir placeholder = %q", data)
	}
	git(t, main, "status")
	git(t, wt, "commit", "-q", "--allow-empty", "-m", "still works")

	plain := filepath.Join(base, "plain")
	if err := os.Mkdir(plain, 0o755); err != nil {
		t.Fatal(err)
	}
	g = GuardWorkspace(context.Background(), GuardSpec{Root: plain, Writable: []string{plain}})
	if fi, err := os.Stat(filepath.Join(plain, ".git")); err != nil || !fi.IsDir() || !slices.Contains(g.Protected, filepath.Join(plain, ".git")) {
		t.Errorf("no read-only .git placeholder: %v %q", err, g.Protected)
	}
	if out, err := exec.Command("git", "-C", plain, "rev-parse", "--git-dir").CombinedOutput(); err == nil {
		t.Errorf("git takes the placeholder for a repository: %s", out)
	}
}

// BenchmarkGuardWorkspace is the host's cost of the guard, once per
// session before its first command: a git repository as git init makes
// it; the gitlink watch's first look at the index (a git process) goes
// on in the background, beside the launcher's start.
func BenchmarkGuardWorkspace(b *testing.B) {
	ws := b.TempDir()
	if err := exec.Command("git", "init", "-q", ws).Run(); err != nil {
		b.Skip("no git")
	}
	var g *Guard
	for b.Loop() {
		// What a session pays: what runs later found (a git config), then
		// the guard.
		later := WorkspaceRunsLater(context.Background(), ws, "")
		g = GuardWorkspace(context.Background(), GuardSpec{Root: ws, Writable: []string{ws, os.TempDir()}, RunsLater: later})
	}
	g.Ready()
	b.ReportMetric(float64(len(g.Protected)+len(g.Pinned)+len(g.Reopened)), "mounts")
}

// BenchmarkGuardPerCall is the host's cost per confined call: the
// policy's epoch (a stat of each guarded path) and the gitlink check
// when the index did not change.
func BenchmarkGuardPerCall(b *testing.B) {
	ws := b.TempDir()
	if err := exec.Command("git", "init", "-q", ws).Run(); err != nil {
		b.Skip("no git")
	}
	g := GuardWorkspace(context.Background(), GuardSpec{Root: ws, Writable: []string{ws, os.TempDir()}, RunsLater: WorkspaceRunsLater(context.Background(), ws, "")})
	g.Ready()
	for b.Loop() {
		var p Policy
		g.Apply(&p, true)
		g.BeginCall()(context.Background())
	}
}

// TestGuardSymlinkedGitDir: a .git that is a link to a git directory in
// the workspace is guarded as that directory (its config read-only, the
// rest writable), not made read-only whole.
func TestGuardSymlinkedGitDir(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	git(t, ws, "init", "-q")
	if err := os.Rename(filepath.Join(ws, ".git"), filepath.Join(ws, "real-git")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real-git", filepath.Join(ws, ".git")); err != nil {
		t.Fatal(err)
	}
	g := GuardWorkspace(context.Background(), GuardSpec{Root: ws, Writable: []string{ws}})
	real := filepath.Join(ws, "real-git")
	if !slices.Contains(g.Protected, filepath.Join(real, "config")) || slices.Contains(g.Protected, real) || !slices.Contains(g.Pinned, real) {
		t.Errorf("protected %q, pinned %q", g.Protected, g.Pinned)
	}
}
