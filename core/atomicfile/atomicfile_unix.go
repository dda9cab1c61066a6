//go:build !windows

package atomicfile

import (
	"io/fs"
	"os"

	"github.com/google/renameio/v2"
)

// Pending is a file being written; Commit puts it in place, Cleanup
// drops it unless committed.
type Pending struct{ f *renameio.PendingFile }

// Create starts a pending file for path: perm less the umask for a new
// file, an existing file's mode kept.
func Create(path string, perm fs.FileMode) (*Pending, error) {
	return create(path, perm, false)
}

func create(path string, perm fs.FileMode, static bool) (*Pending, error) {
	opts := []renameio.Option{renameio.WithPermissions(perm), renameio.WithExistingPermissions()}
	if static {
		opts = []renameio.Option{renameio.WithStaticPermissions(perm)}
	}
	f, err := renameio.NewPendingFile(path, opts...)
	if err != nil {
		return nil, err
	}
	return &Pending{f}, nil
}

func (p *Pending) Write(b []byte) (int, error) { return p.f.Write(b) }

// Commit flushes the file and renames it over its path.
func (p *Pending) Commit() error { return p.f.CloseAtomicallyReplace() }

// Cleanup removes the file unless it was committed.
func (p *Pending) Cleanup() { p.f.Cleanup() } //nolint:errcheck // nothing left to do about it

// SyncDir flushes dir's entries (a rename, a new file) to stable storage.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// chmodAfterRename: Unix sets the mode on the temporary file, before it
// replaces the target.
const chmodAfterRename = false
