package agent

import (
	"context"
	"os"
	"path/filepath"

	"github.com/coder-nvim/coder-nvim/core/export"
	"github.com/coder-nvim/coder-nvim/core/store"
)

// Export is /export [PATH|json] (core/export): it holds what the
// session's file holds, so it follows the session's storage policy.
func (c slash) Export(_ context.Context, arg string) (string, error) {
	s := c.s
	s.mu.Lock()
	snap := s.snapshotLocked()
	s.mu.Unlock()
	return export.Write(s.root, snap, arg, s.opts.Now(), func() ([]byte, error) {
		s.save()
		s.saver.sync()
		return os.ReadFile(filepath.Join(store.Dir(s.root), snap.ID+".json"))
	})
}
