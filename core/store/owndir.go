package store

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
)

// ErrLeavesWorkspace is the error of a sessions directory that leads out
// of its workspace.
var ErrLeavesWorkspace = errors.New("sessions are not saved, listed, resumed or deleted through it")

// WorkspaceDir is Dir(root) when it stays inside the workspace. A
// sessions directory whose real path leads out of it (a .coder or
// .coder/sessions link a repository shipped) is refused: sessions are
// neither saved, listed, resumed nor deleted through it. One that does
// not exist holds nothing and passes, unless .coder leads out.
func WorkspaceDir(root string) (string, error) {
	dir := Dir(root)
	return dir, staysInside(dir, root)
}

// staysInside refuses the sessions directory dir of workspace root when
// the real path of dir, as far as it exists, leads out of root's.
func staysInside(dir, root string) error {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return fmt.Errorf("resolve %s: %w", root, err)
	}
	realDir, err := realExisting(dir)
	if err != nil {
		return fmt.Errorf("resolve %s: %w", dir, err)
	}
	if rel, err := filepath.Rel(realRoot, realDir); err != nil || rel == "." || !filepath.IsLocal(rel) {
		return fmt.Errorf("%s leads out of the workspace (to %s): %w", dir, realDir, ErrLeavesWorkspace)
	}
	return nil
}

// realExisting is p with its links resolved as far as it exists.
func realExisting(p string) (string, error) {
	r, err := filepath.EvalSymlinks(p)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return r, err
	}
	parent := filepath.Dir(p)
	if parent == p {
		return p, nil
	}
	r, err = realExisting(parent)
	return filepath.Join(r, filepath.Base(p)), err
}

// ownDir refuses a sessions directory made by Dir that leads out of its
// workspace, before anything is written through it.
func ownDir(dir string) error {
	return staysInside(dir, filepath.Dir(filepath.Dir(dir)))
}
