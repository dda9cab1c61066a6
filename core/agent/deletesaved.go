package agent

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

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
	dir := store.Dir(root)
	if err := insideRoot(root, dir); err != nil {
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

// insideRoot refuses dir when its real path is not inside root's; a dir
// that does not exist holds nothing to delete and passes.
func insideRoot(root, dir string) error {
	realDir, err := filepath.EvalSymlinks(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	realRoot, rerr := filepath.EvalSymlinks(root)
	if err != nil || rerr != nil {
		return fmt.Errorf("resolve %s: %w", dir, errors.Join(err, rerr))
	}
	if !strings.HasPrefix(realDir, realRoot+string(filepath.Separator)) {
		return fmt.Errorf("%s leads out of the workspace (to %s): its sessions are not deleted from here", dir, realDir)
	}
	return nil
}
