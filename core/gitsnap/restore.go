package gitsnap

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/coder-nvim/coder-nvim/core/atomicfile"
)

// Undo's writes. Each is done beneath r.disk, the workspace root opened
// as an os.Root: every directory on the way is opened from the root's
// descriptor, so a directory that a process swaps for a link out of the
// workspace between undo's checks and its write refuses the write instead
// of leading it outside (nothing is ever written there). linkedParent
// still refuses links seen before, with its own reason.

// sweepDirs removes the directories removals emptied, deepest first, so
// parents empty out after their children went. dirs are slash paths
// relative to the root.
func (r *repo) sweepDirs(dirs map[string]bool) {
	dirList := make([]string, 0, len(dirs))
	for d := range dirs {
		dirList = append(dirList, d)
	}
	slices.SortFunc(dirList, func(a, b string) int {
		return strings.Count(b, "/") - strings.Count(a, "/")
	})
	for _, d := range dirList {
		r.disk.Remove(filepath.FromSlash(d)) //nolint:errcheck // fails, as wanted, when the directory still holds anything
	}
}

// remove deletes a file the turn created and notes its parent directories
// in dirs for the empty-directory sweep.
func (r *repo) remove(e rawEntry, rep *Report, dirs map[string]bool) {
	if link := r.linkedParent(e.path); link != "" {
		rep.skip(e.path, linkReason(link))
		return
	}
	err := r.disk.Remove(filepath.FromSlash(e.path))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		rep.skip(e.path, fmt.Sprintf("could not remove it: %v", atomicfile.InRootError(e.path, err)))
		return
	}
	rep.Removed = append(rep.Removed, e.path)
	for d := path.Dir(e.path); d != "." && d != "/"; d = path.Dir(d) {
		dirs[d] = true
	}
}

// restore writes the before side of e to disk.
func (r *repo) restore(ctx context.Context, e rawEntry) error {
	name := filepath.FromSlash(e.path)
	dir := filepath.Dir(name)
	if link := r.linkedParent(e.path); link != "" {
		return errors.New(linkReason(link))
	}
	if fi, err := r.disk.Lstat(name); err == nil && fi.IsDir() {
		if err := r.disk.Remove(name); err != nil {
			return errors.New("a directory that is not empty is now in its place")
		}
	}
	if dir != "." {
		if err := r.disk.MkdirAll(dir, 0o777); err != nil {
			return fmt.Errorf("could not create its directory: %w", atomicfile.InRootError(e.path, err))
		}
	}
	switch e.oldMode {
	case modeSymlink:
		return r.restoreLink(ctx, e, name)
	case modeFile, modeExec:
	default:
		return fmt.Errorf("unsupported file mode %s in the snapshot", e.oldMode)
	}
	// --filters applies the checkout conversions (eol, smudge such as LFS),
	// the inverse of what `git add` did when the snapshot was taken.
	data, err := r.git(ctx, runOpts{}, "cat-file", "--filters", "--path="+r.prefix+e.path, e.oldID)
	if err != nil {
		return fmt.Errorf("could not read it from the snapshot: %w", err)
	}
	perm := os.FileMode(0o644)
	if e.oldMode == modeExec {
		perm = 0o755
	}
	// A file still there keeps its permissions (a private 0600 file stays
	// private); only the executable bit is the snapshot's, where git
	// tracks it.
	if fi, err := r.disk.Lstat(name); err == nil && fi.Mode().IsRegular() {
		cur := fi.Mode().Perm()
		switch {
		case !r.fileMode:
			perm = cur
		case e.oldMode == modeExec:
			perm = cur | (cur&0o444)>>2
		default:
			perm = cur &^ 0o111
		}
	}
	// A temporary file and a rename: a failure never leaves half a file,
	// and a link now at the path is replaced, not written through.
	if err := atomicfile.WriteFileIn(r.disk, name, data, perm); err != nil {
		return fmt.Errorf("could not write it: %w", err)
	}
	return nil
}

// restoreLink puts the snapshot's symbolic link back at name: made under
// a temporary name, then renamed over whatever is there.
func (r *repo) restoreLink(ctx context.Context, e rawEntry, name string) error {
	target, err := r.git(ctx, runOpts{}, "cat-file", "blob", e.oldID)
	if err != nil {
		return fmt.Errorf("could not read it from the snapshot: %w", err)
	}
	tmp := filepath.Join(filepath.Dir(name), ".coder-undo-link-"+filepath.Base(name))
	r.disk.Remove(tmp) //nolint:errcheck // a leftover of an earlier try, if any
	if err := r.disk.Symlink(string(target), tmp); err != nil {
		return fmt.Errorf("could not restore the link: %w", atomicfile.InRootError(e.path, err))
	}
	if err := r.disk.Rename(tmp, name); err != nil {
		r.disk.Remove(tmp) //nolint:errcheck // the link stays as it was
		return fmt.Errorf("could not restore the link: %w", atomicfile.InRootError(e.path, err))
	}
	return nil
}
