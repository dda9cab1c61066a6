package worktree

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/coder-nvim/coder-nvim/core/gitsnap"
)

// ErrNoRepository: tasks need the workspace to be in a git repository.
var ErrNoRepository = errors.New("tasks need a git repository")

// repo is the user's repository as the manager knows it.
type repo struct {
	top    string // the main work tree's top level
	prefix string // the workspace relative to top: "" or "dir/sub/"
}

// findRepo finds the repository root is in.
func findRepo(ctx context.Context, root string) (repo, error) {
	out, err := gitsnap.Git(ctx, root, nil, "rev-parse", "--show-toplevel", "--show-prefix")
	if err != nil {
		return repo{}, fmt.Errorf("%w: %s is not in one (git init, or open a repository)", ErrNoRepository, root)
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	r := repo{top: lines[0]}
	if len(lines) > 1 {
		r.prefix = lines[1]
	}
	return r, nil
}

// key names the repository in the state directory: a hash of its path
// (stable, any characters) and its name (readable).
func (r repo) key() string {
	sum := sha256.Sum256([]byte(r.top))
	return filepath.Base(r.top) + "-" + hex.EncodeToString(sum[:6])
}

// resolve names the commit ref points at.
func (r repo) resolve(ctx context.Context, ref string) (string, error) {
	if strings.HasPrefix(ref, "-") {
		return "", fmt.Errorf("--from %q: not a revision", ref)
	}
	out, err := gitsnap.Git(ctx, r.top, nil, "rev-parse", "--verify", "--quiet", "--end-of-options", ref+"^{commit}")
	if err != nil {
		if ref == "HEAD" {
			return "", errors.New("the repository has no commit yet: a task's branch starts from one (commit first)")
		}
		return "", fmt.Errorf("--from %s: no such commit", ref)
	}
	return strings.TrimSpace(string(out)), nil
}

// add makes the worktree at path on a new branch from base. Worktrees
// added at the same moment by other processes (scripts running exec
// --worktree side by side) can make git fail reading their half-written
// administrative files: it is tried again, on the branch a failed try may
// have made already.
func (r repo) add(ctx context.Context, path, branch, base string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("worktree: %w", err)
	}
	for attempt := 0; ; attempt++ {
		args := []string{"worktree", "add", "--quiet", "-b", branch, "--", path, base}
		if r.hasBranch(ctx, branch) {
			args = []string{"worktree", "add", "--quiet", "--", path, branch}
		}
		_, err := gitsnap.Git(ctx, r.top, nil, args...)
		if err == nil {
			return nil
		}
		if attempt == 4 || ctx.Err() != nil {
			return fmt.Errorf("worktree: %w", err)
		}
		os.RemoveAll(path)                                //nolint:errcheck // what the failed try left
		gitsnap.Git(ctx, r.top, nil, "worktree", "prune") //nolint:errcheck // likewise
		select {
		case <-time.After(time.Duration(20<<attempt) * time.Millisecond):
		case <-ctx.Done():
		}
	}
}

// remove deletes the worktree (with whatever it holds: the user asked)
// and its administrative files; deleteBranch also its branch.
func (r repo) remove(ctx context.Context, path, branch string, deleteBranch bool) error {
	var errs []error
	if _, err := os.Stat(path); err == nil {
		if _, err := gitsnap.Git(ctx, r.top, nil, "worktree", "remove", "--force", "--force", "--", path); err != nil {
			// git refuses a worktree it no longer knows; the files go.
			if rerr := os.RemoveAll(path); rerr != nil {
				errs = append(errs, err, rerr)
			}
		}
	}
	if _, err := gitsnap.Git(ctx, r.top, nil, "worktree", "prune"); err != nil {
		errs = append(errs, err)
	}
	if deleteBranch && branch != "" {
		if _, err := gitsnap.Git(ctx, r.top, nil, "branch", "-D", "--", branch); err != nil && r.hasBranch(ctx, branch) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func (r repo) hasBranch(ctx context.Context, branch string) bool {
	_, err := gitsnap.Git(ctx, r.top, nil, "rev-parse", "--verify", "--quiet", "refs/heads/"+branch)
	return err == nil
}

// copyFiles copies the untracked files the globs name (relative to the
// workspace, as tasks.copy gives them) from the user's workspace into the
// task's: regular files only, never out of either tree.
func copyFiles(from, to string, globs []string) ([]string, error) {
	var copied []string
	for _, g := range globs {
		if filepath.IsAbs(g) || strings.HasPrefix(filepath.Clean(g), "..") {
			return copied, fmt.Errorf("tasks.copy %q: want a pattern inside the workspace", g)
		}
		matches, err := filepath.Glob(filepath.Join(from, g))
		if err != nil {
			return copied, fmt.Errorf("tasks.copy %q: %w", g, err)
		}
		for _, m := range matches {
			rel, err := filepath.Rel(from, m)
			if err != nil || strings.HasPrefix(rel, "..") || rel == "." {
				continue
			}
			fi, err := os.Lstat(m)
			if err != nil || !fi.Mode().IsRegular() {
				continue // a symbolic link could lead anywhere
			}
			dst := filepath.Join(to, rel)
			if _, err := os.Lstat(dst); err == nil {
				continue // tracked: the checkout has it
			}
			if err := copyFile(m, dst, fi.Mode().Perm()); err != nil {
				return copied, fmt.Errorf("tasks.copy %s: %w", rel, err)
			}
			copied = append(copied, filepath.ToSlash(rel))
		}
	}
	return copied, nil
}

func copyFile(src, dst string, perm os.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// addAll stages everything in the worktree at path into the index env
// names (the worktree's own when nil) but the task's own session store.
// The store is taken out after the add: naming it in an exclude pathspec
// fails when a .gitignore already leaves it out.
func addAll(ctx context.Context, path, prefix string, env []string) error {
	if _, err := gitsnap.Git(ctx, path, env, "add", "-A", "--", ":/"); err != nil {
		return err
	}
	_, err := gitsnap.Git(ctx, path, env, "rm", "-r", "-q", "--cached", "--ignore-unmatch", "--", ":(top)"+prefix+".coder/sessions")
	return err
}

// stage runs f with a temporary index holding everything in the worktree
// at path (committed, uncommitted and untracked, ignored files and the
// session store left out). The worktree's own index is copied first so
// that git hashes only what changed; it is never written.
func stage(ctx context.Context, path, prefix string, f func(env []string) error) error {
	tmp, err := os.MkdirTemp("", "coder-task-index-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	index := filepath.Join(tmp, "index")
	if out, err := gitsnap.Git(ctx, path, nil, "rev-parse", "--path-format=absolute", "--git-path", "index"); err == nil {
		if data, err := os.ReadFile(strings.TrimSpace(string(out))); err == nil {
			if err := os.WriteFile(index, data, 0o600); err != nil {
				return err
			}
		}
	}
	env := []string{"GIT_INDEX_FILE=" + index}
	if err := addAll(ctx, path, prefix, env); err != nil {
		return fmt.Errorf("task changes: %w", err)
	}
	return f(env)
}

// changes are the task's files against its base: how many, lines added
// and removed.
func changes(ctx context.Context, path, prefix, base string) (files, added, removed int, err error) {
	err = stage(ctx, path, prefix, func(env []string) error {
		out, err := gitsnap.Git(ctx, path, env, "diff", "--cached", "--numstat", "--no-renames", base, "--")
		if err != nil {
			return fmt.Errorf("task changes: %w", err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			f := strings.Fields(line)
			if len(f) < 3 {
				continue
			}
			files++
			a, _ := strconv.Atoi(f[0]) // "-" for a binary file
			d, _ := strconv.Atoi(f[1])
			added += a
			removed += d
		}
		return nil
	})
	return files, added, removed, err
}

// diff is the task's whole change against its base as a patch (binary
// files included when binary is set, as git apply takes them).
func diff(ctx context.Context, path, prefix, base string, binary bool) (string, error) {
	var patch string
	err := stage(ctx, path, prefix, func(env []string) error {
		args := []string{"diff", "--cached", "--no-renames", "--no-color", "--no-ext-diff"}
		if binary {
			args = append(args, "--binary", "--full-index")
		}
		out, err := gitsnap.Git(ctx, path, env, append(args, base, "--")...)
		if err != nil {
			return fmt.Errorf("task diff: %w", err)
		}
		patch = string(out)
		return nil
	})
	return patch, err
}

// commitAll commits everything in the worktree (but the session store) to
// its branch; nothing to commit is no error.
func commitAll(ctx context.Context, path, prefix, message string) error {
	if err := addAll(ctx, path, prefix, nil); err != nil {
		return fmt.Errorf("commit the task: %w", err)
	}
	if _, err := gitsnap.Git(ctx, path, nil, "diff", "--cached", "--quiet"); err == nil {
		return nil
	}
	if _, err := gitsnap.Git(ctx, path, nil, "commit", "--quiet", "--no-verify", "-m", message); err != nil {
		return fmt.Errorf("commit the task: %w", err)
	}
	return nil
}
