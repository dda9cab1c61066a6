package config

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/coder-nvim/coder-nvim/core/atomicfile"
)

// A workspace's own .coder/config.json arrives with the repository: until
// the user trusts it, it may only narrow what the user's settings allow.
// Trust is recorded per workspace path and per the hash of the file's
// content and of the workspace files it names to run (trustexec.go) in
// the user's state directory, so any later change to them (by the model,
// an MCP tool, git pull) makes it untrusted again.

// StateDir is the user's state directory for coder-nvim
// ($XDG_STATE_HOME/coder-nvim, else ~/.local/state/coder-nvim); "" when
// neither is known.
func StateDir(getenv func(string) string) string {
	dir := getenv("XDG_STATE_HOME")
	if dir == "" {
		home := getenv("HOME")
		if home == "" {
			return ""
		}
		dir = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(dir, "coder-nvim")
}

// trustFile maps workspace paths to the sha256 of the config file the user
// trusted there.
func trustFile(stateDir string) string { return filepath.Join(stateDir, "trusted-workspaces.json") }

// workspaceKey is the path trust is recorded under: absolute, links
// resolved, so two spellings of one directory share one record.
func workspaceKey(root string) string {
	abs, err := filepath.Abs(root)
	if err != nil {
		abs = root
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	return abs
}

func fileHash(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

func readTrust(stateDir string) (map[string]string, error) {
	recs := map[string]string{}
	if stateDir == "" {
		return recs, nil
	}
	data, err := os.ReadFile(trustFile(stateDir))
	if errors.Is(err, fs.ErrNotExist) {
		return recs, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", trustFile(stateDir), err)
	}
	if err := json.Unmarshal(data, &recs); err != nil {
		// A damaged record trusts nothing; the user trusts again.
		return map[string]string{}, nil
	}
	return recs, nil
}

func writeTrust(stateDir string, recs map[string]string) error {
	if stateDir == "" {
		return errors.New("no state directory: set XDG_STATE_HOME or HOME")
	}
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", stateDir, err)
	}
	data, err := json.MarshalIndent(recs, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(trustFile(stateDir), append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("write %s: %w", trustFile(stateDir), err)
	}
	return nil
}

// trusted reports whether the user trusted exactly this content of root's
// workspace file.
func trusted(stateDir, root string, data []byte) bool {
	recs, err := readTrust(stateDir)
	if err != nil {
		return false
	}
	h, ok := recs[workspaceKey(root)]
	return ok && h == trustHash(root, data)
}

// TrustWorkspace records the user's trust in root's workspace file as it
// is now. It returns the file's contents (nil when there is none: then
// nothing is recorded).
func TrustWorkspace(root string, getenv func(string) string) ([]byte, error) {
	data, err := os.ReadFile(WorkspaceFile(root))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return data, recordTrust(StateDir(getenv), root, data)
}

// ErrChangedSinceShown refuses a trust decision made on content the file
// no longer has.
var ErrChangedSinceShown = errors.New("the file changed since it was shown; look at it again")

// TrustShown records the user's trust in root's workspace file only if it
// still has the content whose hash (Workspace.Hash) the user was shown:
// trust binds to the bytes reviewed, not to those present at the keypress.
func TrustShown(root string, getenv func(string) string, shown string) error {
	data, err := os.ReadFile(WorkspaceFile(root))
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: %w", WorkspaceFile(root), ErrChangedSinceShown)
	}
	if err != nil {
		return err
	}
	if shown == "" || trustHash(root, data) != shown {
		return fmt.Errorf("%s: %w", WorkspaceFile(root), ErrChangedSinceShown)
	}
	return recordTrust(StateDir(getenv), root, data)
}

func recordTrust(stateDir, root string, data []byte) error {
	recs, err := readTrust(stateDir)
	if err != nil {
		return err
	}
	recs[workspaceKey(root)] = trustHash(root, data)
	return writeTrust(stateDir, recs)
}

// RevokeTrust forgets the user's trust in root's workspace file.
func RevokeTrust(root string, getenv func(string) string) error {
	stateDir := StateDir(getenv)
	recs, err := readTrust(stateDir)
	if err != nil {
		return err
	}
	if _, ok := recs[workspaceKey(root)]; !ok {
		return nil
	}
	delete(recs, workspaceKey(root))
	return writeTrust(stateDir, recs)
}
