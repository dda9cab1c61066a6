package agent

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/coder-nvim/coder-nvim/core/store"
)

// DeleteSaved deletes saved session id of the workspace root: its files
// in the workspace's sessions directory (store.Delete: refused with
// store.ErrLocked while a process has it open, store.ErrNotFound when it
// has none) and the record that this machine created it, in stateDir.
// A sessions directory that leads out of the workspace (a link a
// repository shipped) is refused: nothing outside the workspace's own
// .coder/sessions and the state directory is removed.
func DeleteSaved(root, stateDir, id string) error {
	dir, err := store.WorkspaceDir(root)
	if err != nil {
		return err
	}
	if err := store.Delete(dir, id); err != nil {
		return err
	}
	if stateDir == "" {
		return nil
	}
	if err := os.Remove(originMarker(stateDir, root, id)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("session %s deleted, but not the record of its origin: %w", id, err)
	}
	return nil
}
