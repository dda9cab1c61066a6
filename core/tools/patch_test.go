package tools

import (
	"context"

	"errors"

	"os"
	"path/filepath"

	"slices"
	"strings"
	"testing"
)

func TestPatch(t *testing.T) {
	files := map[string]string{
		"a.go":     "package a\n\nfunc A() int {\n\treturn 1\n}\n",
		"b.go":     "package b\n\nfunc B() {}\n",
		"old.go":   "package old\n",
		"quote.go": "s := \"it’s\"   \n",
		"ws.go":    "\t\tindented()\n",
	}
	tests := []struct {
		name  string
		patch string
		want  map[string]string // path -> content; "" means must not exist
		err   string
	}{
		{
			name:  "add",
			patch: "*** Add File: dir/new.go\n+package dir\n+\n+var X = 1\n",
			want:  map[string]string{"dir/new.go": "package dir\n\nvar X = 1\n"},
		},
		{
			name:  "delete",
			patch: "*** Delete File: old.go\n",
			want:  map[string]string{"old.go": ""},
		},
		{
			name:  "update with context",
			patch: "*** Update File: a.go\n@@ func A() int {\n-\treturn 1\n+\treturn 2\n",
			want:  map[string]string{"a.go": "package a\n\nfunc A() int {\n\treturn 2\n}\n"},
		},
		{
			name:  "update and move",
			patch: "*** Update File: b.go\n*** Move to: sub/c.go\n@@\n-package b\n+package c\n",
			want:  map[string]string{"b.go": "", "sub/c.go": "package c\n\nfunc B() {}\n"},
		},
		{
			name:  "pure move",
			patch: "*** Update File: b.go\n*** Move to: moved.go\n",
			want:  map[string]string{"b.go": "", "moved.go": files["b.go"]},
		},
		{
			name:  "end of file",
			patch: "*** Update File: a.go\n@@\n }\n+\n+func Z() {}\n*** End of File\n",
			want:  map[string]string{"a.go": files["a.go"] + "\nfunc Z() {}\n"},
		},
		{
			name:  "trailing whitespace and unicode",
			patch: "*** Update File: quote.go\n-s := \"it's\"\n+s := \"its\"\n",
			want:  map[string]string{"quote.go": "s := \"its\"\n"},
		},
		{
			name:  "surrounding whitespace",
			patch: "*** Update File: ws.go\n-indented()\n+\t\tchanged()\n",
			want:  map[string]string{"ws.go": "\t\tchanged()\n"},
		},
		{
			name:  "multi-file",
			patch: "*** Update File: a.go\n-\treturn 1\n+\treturn 3\n*** Add File: n.txt\n+n\n*** Delete File: old.go\n",
			want:  map[string]string{"a.go": strings.Replace(files["a.go"], "return 1", "return 3", 1), "n.txt": "n\n", "old.go": ""},
		},
		{
			name:  "second file fails: nothing changes",
			patch: "*** Update File: a.go\n-\treturn 1\n+\treturn 4\n*** Update File: b.go\n@@ func B() {}\n-nothing like this\n+x\n*** Add File: n.txt\n+n\n",
			err:   "Update File b.go: chunk 1 (@@ func B() {})",
		},
		{
			name:  "missing file",
			patch: "*** Update File: nope.go\n-a\n+b\n",
			err:   "Update File nope.go: nope.go does not exist",
		},
		{
			name:  "add existing",
			patch: "*** Add File: a.go\n+x\n",
			err:   "already exists",
		},
		{
			name:  "move onto existing",
			patch: "*** Update File: b.go\n*** Move to: a.go\n",
			err:   "destination already exists",
		},
		{
			name:  "move into .git",
			patch: "*** Update File: b.go\n*** Move to: .git/hooks/pre-commit\n",
			err:   "inside .git",
		},
	}
	for _, tt := range tests {
		ws := newWS(t, files)
		inv, err := prepare(t, ws, "patch", m{"patch": "*** Begin Patch\n" + tt.patch + "*** End Patch\n"})
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: error %v, want %q", tt.name, err, tt.err)
			}
			for p, c := range files {
				if got := readFile(t, ws, p); got != c {
					t.Errorf("%s: %s changed to %q", tt.name, p, got)
				}
			}
			if _, err := os.Stat(filepath.Join(ws.Root(), "n.txt")); err == nil {
				t.Errorf("%s: n.txt was created", tt.name)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		r := inv.Run(context.Background())
		if r.IsError {
			t.Errorf("%s: run: %s", tt.name, r.Output)
			continue
		}
		for p, want := range tt.want {
			data, err := os.ReadFile(filepath.Join(ws.Root(), p))
			switch {
			case want == "" && err == nil:
				t.Errorf("%s: %s still exists", tt.name, p)
			case want != "" && string(data) != want:
				t.Errorf("%s: %s = %q, want %q (%v)", tt.name, p, data, want, err)
			}
		}
	}
}

func TestPatchResult(t *testing.T) {
	ws := newWS(t, map[string]string{"a.txt": "1\n2\n3\n", "b.txt": "x\n"})
	inv, err := prepare(t, ws, "patch", m{"patch": "*** Begin Patch\n*** Update File: a.txt\n 1\n-2\n+two\n+2.5\n*** Delete File: b.txt\n*** End Patch"})
	if err != nil {
		t.Fatal(err)
	}
	if inv.Title != "patch 2 files" || !slices.Equal(inv.Paths, []string{"a.txt", "b.txt"}) || inv.Kind != KindEdit {
		t.Errorf("invocation %+v", inv)
	}
	if len(inv.Changes) != 2 || inv.Changes[0].Op != OpUpdate || inv.Changes[1].Op != OpDelete || inv.Changes[1].Old != "x\n" {
		t.Errorf("changes %+v", inv.Changes)
	}
	r := inv.Run(context.Background())
	if r.IsError || r.Summary != "+2 -2 2 files" {
		t.Errorf("result %+v", r)
	}
	for _, want := range []string{"--- a/a.txt\n+++ b/a.txt\n", "-2\n+two\n+2.5\n", "--- a/b.txt\n+++ /dev/null\n", "-x\n"} {
		if !strings.Contains(r.Display, want) {
			t.Errorf("display %q lacks %q", r.Display, want)
		}
	}
	if r.Output != "Updated a.txt (+2 -1)\nDeleted b.txt" {
		t.Errorf("output %q", r.Output)
	}
}

func TestApplyAllOrNothing(t *testing.T) {
	files := map[string]string{"a.txt": "a\n", "b.txt": "b\n", "blocker": "i am a file\n"}
	ctx := context.Background()

	// The third change cannot be written (its parent is a file): the first
	// two are rolled back.
	ws := newWS(t, files)
	err := ws.Apply(ctx, []FileChange{
		{Path: "a.txt", Op: OpUpdate, Old: "a\n", New: "A\n", Mode: 0o644},
		{Path: "b.txt", Op: OpDelete, Old: "b\n", Mode: 0o644},
		{Path: "new.txt", Op: OpAdd, New: "n\n"},
		{Path: "blocker/x.txt", Op: OpAdd, New: "x\n"},
	})
	if err == nil || !strings.Contains(err.Error(), "writing blocker/x.txt failed") {
		t.Fatalf("error %v", err)
	}
	for p, c := range files {
		if got := readFile(t, ws, p); got != c {
			t.Errorf("%s = %q after rollback, want %q", p, got, c)
		}
	}
	if _, err := os.Stat(filepath.Join(ws.Root(), "new.txt")); err == nil {
		t.Error("new.txt left behind")
	}

	// Mode 0 on an update keeps the file's mode.
	ws = newWS(t, files)
	os.Chmod(filepath.Join(ws.Root(), "a.txt"), 0o700)
	if err := ws.Apply(ctx, []FileChange{{Path: "a.txt", Op: OpUpdate, Old: "a\n", New: "A\n"}}); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(filepath.Join(ws.Root(), "a.txt")); st.Mode().Perm() != 0o700 {
		t.Errorf("mode %v, want 0700", st.Mode())
	}

	// The guard sees every path and can refuse the set.
	ws = newWS(t, files)
	var seen []string
	ws.SetGuard(func(_ context.Context, abs string) error {
		seen = append(seen, abs)
		if strings.HasSuffix(abs, "b.txt") {
			return errors.New("b.txt has unsaved changes in the editor")
		}
		return nil
	})
	err = ws.Apply(ctx, []FileChange{
		{Path: "a.txt", Op: OpUpdate, Old: "a\n", New: "A\n"},
		{Path: "b.txt", Op: OpUpdate, Old: "b\n", New: "B\n"},
	})
	if err == nil || !strings.Contains(err.Error(), "unsaved changes") || len(seen) != 2 {
		t.Fatalf("guard: %v, seen %v", err, seen)
	}
	if readFile(t, ws, "a.txt") != "a\n" {
		t.Error("a.txt written despite guard refusal")
	}

	// Stale Old: nothing is written.
	ws = newWS(t, files)
	err = ws.Apply(ctx, []FileChange{
		{Path: "a.txt", Op: OpUpdate, Old: "a\n", New: "A\n"},
		{Path: "b.txt", Op: OpUpdate, Old: "not b\n", New: "B\n"},
	})
	if err == nil || !strings.Contains(err.Error(), "b.txt changed on disk") || readFile(t, ws, "a.txt") != "a\n" {
		t.Fatalf("stale: %v", err)
	}

	// Bad sets are refused up front.
	for _, set := range [][]FileChange{
		{{Path: "a.txt", Op: "frob"}},
		{{Path: "a.txt", Op: OpUpdate, Old: "a\n", New: "1"}, {Path: "a.txt", Op: OpUpdate, Old: "a\n", New: "2"}},
		{{Path: "../x", Op: OpAdd, New: "x"}},
		{{Path: "a.txt", Op: OpAdd, New: "x"}},
	} {
		if err := ws.Apply(ctx, set); err == nil {
			t.Errorf("set %+v accepted", set)
		}
	}
	if readFile(t, ws, "a.txt") != "a\n" {
		t.Error("a.txt changed by a refused set")
	}
}
