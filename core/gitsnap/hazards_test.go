package gitsnap

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A host started from a git hook or as `git commit`'s editor inherits
// GIT_DIR, GIT_INDEX_FILE and the like; they must not redirect snapshots to
// another repository or index, nor turn off pathspec magic.
func TestRepositoryEnvironmentIgnored(t *testing.T) {
	ctx := context.Background()
	root := newRepo(t)
	other := newRepo(t)
	writeFile(t, root, "a.txt", "a\n")
	writeFile(t, root, ".coder/sessions/s.jsonl", "session\n")
	commitAll(t, root)
	t.Setenv("GIT_DIR", filepath.Join(other, ".git"))
	t.Setenv("GIT_WORK_TREE", other)
	t.Setenv("GIT_INDEX_FILE", filepath.Join(other, "other-index"))
	t.Setenv("GIT_LITERAL_PATHSPECS", "1")
	before, err := Snapshot(ctx, root, "x")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, root, "a.txt", "changed\n")
	after, err := Snapshot(ctx, root, "x")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Undo(ctx, root, before, after)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_LITERAL_PATHSPECS"} {
		os.Unsetenv(k)
	}
	if got := tree(t, root)["a.txt"]; got != "file:644:a\n" || len(rep.Restored) != 1 {
		t.Errorf("a.txt = %q, report %+v", got, rep)
	}
	if out := gitT(t, root, "for-each-ref", RefPrefix); !strings.Contains(out, before) {
		t.Errorf("snapshot ref not in the workspace's repository: %q", out)
	}
	if out := gitT(t, other, "for-each-ref"); out != "" {
		t.Errorf("refs written to the other repository: %q", out)
	}
	if _, err := os.Stat(filepath.Join(other, "other-index")); err == nil {
		t.Error("the index named by GIT_INDEX_FILE was written")
	}
}

// Undo must never write or delete through a symbolic link: a directory the
// user (or the turn) replaced by a link to somewhere outside the workspace
// keeps the outside untouched.
func TestUndoDoesNotWriteThroughLinks(t *testing.T) {
	ctx := context.Background()
	root := newRepo(t)
	outside := t.TempDir()
	writeFile(t, outside, "new.txt", "outside\n")
	writeFile(t, root, "d/f.txt", "orig\n")
	writeFile(t, root, "e/g.txt", "orig\n")
	commitAll(t, root)
	before := snap(t, root)
	// The turn deletes d/f.txt and creates e/new.txt with the same
	// content as the outside file.
	os.Remove(filepath.Join(root, "d/f.txt"))
	writeFile(t, root, "e/new.txt", "outside\n")
	after := snap(t, root)
	// Then the user replaces both directories by links outside.
	for _, d := range []string{"d", "e"} {
		if err := os.RemoveAll(filepath.Join(root, d)); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(outside, filepath.Join(root, d)); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := Undo(ctx, root, before, after)
	if err != nil {
		t.Fatal(err)
	}
	diffTrees(t, tree(t, outside), map[string]string{"new.txt": "file:644:outside\n"})
	if len(rep.Restored)+len(rep.Removed) != 0 || len(rep.Skipped) != 2 {
		t.Errorf("report = %+v", rep)
	}

	// A link the turn itself put in place of a directory is undone first,
	// so the files behind it come back inside the workspace.
	root = newRepo(t)
	writeFile(t, root, "d/f.txt", "orig\n")
	before = snap(t, root)
	os.RemoveAll(filepath.Join(root, "d"))
	os.Symlink(outside, filepath.Join(root, "d"))
	after = snap(t, root)
	if _, err := Undo(ctx, root, before, after); err != nil {
		t.Fatal(err)
	}
	diffTrees(t, tree(t, root), map[string]string{"d": "dir", "d/f.txt": "file:644:orig\n"})
	diffTrees(t, tree(t, outside), map[string]string{"new.txt": "file:644:outside\n"})
}

// Files in nested repositories are not in snapshots. A nested repository
// without a commit must not make snapshots fail, and when the turn deletes
// a nested repository's .git, its files (which existed before the turn)
// must not be removed as if the turn had created them.
func TestNestedRepositories(t *testing.T) {
	for _, commit := range []bool{false, true} {
		t.Run(fmt.Sprintf("commit=%v", commit), func(t *testing.T) { testNested(t, commit) })
	}
}

func testNested(t *testing.T, commit bool) {
	ctx := context.Background()
	{
		root := newRepo(t)
		writeFile(t, root, "a.txt", "a\n")
		for _, n := range []string{"sub", "deep/er sub"} {
			gitT(t, root, "init", "-q", n)
			writeFile(t, root, n+"/x.txt", "x\n")
			if commit {
				gitT(t, filepath.Join(root, n), "add", "-A")
				gitT(t, filepath.Join(root, n), "commit", "-qm", "x")
			}
		}
		before, err := Snapshot(ctx, root, "x")
		if err != nil {
			t.Fatalf("commit=%v: %v", commit, err)
		}
		want := tree(t, root)
		for _, n := range []string{"sub", "deep/er sub"} {
			os.RemoveAll(filepath.Join(root, n, ".git"))
		}
		writeFile(t, root, "a.txt", "changed\n")
		after := snap(t, root)
		rep, err := Undo(ctx, root, before, after)
		if err != nil {
			t.Fatal(err)
		}
		got := tree(t, root)
		for _, p := range []string{"sub/x.txt", "deep/er sub/x.txt", "a.txt"} {
			if got[p] != want[p] {
				t.Errorf("commit=%v: %s = %q, want %q (report %+v)", commit, p, got[p], want[p], rep)
			}
		}
	}
}

// A copy of the user's index must not make the snapshot blind or fail: a
// file marked assume-unchanged is still recorded as it is on disk, a file
// the turn writes outside a sparse checkout's cone is recorded, and a merge
// conflict outside a subdirectory workspace does not stop snapshots.
func TestUserIndexQuirks(t *testing.T) {
	ctx := context.Background()
	t.Run("assume-unchanged", func(t *testing.T) {
		root := newRepo(t)
		writeFile(t, root, "conf.txt", "orig\n")
		commitAll(t, root)
		gitT(t, root, "update-index", "--assume-unchanged", "conf.txt")
		before := snap(t, root)
		writeFile(t, root, "conf.txt", "changed by the turn\n")
		after := snap(t, root)
		if _, err := Undo(ctx, root, before, after); err != nil {
			t.Fatal(err)
		}
		diffTrees(t, tree(t, root), map[string]string{"conf.txt": "file:644:orig\n"})
		if out := gitT(t, root, "ls-files", "-v"); out != "h conf.txt\n" {
			t.Errorf("user's index changed: %q", out)
		}
	})
	t.Run("sparse checkout", func(t *testing.T) {
		root := newRepo(t)
		writeFile(t, root, "in/a.txt", "a\n")
		writeFile(t, root, "out/b.txt", "b\n")
		commitAll(t, root)
		gitT(t, root, "sparse-checkout", "set", "in")
		before := snap(t, root)
		writeFile(t, root, "out/new.txt", "n\n")
		after, err := Snapshot(ctx, root, "x")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Undo(ctx, root, before, after); err != nil {
			t.Fatal(err)
		}
		diffTrees(t, tree(t, root), map[string]string{"in": "dir", "in/a.txt": "file:644:a\n"})
	})
	t.Run("conflict outside the root", func(t *testing.T) {
		top := newRepo(t)
		writeFile(t, top, "o.txt", "base\n")
		writeFile(t, top, "sub/a.txt", "a\n")
		commitAll(t, top)
		gitT(t, top, "checkout", "-qb", "other")
		writeFile(t, top, "o.txt", "other\n")
		commitAll(t, top)
		gitT(t, top, "checkout", "-q", "main")
		writeFile(t, top, "o.txt", "main\n")
		commitAll(t, top)
		cmd := exec.Command("git", "merge", "-q", "other")
		cmd.Dir = top
		if cmd.Run() == nil {
			t.Fatal("merge did not conflict")
		}
		root := filepath.Join(top, "sub")
		before, err := Snapshot(ctx, root, "x")
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, root, "a.txt", "changed\n")
		after := snap(t, root)
		if _, err := Undo(ctx, root, before, after); err != nil {
			t.Fatal(err)
		}
		if got := tree(t, root)["a.txt"]; got != "file:644:a\n" {
			t.Errorf("a.txt = %q", got)
		}
		if out := gitT(t, top, "ls-files", "-u"); strings.Count(out, "o.txt") != 3 {
			t.Errorf("user's conflict changed: %q", out)
		}
	})
}

// Permissions: a chmod by the user after the turn is a later change like
// an edit; a file restored in place keeps its permissions other than the
// executable bit; without core.fileMode the bit on disk is kept.
func TestUndoPermissions(t *testing.T) {
	ctx := context.Background()
	root := newRepo(t)
	writeFile(t, root, "s.sh", "a\n")
	writeFile(t, root, "secret.txt", "a\n")
	writeFile(t, root, "x.sh", "a\n")
	os.Chmod(filepath.Join(root, "secret.txt"), 0o600)
	os.Chmod(filepath.Join(root, "x.sh"), 0o755)
	commitAll(t, root)
	before := snap(t, root)
	for _, f := range []string{"s.sh", "secret.txt", "x.sh"} {
		writeFile(t, root, f, "turn\n")
	}
	os.Chmod(filepath.Join(root, "secret.txt"), 0o600)
	os.Chmod(filepath.Join(root, "x.sh"), 0o700)
	after := snap(t, root)
	os.Chmod(filepath.Join(root, "s.sh"), 0o755) // the user's, after the turn
	rep, err := Undo(ctx, root, before, after)
	if err != nil {
		t.Fatal(err)
	}
	diffTrees(t, tree(t, root), map[string]string{
		"s.sh":       "file:755:turn\n",
		"secret.txt": "file:600:a\n",
		"x.sh":       "file:700:a\n",
	})
	if !slices.Equal(rep.Skipped, []string{"s.sh"}) {
		t.Errorf("report = %+v", rep)
	}

	root = newRepo(t)
	gitT(t, root, "config", "core.fileMode", "false")
	writeFile(t, root, "x.sh", "a\n")
	commitAll(t, root) // recorded as 100644
	os.Chmod(filepath.Join(root, "x.sh"), 0o755)
	before = snap(t, root)
	writeFile(t, root, "x.sh", "turn\n")
	after = snap(t, root)
	if _, err := Undo(ctx, root, before, after); err != nil {
		t.Fatal(err)
	}
	diffTrees(t, tree(t, root), map[string]string{"x.sh": "file:755:a\n"})
}
