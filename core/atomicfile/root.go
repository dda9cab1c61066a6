package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// ErrLeavesRoot is the error of a write refused because a directory on
// its path is (or was swapped for) a symbolic link leading out of the root.
var ErrLeavesRoot = errors.New("a directory on its path is a symbolic link leading out of the workspace (or was swapped for one); nothing was written through it")

// WriteFileIn writes data to name beneath root, whole or not at all: a
// temporary file in the same directory, flushed, then renamed over name.
// The directory is opened beneath root (os.Root: every component resolved
// from the root's descriptor, symbolic links only inside it), and the
// temporary file and the rename are both made in that one open directory,
// so a directory swapped for a link meanwhile can neither send the file
// elsewhere nor strand the temporary file. The file gets exactly perm. A
// final symbolic link at name is replaced, never written through.
func WriteFileIn(root *os.Root, name string, data []byte, perm fs.FileMode) error {
	dir, base := filepath.Split(name)
	if base == "" || base == "." || base == ".." {
		return fmt.Errorf("write %s: not a file name", name)
	}
	if dir != "" {
		sub, err := root.OpenRoot(dir)
		if err != nil {
			return InRootError(name, err)
		}
		defer sub.Close()
		root = sub
	}
	var (
		f   *os.File
		tmp string
		err error
	)
	for range 10 {
		tmp = "." + base + "." + strconv.FormatUint(rand.Uint64(), 36) + ".tmp"
		f, err = root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return InRootError(name, err)
	}
	committed := false
	defer func() {
		if !committed {
			f.Close()
			root.Remove(tmp) //nolint:errcheck // nothing more to do about it
		}
	}()
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	if !chmodAfterRename || perm&0o200 != 0 {
		if err := f.Chmod(perm); err != nil {
			return fmt.Errorf("write %s: %w", name, err)
		}
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := root.Rename(tmp, base); err != nil {
		return InRootError(name, err)
	}
	committed = true
	if chmodAfterRename && perm&0o200 == 0 {
		// Windows: a read-only file cannot be replaced, so only now.
		return root.Chmod(base, perm)
	}
	return nil
}

// InRootError wraps an error of an operation beneath an os.Root on name,
// naming ErrLeavesRoot when the root refused a path that escapes it, and
// what a loop error there means (a link met where a directory was, as a
// swap in progress makes it).
func InRootError(name string, err error) error {
	switch {
	case err == nil:
		return nil
	// os.Root's escape error is not exported; its text is stable.
	case strings.Contains(err.Error(), "path escapes from parent"):
		return fmt.Errorf("%s: %w", name, ErrLeavesRoot)
	case errors.Is(err, syscall.ELOOP):
		return fmt.Errorf("%s: a directory on its path is a symbolic link loop, or was swapped for a link while it was written; nothing was written through it (%w)", name, err)
	}
	return err
}
