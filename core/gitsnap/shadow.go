package gitsnap

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Checkpoints outside git: a workspace in no git work tree is snapshotted
// into a shadow repository of its own under a directory of the host's
// (the state dir), keyed by the workspace's real path. git runs with
// GIT_DIR and GIT_WORK_TREE set, so nothing is ever written into the
// workspace (no .git); snapshots, /undo and /diff are the same code.

// ShadowDir is the shadow repository of workspace root under base.
func ShadowDir(base, root string) (string, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	sum := sha256.Sum256([]byte(abs))
	// The base name first, for a person looking at the directory.
	name := strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '_'
	}, filepath.Base(abs))
	return filepath.Join(base, "checkpoints", name+"-"+hex.EncodeToString(sum[:8])), nil
}

// shadowEnv points git at shadow repository dir with work tree root.
func shadowEnv(dir, root string) []string {
	return []string{"GIT_DIR=" + dir, "GIT_WORK_TREE=" + root}
}

// openShadow opens (creating it the first time) root's shadow repository
// under base.
func openShadow(ctx context.Context, prog gitProg, base, root string) (*repo, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	dir, err := ShadowDir(base, abs)
	if err != nil {
		return nil, err
	}
	if home, err := os.UserHomeDir(); err == nil && filepath.Clean(home) == abs || abs == filepath.VolumeName(abs)+string(filepath.Separator) {
		// Every file under it would be read at each snapshot.
		return nil, fmt.Errorf("%s is not inside a git repository, and checkpoints outside git are not kept for your home directory or a file system root: open a project directory", abs)
	}
	env := shadowEnv(dir, abs)
	if _, err := os.Stat(filepath.Join(dir, "HEAD")); errors.Is(err, os.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("checkpoints outside git: %w", err)
		}
		// No template: no sample hooks, nothing but the repository.
		if _, err := run(ctx, prog, abs, runOpts{env: env}, "init", "-q", "--template="); err != nil {
			return nil, fmt.Errorf("checkpoints outside git: create %s: %w", dir, err)
		}
	}
	r, err := openEnv(ctx, prog, abs, env)
	if err != nil {
		return nil, fmt.Errorf("checkpoints outside git (%s): %w", dir, err)
	}
	return r, nil
}

// shadowBaseline makes snapshot id the shadow repository's HEAD when it
// has none yet: /diff then shows what changed since the first snapshot
// of the workspace, as it shows a git workspace's changes since HEAD.
func (r *repo) shadowBaseline(ctx context.Context, id string) error {
	if r.env == nil {
		return nil
	}
	if _, err := r.git(ctx, runOpts{}, "rev-parse", "--verify", "--quiet", "HEAD"); err == nil {
		return nil
	}
	_, err := r.git(ctx, runOpts{}, "update-ref", "-m", "coder-nvim: baseline", "HEAD", id)
	return err
}

// Mode says where the workspace's snapshots go: "git" (its repository),
// "shadow DIR" (a shadow repository, outside git), or why there are none.
func (g *Repo) Mode(ctx context.Context) (string, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	r, err := g.open(ctx)
	if err != nil {
		return "", err
	}
	if r.env != nil {
		return "shadow " + strings.TrimPrefix(r.env[0], "GIT_DIR="), nil
	}
	return "git", nil
}

// keepShadowIndex makes the index a snapshot built (idx) the shadow
// repository's own, so the next snapshot's `git add` hashes only what
// changed since. Only in a shadow repository, where that index is no
// one else's; best effort (without it a snapshot hashes every file).
func (r *repo) keepShadowIndex(idx string) {
	if r.env == nil || r.facts.index == "" {
		return
	}
	data, err := os.ReadFile(idx)
	if err != nil {
		return
	}
	fi, err := os.Stat(idx)
	if err != nil {
		return
	}
	tmp := r.facts.index + ".coder-nvim.tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return
	}
	// Its mtime, for git's racy-entry check, as seedIndex keeps it.
	if os.Chtimes(tmp, fi.ModTime(), fi.ModTime()) != nil || os.Rename(tmp, r.facts.index) != nil {
		os.Remove(tmp)
	}
}
