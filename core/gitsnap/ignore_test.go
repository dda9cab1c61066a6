package gitsnap

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Many keep .coder ignored (this project does). git add then refused the
// pathspec that excludes the session store, and every snapshot failed.
func TestCoderDirIgnored(t *testing.T) {
	for _, tc := range []struct {
		name   string
		ignore func(t *testing.T, root string)
	}{
		{".gitignore", func(t *testing.T, root string) {
			writeFile(t, root, ".gitignore", "build/\n.coder\n")
		}},
		{".gitignore dir pattern", func(t *testing.T, root string) {
			writeFile(t, root, ".gitignore", "build/\n.coder/\n")
		}},
		{"info/exclude", func(t *testing.T, root string) {
			writeFile(t, root, ".git/info/exclude", ".coder\n")
		}},
		{"core.excludesFile", func(t *testing.T, root string) {
			// Repository-local config: the user's global one is /dev/null here.
			excludes := filepath.Join(t.TempDir(), "ignore")
			if err := os.WriteFile(excludes, []byte(".coder/\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			gitT(t, root, "config", "core.excludesFile", excludes)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			root := newRepo(t)
			if tc.name != ".gitignore" && tc.name != ".gitignore dir pattern" {
				writeFile(t, root, ".gitignore", "build/\n")
			}
			tc.ignore(t, root)
			writeFile(t, root, "a.txt", "v1\n")
			commitAll(t, root)
			writeFile(t, root, ".coder/sessions/s.json", "s1")
			writeFile(t, root, ".coder/config.json", "{}")
			writeFile(t, root, "build/out.bin", "old build")

			before, err := Snapshot(ctx, root, "before")
			if err != nil {
				t.Fatalf("snapshot with .coder ignored: %v", err)
			}
			writeFile(t, root, "a.txt", "v2\n")
			writeFile(t, root, "new.txt", "new\n")
			writeFile(t, root, "build/out.bin", "new build")
			writeFile(t, root, ".coder/sessions/s.json", "s2")
			after, err := Snapshot(ctx, root, "after")
			if err != nil {
				t.Fatalf("snapshot with .coder ignored: %v", err)
			}

			ch, err := Diff(ctx, root)
			if err != nil {
				t.Fatalf("diff: %v", err)
			}
			var names []string
			for _, f := range ch.Files {
				names = append(names, f.Path)
			}
			if !slices.Equal(names, []string{"a.txt", "new.txt"}) {
				t.Errorf("diff lists %v, want a.txt and new.txt", names)
			}

			rep, err := Undo(ctx, root, before, after)
			if err != nil {
				t.Fatalf("undo: %v", err)
			}
			if !slices.Equal(rep.Restored, []string{"a.txt"}) || !slices.Equal(rep.Removed, []string{"new.txt"}) || len(rep.Skipped) != 0 {
				t.Errorf("report = %+v", rep)
			}
			got := tree(t, root)
			for p, want := range map[string]string{
				"a.txt":                  "file:644:v1\n",
				"build/out.bin":          "file:644:new build",
				".coder/sessions/s.json": "file:644:s2",
				".coder/config.json":     "file:644:{}",
			} {
				if got[p] != want {
					t.Errorf("%s = %q, want %q", p, got[p], want)
				}
			}
			if _, ok := got["new.txt"]; ok {
				t.Error("new.txt was not removed")
			}
		})
	}
}

// A session file tracked by the user's index under an ignored .coder stays
// out of snapshots all the same.
func TestTrackedSessionUnderIgnoredCoder(t *testing.T) {
	ctx := context.Background()
	root := newRepo(t)
	writeFile(t, root, ".coder/sessions/s.json", "s1")
	writeFile(t, root, "a.txt", "v1\n")
	commitAll(t, root)
	writeFile(t, root, ".gitignore", ".coder\n")
	before := snap(t, root)
	writeFile(t, root, ".coder/sessions/s.json", "s2")
	writeFile(t, root, "a.txt", "v2\n")
	after := snap(t, root)
	rep, err := Undo(ctx, root, before, after)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rep.Restored, []string{"a.txt"}) || len(rep.Removed)+len(rep.Skipped) != 0 {
		t.Errorf("report = %+v", rep)
	}
	if got := tree(t, root)[".coder/sessions/s.json"]; got != "file:644:s2" {
		t.Errorf("session file = %q, want s2 untouched", got)
	}
	ls := gitT(t, root, "ls-tree", "-r", "--name-only", after)
	if strings.Contains(ls, "sessions") {
		t.Errorf("snapshot holds the session store:\n%s", ls)
	}
}
