//go:build unix

package agentsmd

import (
	"path/filepath"
	"syscall"
	"testing"
)

// A FIFO named AGENTS.md would block the read forever: it is skipped.
func TestFIFOSkipped(t *testing.T) {
	_, root := repo(t)
	if err := syscall.Mkfifo(filepath.Join(root, "AGENTS.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	if s := Load(Options{Root: root, MaxBytes: DefaultMaxBytes}); len(s.Files()) != 0 {
		t.Errorf("files = %+v", s.Files())
	}
}
