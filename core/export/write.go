package export

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/coder-nvim/coder-nvim/core/atomicfile"
	"github.com/coder-nvim/coder-nvim/core/store"
)

// Write is /export ARG for snap in workspace root: ARG "" writes the
// Markdown to .coder/exports/SESSION-DATE.md, "json" the session file as
// it is (sessionFile reads it, written whole first) beside it, any other
// ARG the Markdown to that path (relative to root unless absolute). It
// says where.
func Write(root string, snap *store.Snapshot, arg string, now time.Time, sessionFile func() ([]byte, error)) (string, error) {
	date := now.Format("2006-01-02-150405")
	if arg == "json" {
		data, err := sessionFile()
		if err != nil {
			return "", fmt.Errorf("export: the session file: %w", err)
		}
		return write(root, filepath.Join(".coder", "exports", snap.ID+"-"+date+".json"), data)
	}
	path := arg
	if path == "" {
		path = filepath.Join(".coder", "exports", snap.ID+"-"+date+".md")
	}
	return write(root, path, []byte(Markdown(snap)))
}

// write writes data whole to path (relative to root unless absolute) and
// says where.
func write(root, path string, data []byte) (string, error) {
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
