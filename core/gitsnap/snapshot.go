package gitsnap

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Snapshot records the workspace under root (tracked and untracked files,
// ignored ones excluded) as a commit and returns its id. It works in a
// repository without commits and leaves the user's HEAD, refs and index as
// they are.
func Snapshot(ctx context.Context, root, message string) (string, error) {
	r, err := open(ctx, root)
	if err != nil {
		return "", err
	}
	tree, err := r.worktreeTree(ctx)
	if err != nil {
		return "", fmt.Errorf("snapshot %s: %w", r.root, err)
	}
	if strings.TrimSpace(message) == "" {
		message = "coder-nvim snapshot"
	}
	out, err := r.git(ctx, runOpts{stdin: strings.NewReader(message)}, "commit-tree", "--no-gpg-sign", tree)
	if err != nil {
		return "", fmt.Errorf("snapshot %s: %w", r.root, err)
	}
	id := strings.TrimSpace(string(out))
	if _, err := r.git(ctx, runOpts{}, "update-ref", "-m", "coder-nvim snapshot", RefPrefix+id, id); err != nil {
		return "", fmt.Errorf("snapshot %s: keep %s: %w", r.root, id, err)
	}
	return id, nil
}

// Forget deletes the refs that keep the given snapshots alive, so that git
// gc may prune them; unknown ids are ignored.
func Forget(ctx context.Context, root string, ids ...string) error {
	r, err := open(ctx, root)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if !commitRE.MatchString(id) {
			return fmt.Errorf("invalid snapshot id %q", id)
		}
		if _, err := r.git(ctx, runOpts{}, "update-ref", "-d", RefPrefix+id); err != nil {
			return fmt.Errorf("forget snapshot %s: %w", id, err)
		}
	}
	return nil
}

// worktreeTree writes the tree of the workspace as it is on disk, using a
// temporary index so the user's index is not touched.
func (r *repo) worktreeTree(ctx context.Context) (string, error) {
	dir, err := os.MkdirTemp("", "coder-nvim-index-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	idx := filepath.Join(dir, "index")
	if err := r.seedIndex(ctx, idx); err != nil {
		return "", err
	}
	o := runOpts{env: []string{"GIT_INDEX_FILE=" + idx}}
	args := append([]string{"add", "-A", "--", "."}, excluded...)
	if _, err := r.git(ctx, o, args...); err != nil {
		return "", err
	}
	out, err := r.git(ctx, o, "write-tree")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// seedIndex copies the user's index to idx. Only its stat cache matters:
// with it `git add -A` hashes just the files that changed instead of the
// whole workspace. The copy keeps the original's mtime so git's racy-entry
// check behaves exactly as on the original. Without an index (a fresh
// repository) idx is simply not created.
func (r *repo) seedIndex(ctx context.Context, idx string) error {
	out, err := r.git(ctx, runOpts{}, "rev-parse", "--git-path", "index")
	if err != nil {
		return err
	}
	src := strings.TrimSpace(string(out))
	if !filepath.IsAbs(src) {
		src = filepath.Join(r.root, src)
	}
	fi, err := os.Stat(src)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read index: %w", err)
	}
	data, err := os.ReadFile(src)
	if err != nil {
		return fmt.Errorf("read index: %w", err)
	}
	if err := os.WriteFile(idx, data, 0o600); err != nil {
		return err
	}
	return os.Chtimes(idx, fi.ModTime(), fi.ModTime())
}
