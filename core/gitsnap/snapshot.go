package gitsnap

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
)

// Options tune a snapshot.
type Options struct {
	// MaxFileSize leaves untracked files larger than this many bytes out
	// of the snapshot (0: no limit), so a regenerated big file does not
	// add its size to .git every turn. They are listed in the snapshot's
	// message; Undo names them as files it cannot cover.
	MaxFileSize int64
	// Reuse is an earlier snapshot of the same Repo that the caller keeps
	// alive: when the workspace is as it was then (same tree, same large
	// files), that id is returned and no commit is written. It is how
	// consecutive commands share a snapshot when nothing changed between
	// them.
	Reuse string
}

// Snapshot records the workspace under root (tracked and untracked files,
// ignored ones excluded) as a commit and returns its id. It works in a
// repository without commits and leaves the user's HEAD, refs and index as
// they are.
func Snapshot(ctx context.Context, root, message string) (string, error) {
	return SnapshotWith(ctx, root, message, Options{})
}

// SnapshotWith is Snapshot with options.
func SnapshotWith(ctx context.Context, root, message string, opts Options) (string, error) {
	return NewRepo(root).Snapshot(ctx, message, opts)
}

// Forget deletes the refs that keep the given snapshots alive, so that git
// gc may prune them; unknown ids are ignored. All refs go in one git call.
func Forget(ctx context.Context, root string, ids ...string) error {
	return NewRepo(root).Forget(ctx, ids...)
}

func (r *repo) forget(ctx context.Context, ids []string) error {
	var in strings.Builder
	seen := map[string]bool{}
	for _, id := range ids {
		if !commitRE().MatchString(id) {
			return fmt.Errorf("invalid snapshot id %q", id)
		}
		if seen[id] {
			continue // git refuses two updates of one ref
		}
		seen[id] = true
		// No old value: deleting a ref that is already gone succeeds.
		fmt.Fprintf(&in, "delete %s%s\n", RefPrefix, id)
	}
	if _, err := r.git(ctx, runOpts{stdin: strings.NewReader(in.String())}, "update-ref", "-m", "coder-nvim forget", "--stdin"); err != nil {
		return fmt.Errorf("forget snapshots: %w", err)
	}
	return nil
}

// worktreeTree writes the tree of the workspace as it is on disk, using a
// temporary index so the user's index is not touched.
// Untracked files larger than maxSize bytes (0: no limit) are left out and
// returned. In the common case that is three git processes: ls-files for
// the large files (only with a limit), add and write-tree; what git would
// otherwise be asked about the user's index is read from it here.
func (r *repo) worktreeTree(ctx context.Context, maxSize int64) (string, []largeFile, error) {
	dir, err := os.MkdirTemp("", "coder-nvim-index-")
	if err != nil {
		return "", nil, err
	}
	defer os.RemoveAll(dir)
	idx := filepath.Join(dir, "index")
	data, err := r.seedIndex(ctx, idx)
	if err != nil {
		return "", nil, err
	}
	// Without an index nothing is tracked: nothing to fix or drop.
	var facts indexFacts
	known := true
	if data != nil {
		facts, known = scanIndex(data, r.facts.hashLen, r.prefix)
	}
	o := runOpts{env: []string{"GIT_INDEX_FILE=" + idx}}
	if !known || facts.prepare {
		if err := r.prepareIndex(ctx, o); err != nil {
			return "", nil, err
		}
	}
	large, err := r.largeUntracked(ctx, o, maxSize)
	if err != nil {
		return "", nil, err
	}
	nested, err := r.addAll(ctx, o, large)
	if err != nil {
		return "", nil, err
	}
	if !known || facts.sessions {
		if err := r.dropTracked(ctx, o, sessionsDir); err != nil {
			return "", nil, err
		}
	}
	if err := r.markNested(ctx, o, nested); err != nil {
		return "", nil, err
	}
	out, err := r.git(ctx, o, "write-tree")
	if err != nil {
		return "", nil, err
	}
	r.keepShadowIndex(idx)
	return strings.TrimSpace(string(out)), large, nil
}

// seedIndex copies the user's index to idx and returns its bytes. Only its
// stat cache matters: with it `git add -A` hashes just the files that
// changed instead of the whole workspace. The copy keeps the original's
// mtime so git's racy-entry check behaves exactly as on the original.
// Without an index (a fresh repository) idx is simply not created and the
// bytes are nil.
func (r *repo) seedIndex(ctx context.Context, idx string) ([]byte, error) {
	src := r.facts.index
	if src == "" {
		out, err := r.git(ctx, runOpts{}, "rev-parse", "--git-path", "index")
		if err != nil {
			return nil, err
		}
		src = strings.TrimSpace(string(out))
		if !filepath.IsAbs(src) {
			src = filepath.Join(r.root, src)
		}
	}
	fi, err := os.Stat(src)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read index: %w", err)
	}
	data, err := os.ReadFile(src)
	if err != nil {
		return nil, fmt.Errorf("read index: %w", err)
	}
	if err := os.WriteFile(idx, data, 0o600); err != nil {
		return nil, err
	}
	return data, os.Chtimes(idx, fi.ModTime(), fi.ModTime())
}

// prepareIndex fixes what the copy of the user's index carries that would
// make the snapshot lie or fail: assume-unchanged bits, which make `git add`
// skip the file however it changed, are cleared; conflicts outside the
// workspace root (which `git add -- .` does not resolve and write-tree
// refuses) are dropped, as nothing outside the root is compared.
func (r *repo) prepareIndex(ctx context.Context, o runOpts) error {
	lo := o
	lo.dir = r.top
	out, err := r.git(ctx, lo, "ls-files", "-v", "-z")
	if err != nil {
		return err
	}
	var assumed, unmerged strings.Builder
	seen := map[string]bool{}
	for _, rec := range splitZ(out) {
		tag, p, ok := strings.Cut(rec, " ")
		if !ok || tag == "" {
			return fmt.Errorf("unexpected ls-files output %q", rec)
		}
		switch {
		case tag[0] >= 'a' && tag[0] <= 'z':
			assumed.WriteString(p + "\x00")
		case tag == "M" && !strings.HasPrefix(p, r.prefix) && !seen[p]:
			seen[p] = true
			unmerged.WriteString(p + "\x00")
		}
	}
	for _, u := range []struct {
		flag  string
		paths string
	}{{"--no-assume-unchanged", assumed.String()}, {"--force-remove", unmerged.String()}} {
		if u.paths == "" {
			continue
		}
		uo := lo
		uo.stdin = strings.NewReader(u.paths)
		if _, err := r.git(ctx, uo, "update-index", u.flag, "-z", "--stdin"); err != nil {
			return err
		}
	}
	return nil
}

// noCommitRE is how `git add` names a nested repository that has no commit
// yet, which it cannot record as a gitlink.
var noCommitRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`error: '([^'\n]+)/' does not have a commit checked out`)
})

// vanishedRE is how `git add` names a file that went away while it ran:
// between its directory scan and its stat (fatal), or its read (an error
// that --ignore-errors turns into exit status 1).
var vanishedRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^(?:fatal: unable to stat '[^'\n]+'|error: open\("[^"\n]+"\)): No such file or directory$`)
})

// maxVanished bounds the attempts of one `git add` that files vanishing
// under it fail; each waits a little longer than the last (vanished ms),
// so that a burst of saves passes rather than meeting the next attempt
// too on a loaded machine.
const maxVanished = 16

// addAll runs `git add -A` on the workspace. Nested repositories without a
// commit make it fail; they are left out, found from the error, and their
// top-relative paths returned. --sparse lets it record files the turn
// wrote outside a sparse checkout's cone.
//
// Editors and other sessions save by writing a temporary file and renaming
// it: a file git saw in its scan may be gone when it reads it. That is no
// failure of the snapshot, which is taken again (the file is not there to
// record).
//
// The session store is excluded with a pathspec. When the ignore rules
// keep .coder (or the store) out, git add names the excluded path as
// ignored and exits 1 after adding everything else: that answer is
// success (ignoredOnly). What the index tracks there is dropped after
// (dropTracked). Large untracked files (not ignored, so safe to name) are
// excluded too.
func (r *repo) addAll(ctx context.Context, o runOpts, large []largeFile) ([]string, error) {
	var nested []string
	vanished := 0
	for range 64 + maxVanished {
		args := append([]string{"-c", "advice.addIgnoredFile=false", "add", "-A", "--sparse", "--ignore-errors", "--", "."}, excluded...)
		for _, l := range large {
			args = append(args, ":(exclude,literal)"+l.path)
		}
		for _, n := range nested {
			args = append(args, ":(exclude,top,literal)"+n)
		}
		_, err := r.git(ctx, o, args...)
		if err == nil || ignoredOnly(err) {
			return nested, nil
		}
		if ge := (*gitError)(nil); errors.As(err, &ge) && vanishedRE().MatchString(ge.stderr) && vanished < maxVanished && ctx.Err() == nil {
			vanished++
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(time.Duration(vanished) * time.Millisecond):
			}
			continue
		}
		found := noCommitRE().FindAllStringSubmatch(err.Error(), -1)
		if len(found) == 0 || ctx.Err() != nil {
			return nil, err
		}
		for _, m := range found {
			if slices.Contains(nested, m[1]) {
				return nil, err
			}
			nested = append(nested, m[1])
		}
	}
	return nil, errors.New("git add: too many nested repositories without commits")
}

// ignoredHeader starts git add's complaint about a pathspec naming an
// ignored path.
const ignoredHeader = "The following paths are ignored by one of your .gitignore files:"

// ignoredOnly reports whether err is git add saying no more than that the
// session store (or .coder) it was told to exclude is ignored.
func ignoredOnly(err error) bool {
	var ge *gitError
	if !errors.As(err, &ge) {
		return false
	}
	var exit *exec.ExitError
	if !errors.As(ge.err, &exit) || exit.ExitCode() != 1 {
		return false
	}
	lines := strings.Split(ge.stderr, "\n")
	if len(lines) < 2 || lines[0] != ignoredHeader {
		return false
	}
	for _, l := range lines[1:] {
		if l != sessionsDir && l != path.Dir(sessionsDir) && !strings.HasPrefix(l, "hint: ") {
			return false
		}
	}
	return true
}

// markNested records each nested repository without commits as a gitlink
// with a placeholder id, so that it is in the snapshot like any nested
// repository: Undo and Diff see it, and leave its files alone, even after
// the turn removed its .git.
func (r *repo) markNested(ctx context.Context, o runOpts, nested []string) error {
	if len(nested) == 0 {
		return nil
	}
	ho := o
	ho.stdin = strings.NewReader("coder-nvim: nested repository without commits\n")
	out, err := r.git(ctx, ho, "hash-object", "--stdin")
	if err != nil {
		return err
	}
	id := strings.TrimSpace(string(out))
	var in strings.Builder
	for _, n := range nested {
		fmt.Fprintf(&in, "%s %s\t%s\x00", modeGitlink, id, n)
	}
	uo := o
	uo.dir, uo.stdin = r.top, strings.NewReader(in.String())
	_, err = r.git(ctx, uo, "update-index", "-z", "--index-info")
	return err
}
