package gitsnap

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestMain(m *testing.M) {
	// Keep the machine's git configuration out of the tests, for both the
	// helpers below and the package under test.
	os.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	os.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for _, k := range []string{"GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME"} {
		os.Setenv(k, "Test")
	}
	for _, k := range []string{"GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL"} {
		os.Setenv(k, "test@example.com")
	}
	os.Exit(m.Run())
}

func gitT(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func newRepo(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	gitT(t, dir, "init", "-q", "-b", "main")
	return dir
}

func writeFile(t testing.TB, root, rel, content string) {
	t.Helper()
	p := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func commitAll(t testing.TB, root string) {
	t.Helper()
	gitT(t, root, "add", "-A")
	gitT(t, root, "commit", "-q", "-m", "c")
}

// tree captures every file, link and directory under root except .git:
// path → "file:<mode>:<content>", "link:<target>" or "dir".
func tree(t testing.TB, root string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if rel == "." {
			return nil
		}
		if rel == ".git" {
			return filepath.SkipDir
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			m[rel] = "link:" + target
		case fi.IsDir():
			m[rel] = "dir"
		default:
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			m[rel] = fmt.Sprintf("file:%o:%s", fi.Mode().Perm(), data)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func diffTrees(t *testing.T, got, want map[string]string) {
	t.Helper()
	for _, k := range slices.Sorted(maps.Keys(want)) {
		if g, ok := got[k]; !ok {
			t.Errorf("missing %s (want %.40q)", k, want[k])
		} else if g != want[k] {
			t.Errorf("%s = %.60q, want %.60q", k, g, want[k])
		}
	}
	for _, k := range slices.Sorted(maps.Keys(got)) {
		if _, ok := want[k]; !ok {
			t.Errorf("unexpected %s = %.40q", k, got[k])
		}
	}
}

func snap(t testing.TB, root string) string {
	t.Helper()
	id, err := Snapshot(context.Background(), root, "turn")
	if err != nil {
		t.Fatal(err)
	}
	return id
}

var binary = string([]byte{0, 1, 2, 0xff, 0xfe, '\r', '\n', 0, 'x', '\r'})

func TestUndoTurn(t *testing.T) {
	ctx := context.Background()
	root := newRepo(t)
	writeFile(t, root, ".gitignore", "node_modules/\n*.log\n")
	writeFile(t, root, "mod.txt", "one\ntwo\n")
	writeFile(t, root, "del.txt", "delete me\n")
	writeFile(t, root, "move-src.txt", "moving\n")
	writeFile(t, root, "bin.dat", binary)
	writeFile(t, root, "run.sh", "#!/bin/sh\necho hi\n")
	if err := os.Chmod(filepath.Join(root, "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, root, "dir with space/ünïcode 文件.txt", "unicode\n")
	writeFile(t, root, "user.txt", "user v1\n")
	writeFile(t, root, "was-file", "a file\n")
	writeFile(t, root, "old.log", "ignored before\n")
	commitAll(t, root)
	writeFile(t, root, "untracked-before.txt", "untracked\n")
	writeFile(t, root, "node_modules/dep/keep.js", "dep\n")
	if err := os.Symlink("mod.txt", filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	initial := tree(t, root)

	before := snap(t, root)
	// The turn: tool writes, a move, a binary edit, nested new directories,
	// a mode change, and changes made by a shell command.
	writeFile(t, root, "mod.txt", "one\nTWO\nthree\n")
	os.Remove(filepath.Join(root, "del.txt"))
	os.MkdirAll(filepath.Join(root, "moved"), 0o755)
	os.Rename(filepath.Join(root, "move-src.txt"), filepath.Join(root, "moved", "dst.txt"))
	writeFile(t, root, "bin.dat", binary+"\x00more")
	writeFile(t, root, "new/a/b/c.txt", "nested\n")
	writeFile(t, root, "dir with space/ünïcode 文件.txt", "changed\n")
	os.Chmod(filepath.Join(root, "run.sh"), 0o644)
	writeFile(t, root, "user.txt", "turn edit\n")
	os.Remove(filepath.Join(root, "was-file"))
	writeFile(t, root, "was-file/inner.txt", "now a dir\n")
	os.Remove(filepath.Join(root, "link"))
	os.Symlink("bin.dat", filepath.Join(root, "link"))
	sh := exec.Command("sh", "-c", "echo shell > shell.txt && rm untracked-before.txt && mkdir -p node_modules/new && echo x > node_modules/new/x.js && echo log > build.log")
	sh.Dir = root
	if out, err := sh.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	after := snap(t, root)

	// The user edits a file after the turn.
	writeFile(t, root, "user.txt", "user v2\n")

	rep, err := Undo(ctx, root, before, after)
	if err != nil {
		t.Fatal(err)
	}

	want := maps.Clone(initial)
	want["user.txt"] = "file:644:user v2\n"
	// Ignored files are never touched, whoever made them.
	want["node_modules/new"] = "dir"
	want["node_modules/new/x.js"] = "file:644:x\n"
	want["build.log"] = "file:644:log\n"
	diffTrees(t, tree(t, root), want)

	wantRestored := []string{"bin.dat", "del.txt", "dir with space/ünïcode 文件.txt", "link", "mod.txt", "move-src.txt", "run.sh", "untracked-before.txt", "was-file"}
	wantRemoved := []string{"moved/dst.txt", "new/a/b/c.txt", "shell.txt", "was-file/inner.txt"}
	if !slices.Equal(rep.Restored, wantRestored) {
		t.Errorf("Restored = %q\nwant %q", rep.Restored, wantRestored)
	}
	if !slices.Equal(rep.Removed, wantRemoved) {
		t.Errorf("Removed = %q\nwant %q", rep.Removed, wantRemoved)
	}
	if !slices.Equal(rep.Skipped, []string{"user.txt"}) || !strings.Contains(rep.SkipReasons["user.txt"], "edited after the turn") {
		t.Errorf("Skipped = %q %q", rep.Skipped, rep.SkipReasons)
	}
}

func TestUndoSkipsLaterChanges(t *testing.T) {
	ctx := context.Background()
	root := newRepo(t)
	writeFile(t, root, "deleted-by-turn.txt", "x\n")
	writeFile(t, root, "deleted-by-user.txt", "x\n")
	commitAll(t, root)
	before := snap(t, root)
	os.Remove(filepath.Join(root, "deleted-by-turn.txt"))
	writeFile(t, root, "deleted-by-user.txt", "turn\n")
	writeFile(t, root, "created.txt", "turn\n")
	after := snap(t, root)
	// After the turn the user recreates one file and deletes another.
	writeFile(t, root, "deleted-by-turn.txt", "mine\n")
	os.Remove(filepath.Join(root, "deleted-by-user.txt"))
	writeFile(t, root, "created.txt", "mine\n")

	rep, err := Undo(ctx, root, before, after)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"deleted-by-turn.txt": "recreated after the turn",
		"deleted-by-user.txt": "deleted after the turn",
		"created.txt":         "edited after the turn",
	}
	if len(rep.Skipped) != len(want) || len(rep.Restored)+len(rep.Removed) != 0 {
		t.Errorf("report = %+v", rep)
	}
	for p, w := range want {
		if !strings.Contains(rep.SkipReasons[p], w) {
			t.Errorf("reason for %s = %q, want %q", p, rep.SkipReasons[p], w)
		}
	}
	diffTrees(t, tree(t, root), map[string]string{
		"deleted-by-turn.txt": "file:644:mine\n",
		"created.txt":         "file:644:mine\n",
	})
}

func TestTwoTurnsUndoneInSequence(t *testing.T) {
	ctx := context.Background()
	root := newRepo(t)
	writeFile(t, root, "a.txt", "a0\n")
	commitAll(t, root)
	s0 := tree(t, root)
	b1 := snap(t, root)
	writeFile(t, root, "a.txt", "a1\n")
	writeFile(t, root, "b.txt", "b1\n")
	a1 := snap(t, root)
	s1 := tree(t, root)
	b2 := snap(t, root)
	writeFile(t, root, "a.txt", "a2\n")
	os.Remove(filepath.Join(root, "b.txt"))
	writeFile(t, root, "c/c.txt", "c2\n")
	a2 := snap(t, root)

	if _, err := Undo(ctx, root, b2, a2); err != nil {
		t.Fatal(err)
	}
	diffTrees(t, tree(t, root), s1)
	rep, err := Undo(ctx, root, b1, a1)
	if err != nil {
		t.Fatal(err)
	}
	diffTrees(t, tree(t, root), s0)
	if len(rep.Skipped) != 0 {
		t.Errorf("skipped %v", rep.SkipReasons)
	}
}

func TestNoCommitsYet(t *testing.T) {
	ctx := context.Background()
	root := newRepo(t)
	writeFile(t, root, "a.txt", "a\n")
	initial := tree(t, root)
	before := snap(t, root)
	writeFile(t, root, "a.txt", "b\n")
	writeFile(t, root, "n/new.txt", "new\n")
	after := snap(t, root)

	ch, err := Diff(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	if len(ch.Files) != 2 || ch.Files[0] != (FileStat{Path: "a.txt", Added: 1, Status: "added"}) || ch.Files[1].Path != "n/new.txt" {
		t.Errorf("Diff = %+v", ch.Files)
	}
	rep, err := Undo(ctx, root, before, after)
	if err != nil {
		t.Fatal(err)
	}
	diffTrees(t, tree(t, root), initial)
	if !slices.Equal(rep.Restored, []string{"a.txt"}) || !slices.Equal(rep.Removed, []string{"n/new.txt"}) {
		t.Errorf("report = %+v", rep)
	}
	if _, err := exec.Command("git", "-C", root, "rev-parse", "--verify", "-q", "HEAD").Output(); err == nil {
		t.Error("HEAD exists after snapshots of an unborn repository")
	}
}

// userState is everything of the user's that snapshots must not change.
func userState(t *testing.T, root string) string {
	t.Helper()
	index, err := os.ReadFile(filepath.Join(root, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join([]string{
		gitT(t, root, "rev-parse", "HEAD"),
		gitT(t, root, "symbolic-ref", "HEAD"),
		gitT(t, root, "for-each-ref", "refs/heads", "refs/tags", "refs/stash", "refs/remotes"),
		gitT(t, root, "stash", "list"),
		gitT(t, root, "status", "--porcelain=v1", "-z", "--untracked-files=all"),
		string(index),
	}, "\n---\n")
}

func TestUserStateUntouched(t *testing.T) {
	ctx := context.Background()
	root := newRepo(t)
	writeFile(t, root, "a.txt", "a\n")
	writeFile(t, root, "b.txt", "b\n")
	commitAll(t, root)
	writeFile(t, root, "a.txt", "stashed\n")
	gitT(t, root, "stash", "-q")
	writeFile(t, root, "b.txt", "staged\n")
	gitT(t, root, "add", "b.txt")
	writeFile(t, root, "b.txt", "staged then edited\n")
	writeFile(t, root, "u.txt", "untracked\n")
	state := userState(t, root)

	before := snap(t, root)
	if got := userState(t, root); got != state {
		t.Fatalf("Snapshot changed the user's state:\n%s\nwant\n%s", got, state)
	}
	if _, err := Diff(ctx, root); err != nil {
		t.Fatal(err)
	}
	if got := userState(t, root); got != state {
		t.Fatalf("Diff changed the user's state")
	}
	writeFile(t, root, "c.txt", "turn\n")
	after := snap(t, root)
	if _, err := Undo(ctx, root, before, after); err != nil {
		t.Fatal(err)
	}
	if got := userState(t, root); got != state {
		t.Fatalf("Undo changed the user's state:\n%s\nwant\n%s", got, state)
	}
	// The snapshot holds the working tree, not the index.
	if got := gitT(t, root, "show", before+":b.txt"); got != "staged then edited\n" {
		t.Errorf("snapshot b.txt = %q", got)
	}
	// And is kept alive by a private ref.
	if refs := gitT(t, root, "for-each-ref", "--format=%(refname)", RefPrefix); !strings.Contains(refs, RefPrefix+before) {
		t.Errorf("refs = %q", refs)
	}
	if err := Forget(ctx, root, before); err != nil {
		t.Fatal(err)
	}
	if refs := gitT(t, root, "for-each-ref", "--format=%(refname)", RefPrefix); strings.Contains(refs, before) {
		t.Errorf("Forget left %q", refs)
	}
}

func TestAvailable(t *testing.T) {
	ctx := context.Background()
	if err := Available(ctx, newRepo(t)); err != nil {
		t.Errorf("repository: %v", err)
	}
	plain := t.TempDir()
	err := Available(ctx, plain)
	if err == nil || !strings.Contains(err.Error(), "not inside a git repository") {
		t.Errorf("plain directory: %v", err)
	}
	if _, err := Snapshot(ctx, plain, ""); err == nil {
		t.Error("Snapshot of a plain directory succeeded")
	}
	if err := Available(ctx, filepath.Join(plain, "missing")); err == nil {
		t.Error("missing directory accepted")
	}
	t.Setenv("PATH", "")
	if err := Available(ctx, plain); err == nil || !strings.Contains(err.Error(), "git is not installed") {
		t.Errorf("without git: %v", err)
	}
}

func TestBadSnapshotIDs(t *testing.T) {
	ctx := context.Background()
	root := newRepo(t)
	writeFile(t, root, "a", "a")
	good := snap(t, root)
	for _, id := range []string{"", "--output=/tmp/x", "HEAD", strings.Repeat("0", 40)} {
		if _, err := Undo(ctx, root, id, good); err == nil {
			t.Errorf("Undo(%q) succeeded", id)
		}
		if _, err := DiffBetween(ctx, root, good, id); err == nil {
			t.Errorf("DiffBetween(%q) succeeded", id)
		}
	}
}

func TestRestoreKeepsBytesExact(t *testing.T) {
	ctx := context.Background()
	root := newRepo(t)
	var all bytes.Buffer
	for i := range 256 {
		all.WriteByte(byte(i))
	}
	all.WriteString("\r\n\r\n")
	writeFile(t, root, "all.bin", all.String())
	writeFile(t, root, "crlf.txt", "a\r\nb\r\n")
	before := snap(t, root)
	writeFile(t, root, "all.bin", "x")
	writeFile(t, root, "crlf.txt", "a\n")
	after := snap(t, root)
	if _, err := Undo(ctx, root, before, after); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"all.bin": all.String(), "crlf.txt": "a\r\nb\r\n"} {
		if got, _ := os.ReadFile(filepath.Join(root, name)); string(got) != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
}

func BenchmarkSnapshot(b *testing.B) {
	root := newRepo(b)
	for i := range 1000 {
		writeFile(b, root, fmt.Sprintf("d%02d/f%03d.txt", i%50, i), strings.Repeat("line\n", 100))
	}
	commitAll(b, root)
	writeFile(b, root, "changed.txt", "x")
	ctx := context.Background()
	for b.Loop() {
		if _, err := Snapshot(ctx, root, "bench"); err != nil {
			b.Fatal(err)
		}
	}
}

func TestUserConfigIgnored(t *testing.T) {
	root := newRepo(t)
	// Signing would need a key and a prompt; hooks must not run.
	gitT(t, root, "config", "commit.gpgSign", "true")
	gitT(t, root, "config", "gpg.program", "false")
	gitT(t, root, "config", "core.hooksPath", "hooks")
	writeFile(t, root, "hooks/pre-commit", "#!/bin/sh\nexit 1\n")
	writeFile(t, root, "a.txt", "a\n")
	if _, err := Snapshot(context.Background(), root, "x"); err != nil {
		t.Fatal(err)
	}
}

func TestUndoKeepsFilesIgnoredBeforeTheTurn(t *testing.T) {
	ctx := context.Background()
	root := newRepo(t)
	writeFile(t, root, ".gitignore", "node_modules/\n:odd*\n")
	writeFile(t, root, "a.txt", "a\n")
	commitAll(t, root)
	writeFile(t, root, "node_modules/dep/keep.js", "dep\n")
	writeFile(t, root, ":odd name", "ignored too\n")
	before := snap(t, root)
	// The turn drops the ignore rules, so everything ignored shows up in
	// its snapshot, and creates a file that is not ignored either way.
	writeFile(t, root, ".gitignore", "")
	writeFile(t, root, "sub/.gitignore", "*.tmp\n")
	writeFile(t, root, "node_modules/dep/new.js", "new\n")
	writeFile(t, root, "created.txt", "c\n")
	after := snap(t, root)

	rep, err := Undo(ctx, root, before, after)
	if err != nil {
		t.Fatal(err)
	}
	got := tree(t, root)
	for _, p := range []string{"node_modules/dep/keep.js", "node_modules/dep/new.js", ":odd name"} {
		if _, ok := got[p]; !ok {
			t.Errorf("ignored %s was removed", p)
		}
	}
	if got[".gitignore"] != "file:644:node_modules/\n:odd*\n" {
		t.Errorf(".gitignore = %q", got[".gitignore"])
	}
	if _, ok := got["created.txt"]; ok {
		t.Error("created.txt was not removed")
	}
	if _, ok := got["sub"]; ok {
		t.Error("sub/ was not removed")
	}
	if !slices.Equal(rep.Removed, []string{"created.txt", "sub/.gitignore"}) || len(rep.Skipped) != 3 {
		t.Errorf("report = %+v", rep)
	}
}
