package gitsnap

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestUndoOwn(t *testing.T) {
	ctx := context.Background()
	root := newRepo(t)
	writeFile(t, root, "mine.txt", "v1\n")
	writeFile(t, root, "shared.txt", "s1\n")
	writeFile(t, root, "cmd.txt", "c1\n")
	commitAll(t, root)

	before := snap(t, root)
	writeFile(t, root, "mine.txt", "v2\n")      // a file tool of the turn
	writeFile(t, root, "theirs.txt", "other\n") // another session
	writeFile(t, root, "shared.txt", "s2\n")    // another session, before the command
	cmdBefore := snap(t, root)
	writeFile(t, root, "cmd.txt", "c2\n") // the turn's command
	writeFile(t, root, "made.txt", "m\n") // the turn's command
	cmdAfter := snap(t, root)
	changed, err := Changed(ctx, root, cmdBefore, cmdAfter)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(changed, []string{"cmd.txt", "made.txt"}) {
		t.Fatalf("Changed = %v", changed)
	}
	after := snap(t, root)

	own := []Owned{{Path: "mine.txt", Base: before}, {Path: "shared.txt", Base: cmdBefore}}
	for _, p := range changed {
		own = append(own, Owned{Path: p, Base: cmdBefore})
	}
	rep, err := UndoOwn(ctx, root, before, after, own)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rep.Restored, []string{"cmd.txt", "mine.txt"}) || !slices.Equal(rep.Removed, []string{"made.txt"}) || len(rep.Skipped) != 0 {
		t.Errorf("report = %+v", rep)
	}
	if !slices.Equal(rep.Others, []string{"shared.txt", "theirs.txt"}) {
		t.Errorf("others = %v, want shared.txt and theirs.txt", rep.Others)
	}
	if s := rep.String(); !strings.Contains(s, "theirs.txt: changed during the turn, but not by it") {
		t.Errorf("report does not name others' files:\n%s", s)
	}
	got := tree(t, root)
	for p, want := range map[string]string{"mine.txt": "file:644:v1\n", "cmd.txt": "file:644:c1\n", "theirs.txt": "file:644:other\n", "shared.txt": "file:644:s2\n"} {
		if got[p] != want {
			t.Errorf("%s = %q, want %q", p, got[p], want)
		}
	}
	if _, ok := got["made.txt"]; ok {
		t.Error("made.txt not removed")
	}

	// Nothing owned: nothing undone, everything named.
	rep, err = UndoOwn(ctx, root, before, after, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Restored)+len(rep.Removed) != 0 || len(rep.Others) == 0 {
		t.Errorf("undo of a turn that changed nothing itself: %+v", rep)
	}
}

func TestLargeUntrackedFilesLeftOut(t *testing.T) {
	ctx := context.Background()
	root := newRepo(t)
	writeFile(t, root, "small.txt", "s\n")
	commitAll(t, root)
	opts := Options{MaxFileSize: 1000}
	big := strings.Repeat("x", 5000)
	writeFile(t, root, "big.bin", big)
	writeFile(t, root, "shrinks.bin", big)
	before, err := SnapshotWith(ctx, root, "before", opts)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, root, "big.bin", big+"y")   // regenerated
	writeFile(t, root, "new.bin", big)       // created
	writeFile(t, root, "shrinks.bin", "s\n") // now under the limit
	writeFile(t, root, "small.txt", "t\n")
	after, err := SnapshotWith(ctx, root, "after", opts)
	if err != nil {
		t.Fatal(err)
	}
	ls := gitT(t, root, "ls-tree", "-r", "--name-only", after)
	if strings.Contains(ls, "big.bin") || strings.Contains(ls, "new.bin") {
		t.Errorf("large files snapshotted:\n%s", ls)
	}
	count := gitT(t, root, "count-objects", "-v")
	if strings.Contains(gitT(t, root, "cat-file", "--batch-all-objects", "--batch-check=%(objectsize)"), "5000") {
		t.Errorf("a large file went into .git:\n%s", count)
	}
	changed, err := Changed(ctx, root, before, after)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(changed, []string{"big.bin", "new.bin", "shrinks.bin", "small.txt"}) {
		t.Errorf("Changed = %v", changed)
	}
	rep, err := Undo(ctx, root, before, after)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rep.TooLarge, []string{"big.bin", "new.bin", "shrinks.bin"}) || !slices.Equal(rep.Restored, []string{"small.txt"}) {
		t.Errorf("report = %+v", rep)
	}
	if _, ok := rep.SkipReasons["shrinks.bin"]; !ok {
		t.Errorf("shrinks.bin, too large before the turn, was not skipped: %+v", rep)
	}
	if s := rep.String(); !strings.Contains(s, "new.bin: larger than the snapshot size limit") {
		t.Errorf("undo does not say what it could not cover:\n%s", s)
	}
	for _, p := range []string{"big.bin", "new.bin", "shrinks.bin"} {
		if _, err := os.Stat(filepath.Join(root, p)); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}

func TestForget(t *testing.T) {
	ctx := context.Background()
	root := newRepo(t)
	writeFile(t, root, "a.txt", "a")
	a, b := snap(t, root), snap(t, root)
	if err := Forget(ctx, root, a, b, a); err != nil {
		t.Fatal(err)
	}
	if refs := gitT(t, root, "for-each-ref", RefPrefix); refs != "" {
		t.Errorf("refs left: %s", refs)
	}
	if err := Forget(ctx, root, "../../HEAD"); err == nil {
		t.Error("bad id accepted")
	}
}
