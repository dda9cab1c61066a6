package export

import (
	"fmt"
	"os"
	"path/filepath"
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
// says where. A path in the workspace is written beneath an os.Root of
// it: a directory on the way swapped for a link (a confined command may
// leave .coder/exports a link to ~/.config/…) is refused, never followed
// out. An absolute path outside the workspace is the user's own choice.
func write(root, path string, data []byte) (string, error) {
	rel := path
	if filepath.IsAbs(path) {
		rel = ""
		if r, err := filepath.Rel(root, path); err == nil && filepath.IsLocal(r) {
			rel = r
		}
	} else if !filepath.IsLocal(path) {
		rel = "" // ../x: outside the workspace, as typed
		path = filepath.Join(root, path)
	}
	if rel == "" {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return "", fmt.Errorf("export: %w", err)
		}
		if err := atomicfile.WriteFile(path, data, 0o644); err != nil {
			return "", fmt.Errorf("export: %w", err)
		}
		return fmt.Sprintf("exported to %s (%d KB)", path, kb(data)), nil
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return "", fmt.Errorf("export: %w", err)
	}
	defer r.Close()
	if dir := filepath.Dir(rel); dir != "." {
		if err := r.MkdirAll(dir, 0o755); err != nil {
			return "", fmt.Errorf("export: %w", atomicfile.InRootError(rel, err))
		}
	}
	if err := atomicfile.WriteFileIn(r, rel, data, 0o644); err != nil {
		return "", fmt.Errorf("export: %w", err)
	}
	return fmt.Sprintf("exported to %s (%d KB)", filepath.ToSlash(rel), kb(data)), nil
}

func kb(data []byte) int { return (len(data) + 1023) / 1024 }
