package gitsnap

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Outside git, snapshots go to a shadow repository under the base
// directory, keyed by the workspace's real path: undo and diff work, and
// no .git appears in the workspace.
func TestShadowRepoOutsideGit(t *testing.T) {
	ctx := context.Background()
	root, base := t.TempDir(), t.TempDir()
	write := func(name, data string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(root, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.txt", "a\n")
	if err := NewRepo(root).Available(ctx); err == nil {
		t.Fatal("a plain directory counts as git without a shadow")
	}
	g := NewShadowedRepo(root, base)
	mode, err := g.Mode(ctx)
	if err != nil || !strings.HasPrefix(mode, "shadow "+filepath.Join(base, "checkpoints")) {
		t.Fatalf("mode %q, %v", mode, err)
	}
	before, err := g.Snapshot(ctx, "before", Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Its own index, the stat cache of the next snapshot, is kept there.
	if shadow, _ := ShadowDir(base, root); !exists(filepath.Join(shadow, "index")) {
		t.Error("the shadow repository keeps no index")
	}
	write("a.txt", "changed\n")
	write("b.txt", "new\n")
	after, err := g.Snapshot(ctx, "after", Options{})
	if err != nil {
		t.Fatal(err)
	}
	ch, err := g.Diff(ctx)
	if err != nil || len(ch.Files) != 2 {
		t.Errorf("diff since the first snapshot: %+v, %v", ch.Files, err)
	}
	rep, err := g.Undo(ctx, before, after)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Restored) != 1 || len(rep.Removed) != 1 {
		t.Errorf("undo report %+v", rep)
	}
	if data, _ := os.ReadFile(filepath.Join(root, "a.txt")); string(data) != "a\n" {
		t.Errorf("a.txt = %q", data)
	}
	if _, err := os.Stat(filepath.Join(root, "b.txt")); !os.IsNotExist(err) {
		t.Error("b.txt survived the undo")
	}
	if _, err := os.Lstat(filepath.Join(root, ".git")); !os.IsNotExist(err) {
		t.Error(".git appeared in the workspace")
	}
	// A symlink to the workspace shares its shadow repository.
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(root, link); err != nil {
		t.Skip(err)
	}
	a, _ := ShadowDir(base, root)
	b, _ := ShadowDir(base, link)
	if a != b {
		t.Errorf("shadow of the link %s, of the root %s", b, a)
	}
}

// A workspace that becomes a git repository during the session keeps its
// snapshots in the shadow repository: the earlier ones are there.
func TestShadowStaysAfterGitInit(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	g := NewShadowedRepo(root, t.TempDir())
	before, err := g.Snapshot(ctx, "before", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("git", "init", "-q", root).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	if err := os.WriteFile(filepath.Join(root, "new.txt"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	after, err := g.Snapshot(ctx, "after", Options{})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := g.Undo(ctx, before, after)
	if err != nil || len(rep.Removed) != 1 {
		t.Errorf("undo across git init: %+v, %v", rep, err)
	}
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
