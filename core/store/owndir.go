package store

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
)

// ErrLeavesWorkspace is the error of a sessions directory that leads out
// of its workspace.
var ErrLeavesWorkspace = errors.New("sessions are not listed, resumed or deleted through it")

// WorkspaceDir is Dir(root) when it stays inside the workspace. A
// sessions directory whose real path leads out of it (a .coder or
// .coder/sessions link a repository shipped) is refused: sessions are
// neither listed, resumed nor deleted through it. One that does not exist
// holds nothing and passes.
func WorkspaceDir(root string) (string, error) {
	dir := Dir(root)
	realDir, err := filepath.EvalSymlinks(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return dir, nil
	}
	realRoot, rerr := filepath.EvalSymlinks(root)
	if err != nil || rerr != nil {
		return "", fmt.Errorf("resolve %s: %w", dir, errors.Join(err, rerr))
	}
	if !strings.HasPrefix(realDir, realRoot+string(filepath.Separator)) {
		return "", fmt.Errorf("%s leads out of the workspace (to %s): %w", dir, realDir, ErrLeavesWorkspace)
	}
	return dir, nil
}
