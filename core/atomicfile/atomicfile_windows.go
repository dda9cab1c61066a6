package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
)

// Pending is a file being written; Commit puts it in place, Cleanup
// drops it unless committed.
type Pending struct {
	f    *os.File
	path string
	perm fs.FileMode
	done bool
}

// Create starts a pending file for path. Windows keeps no Unix mode beyond
// read-only, which perm decides.
func Create(path string, perm fs.FileMode) (*Pending, error) {
	return create(path, perm, false)
}

func create(path string, perm fs.FileMode, _ bool) (*Pending, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return nil, err
	}
	return &Pending{f: f, path: path, perm: perm}, nil
}

func (p *Pending) Write(b []byte) (int, error) { return p.f.Write(b) }

// Commit flushes the file and renames it over its path: os.Rename is
// MoveFileEx with MOVEFILE_REPLACE_EXISTING.
func (p *Pending) Commit() error {
	if err := p.f.Sync(); err != nil {
		return err
	}
	if err := p.f.Close(); err != nil {
		return err
	}
	if err := os.Rename(p.f.Name(), p.path); err != nil {
		return err
	}
	p.done = true
	if p.perm&0o200 == 0 {
		// Only now: a read-only file cannot be replaced.
		return os.Chmod(p.path, p.perm)
	}
	return nil
}

// Cleanup removes the file unless it was committed.
func (p *Pending) Cleanup() {
	if p.done {
		return
	}
	p.f.Close()
	os.Remove(p.f.Name())
}

// SyncDir does nothing: Windows has no flush for a directory (NTFS journals
// its entries), and FlushFileBuffers on a directory handle is refused.
func SyncDir(string) error { return nil }

// chmodAfterRename: a read-only file cannot be replaced on Windows, so a
// read-only mode is set only once the file is in place.
const chmodAfterRename = true
