//go:build unix

package store

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestWorkspaceDir: the sessions directory is refused, and nothing is
// saved through it, when it or .coder is a link out of the workspace,
// even before it exists; a link that stays inside passes.
func TestWorkspaceDir(t *testing.T) {
	for _, c := range []struct {
		name  string
		setup func(t *testing.T, root, outside string)
		out   bool
	}{
		{"plain", func(*testing.T, string, string) {}, false},
		{"missing", func(t *testing.T, root, _ string) { os.RemoveAll(filepath.Join(root, ".coder")) }, false},
		{".coder links out, sessions missing", func(t *testing.T, root, outside string) {
			os.RemoveAll(filepath.Join(root, ".coder"))
			mustLink(t, outside, filepath.Join(root, ".coder"))
		}, true},
		{"sessions links out", func(t *testing.T, root, outside string) {
			mustLink(t, outside, filepath.Join(root, ".coder", "sessions"))
		}, true},
		{"sessions links inside", func(t *testing.T, root, _ string) {
			if err := os.MkdirAll(filepath.Join(root, "kept"), 0o755); err != nil {
				t.Fatal(err)
			}
			mustLink(t, filepath.Join(root, "kept"), filepath.Join(root, ".coder", "sessions"))
		}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			root, outside := t.TempDir(), t.TempDir()
			if err := os.MkdirAll(filepath.Join(root, ".coder"), 0o755); err != nil {
				t.Fatal(err)
			}
			c.setup(t, root, outside)
			dir, err := WorkspaceDir(root)
			if got := errors.Is(err, ErrLeavesWorkspace); got != c.out {
				t.Fatalf("WorkspaceDir: %v, want refused %v", err, c.out)
			}
			err = Save(dir, &Snapshot{ID: "0b3b8a2c-6a55-4c39-9d5b-2f4a7c1e9d01", CreatedAt: time.Now(), UpdatedAt: time.Now()})
			if got := errors.Is(err, ErrLeavesWorkspace); got != c.out || !c.out && err != nil {
				t.Errorf("Save: %v, want refused %v", err, c.out)
			}
			if ents, _ := os.ReadDir(outside); len(ents) != 0 {
				t.Errorf("written outside: %v", ents)
			}
		})
	}
}

func mustLink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}
