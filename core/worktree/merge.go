package worktree

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/coder-nvim/coder-nvim/core/atomicfile"
	"github.com/coder-nvim/coder-nvim/core/gitsnap"
	"github.com/coder-nvim/coder-nvim/core/review"
)

// FileChange is one file the task changed, for the hunk-by-hunk review
// of a merge: its text at the task's base and in the task now.
type FileChange struct {
	Path   string        `msgpack:"path" json:"path"`     // relative to the workspace, slash-separated
	Status string        `msgpack:"status" json:"status"` // A, M or D
	Binary bool          `msgpack:"binary" json:"binary"`
	Hunks  []review.Hunk `msgpack:"hunks" json:"hunks"`
	base   string
	task   string
}

// Changes lists what task n changed against its base, file by file.
func (m *Manager) Changes(ctx context.Context, n int) ([]FileChange, error) {
	rec, err := m.Get(n)
	if err != nil {
		return nil, err
	}
	var out []FileChange
	err = stage(ctx, rec.Path, m.repo.prefix, func(env []string) error {
		list, err := gitsnap.Git(ctx, rec.Root, env, "diff", "--cached", "--name-status", "--no-renames", "-z", "--relative", rec.Base, "--")
		if err != nil {
			return fmt.Errorf("task %d changes: %w", n, err)
		}
		f := strings.Split(strings.TrimSuffix(string(list), "\x00"), "\x00")
		for i := 0; i+1 < len(f); i += 2 {
			fc := FileChange{Status: f[i][:1], Path: f[i+1]}
			if fc.Status != "A" {
				fc.base, err = show(ctx, rec.Root, rec.Base, fc.Path)
				if err != nil {
					return err
				}
			}
			if fc.Status != "D" {
				data, err := os.ReadFile(filepath.Join(rec.Root, filepath.FromSlash(fc.Path)))
				if err != nil {
					return fmt.Errorf("task %d: %w", n, err)
				}
				fc.task = string(data)
			}
			fc.Binary = strings.ContainsRune(fc.base, 0) || strings.ContainsRune(fc.task, 0)
			if !fc.Binary {
				fc.Hunks = review.Hunks(fc.base, fc.task)
			}
			out = append(out, fc)
		}
		return nil
	})
	return out, err
}

// show is path's content at commit (relative to dir).
func show(ctx context.Context, dir, commit, path string) (string, error) {
	out, err := gitsnap.Git(ctx, dir, nil, "cat-file", "blob", commit+":./"+path)
	if err != nil {
		return "", fmt.Errorf("%s at the task's base: %w", path, err)
	}
	return string(out), nil
}

// MergeResult says what a merge did.
type MergeResult struct {
	Applied   []string `msgpack:"applied" json:"applied"`     // written to the user's working tree
	Conflicts []string `msgpack:"conflicts" json:"conflicts"` // left with conflict markers (or a .task-N copy beside)
	Skipped   []string `msgpack:"skipped" json:"skipped"`     // every hunk rejected
	// LeftOut are the hunks the review rejected, as "path:line: reason";
	// Told says the task's model is told of them with its next input.
	LeftOut []string `msgpack:"left_out" json:"left_out"`
	Told    bool     `msgpack:"told" json:"told"`
}

// Summary is the result in one line.
func (r MergeResult) Summary() string {
	s := fmt.Sprintf("%d files applied", len(r.Applied))
	if len(r.Conflicts) > 0 {
		s += fmt.Sprintf(", %d with conflicts: %s (both sides kept, resolve the markers)", len(r.Conflicts), strings.Join(r.Conflicts, ", "))
	}
	if len(r.Skipped) > 0 {
		s += fmt.Sprintf(", %d rejected", len(r.Skipped))
	}
	if len(r.LeftOut) > 0 {
		word := "hunks"
		if len(r.LeftOut) == 1 {
			word = "hunk"
		}
		s += fmt.Sprintf(", %d %s left out (%s)", len(r.LeftOut), word, strings.Join(r.LeftOut, "; "))
		if r.Told {
			s += ", which the task is told with your next message to it"
		}
	}
	return s
}

// Apply writes task n's changes into the user's working tree as
// uncommitted changes: per file, the hunks accepted (all of a file not
// named) on the task's base, merged with what the user's file holds now.
// A user edit since the task started that overlaps is left as a
// conflict with markers (both sides kept); a file the user removed or
// added meanwhile gets the task's version beside it as <path>.task-<n>.
func (m *Manager) Apply(ctx context.Context, n int, accepted map[string][]bool) (MergeResult, error) {
	var res MergeResult
	files, err := m.Changes(ctx, n)
	if err != nil {
		return res, err
	}
	u := &undoLog{}
	defer func() {
		m.mu.Lock()
		if m.undo == nil {
			m.undo = map[int]*undoLog{}
		}
		m.undo[n] = u // also a merge cut short by an error can be taken back
		m.mu.Unlock()
		m.recs.saveUndo(n, u) //nolint:errcheck // the one in memory serves this host
	}()
	for _, fc := range files {
		theirs := fc.task
		if choice, ok := accepted[fc.Path]; ok && !fc.Binary {
			if theirs, err = review.Apply(fc.base, fc.task, choice); err != nil {
				return res, fmt.Errorf("%s: %w", fc.Path, err)
			}
			if theirs == fc.base {
				res.Skipped = append(res.Skipped, fc.Path)
				continue
			}
		}
		conflict, err := m.mergeFile(ctx, u, n, fc, theirs)
		if err != nil {
			return res, fmt.Errorf("%s: %w", fc.Path, err)
		}
		if conflict {
			res.Conflicts = append(res.Conflicts, fc.Path)
		} else {
			res.Applied = append(res.Applied, fc.Path)
		}
	}
	if len(res.Applied)+len(res.Conflicts) > 0 {
		m.markMerged(n) // the work is in the user's tree now
	}
	return res, nil
}

// mergeFile brings one file's task version (theirs) into the user's tree.
func (m *Manager) mergeFile(ctx context.Context, u *undoLog, n int, fc FileChange, theirs string) (conflict bool, err error) {
	// Every write into the user's tree goes beneath it (os.Root): a
	// directory that links out is refused, never written through.
	root, err := os.OpenRoot(m.opts.Root)
	if err != nil {
		return false, err
	}
	defer root.Close()
	rel := filepath.FromSlash(fc.Path)
	write := func(name, text string) error { return u.write(root, name, text) }
	dst := filepath.Join(m.opts.Root, rel)
	data, rerr := os.ReadFile(dst)
	exists := rerr == nil
	if rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
		return false, rerr
	}
	ours := string(data)
	switch {
	case fc.Status == "D" && theirs == "":
		if !exists {
			return false, nil
		}
		if ours == fc.base {
			return false, u.remove(root, rel)
		}
		return true, nil // the user changed what the task removes: kept, reported
	case !exists && fc.Status == "A":
		return false, write(rel, theirs)
	case exists && ours == theirs:
		return false, nil
	case exists && fc.Status != "A" && ours == fc.base:
		return false, write(rel, theirs)
	case !exists || fc.Status == "A" || fc.Binary:
		// Nothing to merge line by line: the task's version goes beside.
		return true, write(fmt.Sprintf("%s.task-%d", rel, n), theirs)
	}
	merged, clean, err := merge3(ctx, m.git, ours, fc.base, theirs, n)
	if err != nil {
		return false, err
	}
	return !clean, write(rel, merged)
}

// writeIn writes text to name beneath root, its directories made, its
// mode kept.
func writeIn(root *os.Root, name, text string) error {
	if dir := filepath.Dir(name); dir != "." {
		if err := root.MkdirAll(dir, 0o755); err != nil {
			return atomicfile.InRootError(name, err)
		}
	}
	perm := os.FileMode(0o644)
	if fi, err := root.Stat(name); err == nil {
		perm = fi.Mode().Perm()
	}
	return atomicfile.WriteFileIn(root, name, []byte(text), perm)
}

// merge3 merges base→theirs into ours with git merge-file (no repository
// needed, nothing configured runs); clean is false when markers were left.
func merge3(ctx context.Context, git, ours, base, theirs string, n int) (merged string, clean bool, err error) {
	dir, err := os.MkdirTemp("", "coder-task-merge-")
	if err != nil {
		return "", false, err
	}
	defer os.RemoveAll(dir)
	names := []string{"ours", "base", "theirs"}
	for i, text := range []string{ours, base, theirs} {
		if err := os.WriteFile(filepath.Join(dir, names[i]), []byte(text), 0o600); err != nil {
			return "", false, err
		}
	}
	cmd := exec.CommandContext(ctx, git, "merge-file", "-p", "-L", "yours", "-L", "task base", "-L", fmt.Sprintf("task %d", n), "ours", "base", "theirs")
	cmd.Dir = dir
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return out.String(), true, nil
	case errors.As(err, &exit) && exit.ExitCode() > 0 && exit.ExitCode() < 128:
		return out.String(), false, nil // the number of conflicts
	}
	return "", false, fmt.Errorf("git merge-file: %v %s", err, strings.TrimSpace(stderr.String()))
}

// MergeBranch commits what the task's worktree holds to its branch and
// merges the branch into the user's current branch (git merge --no-ff).
// Git refuses when the user's uncommitted changes would be overwritten;
// conflicts stay for the user to resolve, as git leaves them, never
// resolved here. Merge drivers a repository configures are replaced by
// git's own text merge (they would run the repository's program).
func (m *Manager) MergeBranch(ctx context.Context, n int) (MergeResult, error) {
	var res MergeResult
	rec, err := m.Get(n)
	if err != nil {
		return res, err
	}
	if rec.State.Active() {
		return res, fmt.Errorf("task %d is still at work: stop it or wait, then merge", n)
	}
	if err := commitAll(ctx, rec.Path, m.repo.prefix, fmt.Sprintf("coder task %d: %s", n, rec.Title)); err != nil {
		return res, err
	}
	args := append(mergeDriverGuard(ctx, m.repo.top), "merge", "--no-ff", "--no-edit", "-m", fmt.Sprintf("Merge coder task %d: %s", n, rec.Title), "--", rec.Branch)
	_, merr := gitsnap.Git(ctx, m.repo.top, nil, args...)
	out, _ := gitsnap.Git(ctx, m.repo.top, nil, "diff", "--name-only", "--diff-filter=U", "-z")
	for _, p := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		if p != "" {
			res.Conflicts = append(res.Conflicts, p)
		}
	}
	if merr != nil && len(res.Conflicts) == 0 {
		return res, fmt.Errorf("merge task %d: %w", n, merr)
	}
	if len(res.Conflicts) == 0 {
		m.markMerged(n)
	}
	return res, nil
}

// mergeDriverGuard replaces each configured merge driver by git's text
// merge: a driver is a program the repository's config names.
func mergeDriverGuard(ctx context.Context, dir string) []string {
	out, err := gitsnap.Git(ctx, dir, nil, "config", "--null", "--name-only", "--get-regexp", `^merge\..*\.driver$`)
	if err != nil {
		return nil
	}
	var guard []string
	for _, key := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		if key != "" {
			guard = append(guard, "-c", key+"=git merge-file --marker-size=%L %A %O %B")
		}
	}
	return guard
}

// markMerged records that task n's work reached the user's tree.
func (m *Manager) markMerged(n int) { m.setMerged(n, true) }

// setMerged records whether task n's work is in the user's tree.
func (m *Manager) setMerged(n int, merged bool) {
	m.updateRecord(n, func(r *Record) { r.Merged = merged })
}

// updateRecord changes task n's record with change and saves it: the live
// one when the task is live (its session may change it too), else the
// one on disk. It reports whether there was one.
func (m *Manager) updateRecord(n int, change func(*Record)) bool {
	m.mu.Lock()
	if l := m.live[n]; l != nil {
		change(&l.rec)
		rec := l.rec
		m.mu.Unlock()
		m.saveRecord(rec)
		return true
	}
	m.mu.Unlock()
	rec, err := m.Get(n)
	if err != nil {
		return false
	}
	change(&rec)
	m.saveRecord(rec)
	return true
}
