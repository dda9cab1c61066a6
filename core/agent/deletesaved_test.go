package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"
)

// TestDeleteSavedStaysInWorkspace: a .coder/sessions a repository made a
// link to another directory is refused; the file there is kept.
func TestDeleteSavedStaysInWorkspace(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	id := uuid.NewString()
	victim := filepath.Join(outside, id+".json")
	if err := os.WriteFile(victim, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, ".coder"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, ".coder", "sessions")); err != nil {
		t.Skip("no symlinks here:", err)
	}
	err := DeleteSaved(root, t.TempDir(), id)
	if err == nil || !strings.Contains(err.Error(), "leads out of the workspace") {
		t.Errorf("DeleteSaved through a linked sessions directory = %v", err)
	}
	if _, err := os.Stat(victim); err != nil {
		t.Errorf("the file outside the workspace was deleted: %v", err)
	}
}
