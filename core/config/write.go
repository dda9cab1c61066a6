package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/coder-nvim/coder-nvim/core/atomicfile"
)

func writeFileAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(path), err)
	}
	if err := atomicfile.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// SetWorkspaceKey writes one top-level key into the workspace config file,
// keeping every other key, atomically. It is how `/model` persists. A file
// the user trusted (or a new one, which holds only this key) stays trusted
// with its new content; an untrusted one stays untrusted.
func SetWorkspaceKey(root, stateDir, key string, value any) error {
	path := WorkspaceFile(root)
	doc := map[string]json.RawMessage{}
	data, err := os.ReadFile(path)
	created := errors.Is(err, fs.ErrNotExist)
	keepTrust := created || err == nil && trusted(stateDir, root, data)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("read %s: %w", path, err)
	case len(bytes.TrimSpace(data)) > 0:
		if err := json.Unmarshal(data, &doc); err != nil {
			return fmt.Errorf("%s is not a JSON object, not rewriting it: %w", path, err)
		}
	}
	raw, err := json.Marshal(value)
	if err != nil {
		return fmt.Errorf("encode %s: %w", key, err)
	}
	doc[key] = raw
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	out = append(out, '\n')
	if err := writeFileAtomic(path, out); err != nil {
		return err
	}
	if created {
		// A file the host made, not the project's: like the sessions it
		// stays out of `git status` (a .gitignore the user has is kept).
		ignore := filepath.Join(filepath.Dir(path), ".gitignore")
		if _, err := os.Stat(ignore); errors.Is(err, fs.ErrNotExist) {
			_ = os.WriteFile(ignore, []byte("# made by coder-nvim: .coder/ holds this machine's state\n*\n"), 0o644)
		}
	}
	if keepTrust && stateDir != "" {
		return recordTrust(stateDir, root, out)
	}
	return nil
}
