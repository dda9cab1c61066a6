// Package atomicfile writes files whole or not at all: a temporary file in
// the same directory, flushed, then renamed over the target, so that a
// reader, a crash or a power loss never meets half a file. Unix systems get
// it from renameio; Windows from a rename that replaces (MoveFileEx).
package atomicfile

import (
	"fmt"
	"io/fs"
)

// WriteFile writes data to path atomically. A new file gets perm less the
// umask, as os.WriteFile gives it; an existing one keeps its mode.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	return write(path, data, perm, false)
}

// WriteFileMode is WriteFile, but the file gets exactly perm, umask or not:
// for a file whose mode the caller read and means to keep.
func WriteFileMode(path string, data []byte, perm fs.FileMode) error {
	return write(path, data, perm, true)
}

func write(path string, data []byte, perm fs.FileMode, static bool) error {
	f, err := create(path, perm, static)
	if err != nil {
		return err
	}
	defer f.Cleanup()
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Commit()
}
