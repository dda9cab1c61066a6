package agent

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/coder-nvim/coder-nvim/core/atomicfile"
	"github.com/coder-nvim/coder-nvim/core/export"
	"github.com/coder-nvim/coder-nvim/core/store"
)

// Export is /export [PATH|json]: the session as Markdown (core/export),
// by default in .coder/exports/; `json` copies the session file as it is
// (replayable: model, tools and messages as sent). Both follow the
// session's storage policy: they hold what its file holds.
func (c slash) Export(_ context.Context, arg string) (string, error) {
	s := c.s
	s.mu.Lock()
	snap := s.snapshotLocked()
	s.mu.Unlock()
	date := s.opts.Now().Format("2006-01-02-150405")
	if arg == "json" {
		s.save()
		s.saver.sync()
		data, err := os.ReadFile(filepath.Join(store.Dir(s.root), snap.ID+".json"))
		if err != nil {
			return "", fmt.Errorf("export: the session file: %w", err)
		}
		return writeExport(s.root, filepath.Join(".coder", "exports", snap.ID+"-"+date+".json"), data)
	}
	path := arg
	if path == "" {
		path = filepath.Join(".coder", "exports", snap.ID+"-"+date+".md")
	}
	return writeExport(s.root, path, []byte(export.Markdown(snap)))
}

// writeExport writes data whole to path (relative to root unless
// absolute) and says where.
func writeExport(root, path string, data []byte) (string, error) {
	if !filepath.IsAbs(path) {
		path = filepath.Join(root, path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", fmt.Errorf("export: %w", err)
	}
	if err := atomicfile.WriteFile(path, data, 0o644); err != nil {
		return "", fmt.Errorf("export: %w", err)
	}
	shown := path
	if rel, err := filepath.Rel(root, path); err == nil && !strings.HasPrefix(rel, "..") {
		shown = rel
	}
	return fmt.Sprintf("exported to %s (%d KB)", shown, (len(data)+1023)/1024), nil
}
