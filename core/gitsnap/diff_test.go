package gitsnap

import (
	"context"

	"os"

	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestDiff(t *testing.T) {
	ctx := context.Background()
	root := newRepo(t)
	writeFile(t, root, ".gitignore", "node_modules/\n")
	writeFile(t, root, "mod.txt", "1\n2\n3\n")
	writeFile(t, root, "del.txt", "x\ny\n")
	writeFile(t, root, "ren-src.txt", "some content that is long enough\nto be detected as a rename\n")
	writeFile(t, root, "bin.dat", binary)
	commitAll(t, root)
	writeFile(t, root, "mod.txt", "1\nB\n3\n4\n")
	os.Remove(filepath.Join(root, "del.txt"))
	os.Rename(filepath.Join(root, "ren-src.txt"), filepath.Join(root, "ren-dst.txt"))
	writeFile(t, root, "bin.dat", binary+"z")
	writeFile(t, root, "new file.txt", "n1\nn2\nn3\n")
	writeFile(t, root, "node_modules/x.js", "ignored\n")
	writeFile(t, root, ".coder/sessions/s.json", "{}")

	ch, err := Diff(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	want := []FileStat{
		{Path: "bin.dat", Binary: true, Status: "modified"},
		{Path: "del.txt", Deleted: 2, Status: "deleted"},
		{Path: "mod.txt", Added: 2, Deleted: 1, Status: "modified"},
		{Path: "new file.txt", Added: 3, Status: "added"},
		{Path: "ren-dst.txt", OldPath: "ren-src.txt", Status: "renamed"},
	}
	if !slices.Equal(ch.Files, want) {
		t.Errorf("Files = %+v\nwant %+v", ch.Files, want)
	}
	for _, s := range []string{
		"diff --git a/mod.txt b/mod.txt\n", "-2\n+B\n", "+4\n",
		"diff --git a/new file.txt b/new file.txt\nnew file mode 100644\n",
		"Binary files a/bin.dat and b/bin.dat differ",
		"rename from ren-src.txt\nrename to ren-dst.txt",
	} {
		if !strings.Contains(ch.Patch, s) {
			t.Errorf("patch lacks %q:\n%s", s, ch.Patch)
		}
	}
	if strings.Contains(ch.Patch, "node_modules") || strings.Contains(ch.Patch, ".coder") {
		t.Errorf("patch shows ignored or session files:\n%s", ch.Patch)
	}

	// Nothing changed: empty.
	commitAll(t, root)
	ch, err = Diff(ctx, root)
	if err != nil || len(ch.Files) != 0 || ch.Patch != "" {
		t.Errorf("clean Diff = %+v, %v", ch, err)
	}
}

func TestDiffBetween(t *testing.T) {
	ctx := context.Background()
	root := newRepo(t)
	writeFile(t, root, "a.txt", "a\n")
	writeFile(t, root, "untracked.txt", "u\n")
	before := snap(t, root)
	writeFile(t, root, "a.txt", "a\nb\n")
	os.Remove(filepath.Join(root, "untracked.txt"))
	after := snap(t, root)
	ch, err := DiffBetween(ctx, root, before, after)
	if err != nil {
		t.Fatal(err)
	}
	want := []FileStat{{Path: "a.txt", Added: 1, Status: "modified"}, {Path: "untracked.txt", Deleted: 1, Status: "deleted"}}
	if !slices.Equal(ch.Files, want) {
		t.Errorf("Files = %+v", ch.Files)
	}
}

func TestSessionsExcluded(t *testing.T) {
	ctx := context.Background()
	root := newRepo(t)
	writeFile(t, root, ".coder/sessions/s.json", "v1")
	writeFile(t, root, ".coder/config.json", "{}")
	before := snap(t, root)
	writeFile(t, root, ".coder/sessions/s.json", "v2")
	writeFile(t, root, ".coder/sessions/t.json", "new")
	writeFile(t, root, ".coder/config.json", `{"model":"x"}`)
	after := snap(t, root)
	rep, err := Undo(ctx, root, before, after)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rep.Restored, []string{".coder/config.json"}) || len(rep.Removed) != 0 {
		t.Errorf("report = %+v", rep)
	}
	got := tree(t, root)
	if got[".coder/sessions/s.json"] != "file:644:v2" || got[".coder/sessions/t.json"] != "file:644:new" {
		t.Errorf("session files were touched: %v", got)
	}
}

func TestSubdirectoryRoot(t *testing.T) {
	ctx := context.Background()
	top := newRepo(t)
	writeFile(t, top, "outside.txt", "o\n")
	writeFile(t, top, "sub/in.txt", "i\n")
	commitAll(t, top)
	root := filepath.Join(top, "sub")
	before := snap(t, root)
	writeFile(t, top, "outside.txt", "changed\n")
	writeFile(t, root, "in.txt", "changed\n")
	writeFile(t, root, "deep/new.txt", "n\n")
	after := snap(t, root)

	ch, err := DiffBetween(ctx, root, before, after)
	if err != nil {
		t.Fatal(err)
	}
	if len(ch.Files) != 2 || ch.Files[0].Path != "deep/new.txt" || ch.Files[1].Path != "in.txt" {
		t.Errorf("Files = %+v", ch.Files)
	}
	if !strings.Contains(ch.Patch, "a/in.txt b/in.txt") {
		t.Errorf("patch paths are not relative to the root:\n%s", ch.Patch)
	}
	ch, err = Diff(ctx, root)
	if err != nil || len(ch.Files) != 2 {
		t.Errorf("Diff = %+v, %v", ch.Files, err)
	}
	rep, err := Undo(ctx, root, before, after)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rep.Restored, []string{"in.txt"}) || !slices.Equal(rep.Removed, []string{"deep/new.txt"}) {
		t.Errorf("report = %+v", rep)
	}
	got := tree(t, top)
	if got["outside.txt"] != "file:644:changed\n" || got["sub/in.txt"] != "file:644:i\n" || got["sub/deep"] != "" {
		t.Errorf("tree = %v", got)
	}
}

func TestSummaries(t *testing.T) {
	c := Changes{Files: []FileStat{
		{Path: "a.go", Added: 2, Deleted: 1, Status: "modified"},
		{Path: "b.bin", Binary: true, Status: "added"},
		{Path: "new.go", OldPath: "old.go", Added: 1, Status: "renamed"},
	}}
	want := "modified a.go  +2 -1\nadded    b.bin  binary\nrenamed  old.go → new.go  +1 -0\n3 file(s) changed, +3 -1\n"
	if got := c.Summary(); got != want {
		t.Errorf("Summary =\n%s\nwant\n%s", got, want)
	}
	if got := (Changes{}).Summary(); got != "no changes" {
		t.Errorf("empty Summary = %q", got)
	}
	rep := Report{Restored: []string{"a"}, Removed: []string{"b"}, Skipped: []string{"c"}, SkipReasons: map[string]string{"c": "it was edited after the turn"}}
	want = "restored 1, removed 1, skipped 1 file(s)\n  restored a\n  removed  b\n  skipped  c: it was edited after the turn\n"
	if got := rep.String(); got != want {
		t.Errorf("Report =\n%s\nwant\n%s", got, want)
	}
	if got := (Report{}).String(); !strings.HasPrefix(got, "nothing to undo") {
		t.Errorf("empty Report = %q", got)
	}
}
