package gitsnap

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// Git tree entry modes.
const (
	modeNone    = "000000"
	modeFile    = "100644"
	modeExec    = "100755"
	modeSymlink = "120000"
	modeGitlink = "160000"
)

// fileState is what is on disk at a path now.
type fileState int

const (
	stAbsent fileState = iota
	stFile
	stSymlink
	stDir
	stOther
)

// Undo puts the files that changed between snapshots before and after back
// to their state in before: modified files are restored, created files
// removed (with directories that become empty), deleted files restored; a
// move is both. Contents are written byte for byte through git's own
// checkout filters, with the executable bit of the snapshot.
//
// A file whose current state differs from after was changed by someone else
// after the turn; it is left alone and listed in Report.Skipped with the
// reason. Failures on single files are reported the same way; the error is
// for failures that stop the whole undo.
func Undo(ctx context.Context, root, before, after string) (Report, error) {
	return undo(ctx, root, before, after, nil)
}

// undo is Undo, limited to the files in own when own is not nil.
func undo(ctx context.Context, root, before, after string, own []Owned) (Report, error) {
	return NewRepo(root).undo(ctx, before, after, own)
}

func (r *repo) undo(ctx context.Context, before, after string, own []Owned) (Report, error) {
	rep := Report{SkipReasons: map[string]string{}}
	entries, err := r.undoEntries(ctx, before, after, own, &rep)
	if err != nil {
		return rep, err
	}

	// Without core.fileMode git does not track the executable bit, and
	// the snapshots' modes say nothing about the disk.
	out, err := r.git(ctx, runOpts{}, "config", "--type=bool", "--default=true", "core.fileMode")
	if err != nil {
		return rep, fmt.Errorf("undo: %w", err)
	}
	r.fileMode = strings.TrimSpace(string(out)) == "true"
	if r.disk, err = os.OpenRoot(r.root); err != nil {
		return rep, fmt.Errorf("undo: %w", err)
	}
	defer func() { r.disk.Close(); r.disk = nil }()

	// Decide everything before changing anything.
	removals, restores, err := r.plan(ctx, entries, &rep)
	if err != nil {
		return rep, err
	}
	dirs := map[string]bool{} // parents of removed files, swept when empty
	removals, restores = r.undoIgnoreRules(ctx, removals, restores, &rep, dirs)

	// Removals next: a path the turn turned from a file into a directory
	// (or back) must be cleared before the old one is restored.
	for _, e := range removals {
		r.remove(e, &rep, dirs)
	}
	r.sweepDirs(dirs)
	for _, e := range restores {
		r.restoreReport(ctx, e, &rep)
	}
	for _, l := range [][]string{rep.Restored, rep.Removed, rep.Skipped, rep.Others, rep.TooLarge} {
		slices.Sort(l)
	}
	return rep, nil
}

// undoEntries lists what changed between before and after that undo may
// touch: only own's files when own is not nil, and none whose content
// before the turn was too large to be snapshotted.
func (r *repo) undoEntries(ctx context.Context, before, after string, own []Owned, rep *Report) ([]rawEntry, error) {
	ids := []string{before, after}
	for _, o := range own {
		if !slices.Contains(ids, o.Base) {
			ids = append(ids, o.Base)
		}
	}
	for _, id := range ids {
		if err := r.commit(ctx, id); err != nil {
			return nil, err
		}
	}
	entries, err := r.rawDiff(ctx, before, after)
	if err != nil {
		return nil, fmt.Errorf("undo: %w", err)
	}
	largeBefore, err := r.largeFiles(ctx, before)
	if err != nil {
		return nil, fmt.Errorf("undo: %w", err)
	}
	largeAfter, err := r.largeFiles(ctx, after)
	if err != nil {
		return nil, fmt.Errorf("undo: %w", err)
	}
	rep.TooLarge = largeChanged(largeBefore, largeAfter)
	if own != nil {
		if entries, err = r.ownEntries(ctx, before, after, entries, own, rep); err != nil {
			return nil, fmt.Errorf("undo: %w", err)
		}
	}
	// A file that was too large for the snapshot before the turn and
	// small enough after looks created; its old content is not there.
	kept := entries[:0]
	for _, e := range entries {
		if _, ok := largeBefore[e.path]; ok && e.oldMode == modeNone {
			rep.skip(e.path, "it was larger than the snapshot size limit before the turn, so its earlier content was not snapshotted")
			continue
		}
		kept = append(kept, e)
	}
	return kept, nil
}

// plan sorts the entries into the files undo removes and those it
// restores; every other one is skipped, with its reason in rep.
func (r *repo) plan(ctx context.Context, entries []rawEntry, rep *Report) (removals, restores []rawEntry, err error) {
	states, hashPaths := r.inspect(entries, rep)
	hashes, err := r.hashFiles(ctx, hashPaths)
	if err != nil {
		return nil, nil, fmt.Errorf("undo: %w", err)
	}
	// Nested repositories of before: snapshots hold no file inside them,
	// so a file there that shows up after the turn (whose .git went away)
	// may well have existed before it.
	var nestedBefore []string
	for _, e := range entries {
		if e.oldMode == modeGitlink {
			nestedBefore = append(nestedBefore, e.path+"/")
		}
	}
	for _, e := range entries {
		st, ok := states[e.path]
		if !ok {
			continue // already skipped
		}
		if reason := r.changedSinceAfter(ctx, e, st, hashes); reason != "" {
			rep.skip(e.path, reason)
			continue
		}
		if e.oldMode == modeGitlink {
			rep.skip(e.path, "it was a submodule or nested repository before the turn; restore it by hand")
			continue
		}
		if i := slices.IndexFunc(nestedBefore, func(n string) bool { return strings.HasPrefix(e.path, n) }); i >= 0 && e.oldMode == modeNone {
			rep.skip(e.path, fmt.Sprintf("it lies in %s, a submodule or nested repository before the turn, whose files snapshots do not hold; left alone", strings.TrimSuffix(nestedBefore[i], "/")))
			continue
		}
		if e.oldMode == modeNone {
			removals = append(removals, e)
		} else {
			restores = append(restores, e)
		}
	}
	return removals, restores, nil
}

// inspect looks at what is on disk at each entry's path now; hashPaths
// are the files whose content must be compared with after.
func (r *repo) inspect(entries []rawEntry, rep *Report) (states map[string]fileState, hashPaths []string) {
	states = make(map[string]fileState, len(entries))
	for _, e := range entries {
		// Behind a link the path is not in the workspace at all: git saw
		// nothing there, and undo must not reach through the link.
		if link := r.linkedParent(e.path); link != "" {
			if e.newMode != modeNone {
				rep.skip(e.path, linkReason(link))
				continue
			}
			states[e.path] = stAbsent
			continue
		}
		st, err := lstatState(filepath.Join(r.root, filepath.FromSlash(e.path)))
		if err != nil {
			rep.skip(e.path, fmt.Sprintf("cannot inspect it: %v", err))
			continue
		}
		states[e.path] = st
		if st == stFile && (e.newMode == modeFile || e.newMode == modeExec) {
			hashPaths = append(hashPaths, e.path)
		}
	}
	return states, hashPaths
}

// undoIgnoreRules undoes the .gitignore files first and returns the
// removals and restores left. If the turn changed a .gitignore, files it
// made visible (say node_modules/ after dropping that line) are in after
// but not in before, and would look created by the turn. Putting the old
// rules back first lets git tell which of them were ignored before; those
// are left alone like every ignored file.
func (r *repo) undoIgnoreRules(ctx context.Context, removals, restores []rawEntry, rep *Report, dirs map[string]bool) ([]rawEntry, []rawEntry) {
	removals, ruleRemovals := partition(removals, isIgnoreFile)
	restores, ruleRestores := partition(restores, isIgnoreFile)
	for _, e := range ruleRemovals {
		r.remove(e, rep, dirs)
	}
	for _, e := range ruleRestores {
		r.restoreReport(ctx, e, rep)
	}
	if len(ruleRemovals)+len(ruleRestores) > 0 && len(removals) > 0 {
		ignored, err := r.ignored(ctx, removals)
		kept := removals[:0]
		for _, e := range removals {
			switch {
			case err != nil: // unsure: keep the files rather than lose one
				rep.skip(e.path, fmt.Sprintf("could not check the ignore rules of before the turn: %v", err))
				continue
			case ignored[e.path]:
				rep.skip(e.path, "the ignore rules before the turn exclude it; ignored files are left alone")
				continue
			}
			kept = append(kept, e)
		}
		removals = kept
	}
	return removals, restores
}

func lstatState(path string) (fileState, error) {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		return stAbsent, nil
	case err != nil:
		return stOther, err
	case fi.Mode().IsRegular():
		return stFile, nil
	case fi.Mode()&fs.ModeSymlink != 0:
		return stSymlink, nil
	case fi.IsDir():
		return stDir, nil
	}
	return stOther, nil
}

// linkedParent returns the first directory on the way from the root to
// rel that is a symbolic link, or "" when there is none.
func (r *repo) linkedParent(rel string) string {
	parts := strings.Split(rel, "/")
	dir := r.root
	for i, part := range parts[:len(parts)-1] {
		dir = filepath.Join(dir, part)
		fi, err := os.Lstat(dir)
		switch {
		case err != nil, !fi.IsDir() && fi.Mode()&fs.ModeSymlink == 0:
			return "" // missing (or a file): restore makes a real directory
		case fi.Mode()&fs.ModeSymlink != 0:
			return strings.Join(parts[:i+1], "/")
		}
	}
	return ""
}

func linkReason(link string) string {
	return fmt.Sprintf("its directory %s is now a symbolic link; undo does not write through links", link)
}

func isIgnoreFile(e rawEntry) bool { return path.Base(e.path) == ".gitignore" }

func partition(es []rawEntry, f func(rawEntry) bool) (no, yes []rawEntry) {
	for _, e := range es {
		if f(e) {
			yes = append(yes, e)
		} else {
			no = append(no, e)
		}
	}
	return no, yes
}

func (r *repo) restoreReport(ctx context.Context, e rawEntry, rep *Report) {
	if err := r.restore(ctx, e); err != nil {
		rep.skip(e.path, err.Error())
		return
	}
	rep.Restored = append(rep.Restored, e.path)
}

// ignored returns which of the entries' paths the ignore rules now on disk
// exclude, whether or not they are tracked.
func (r *repo) ignored(ctx context.Context, es []rawEntry) (map[string]bool, error) {
	var in strings.Builder
	for _, e := range es {
		// "./" keeps names such as ":x" from being read as pathspec magic.
		in.WriteString("./" + e.path)
		in.WriteByte(0)
	}
	// With -v -n every input gets one record, in order: source, line,
	// pattern, path; the source is empty when no pattern matched.
	out, err := r.git(ctx, runOpts{stdin: strings.NewReader(in.String()), okExit: 1}, "check-ignore", "--no-index", "-z", "-v", "-n", "--stdin")
	if err != nil {
		return nil, err
	}
	f := splitZ(out)
	if len(f) != 4*len(es) {
		return nil, fmt.Errorf("check-ignore: %d fields for %d paths", len(f), len(es))
	}
	m := map[string]bool{}
	for i, e := range es {
		source, pattern := f[4*i], f[4*i+2]
		m[e.path] = source != "" && !strings.HasPrefix(pattern, "!")
	}
	return m, nil
}

// changedSinceAfter returns why the path no longer matches snapshot after,
// or "" when it still does.
func (r *repo) changedSinceAfter(ctx context.Context, e rawEntry, st fileState, hashes map[string]string) string {
	switch e.newMode {
	case modeNone:
		switch st {
		case stAbsent, stDir: // a directory is checked again when restoring
			return ""
		}
		return "the turn deleted it but it exists again: it was recreated after the turn"
	case modeFile, modeExec:
		switch st {
		case stAbsent:
			return "it was deleted after the turn"
		case stFile:
			if hashes[e.path] != e.newID {
				return "it was edited after the turn"
			}
			if r.fileMode {
				fi, err := os.Lstat(filepath.Join(r.root, filepath.FromSlash(e.path)))
				if err != nil {
					return fmt.Sprintf("cannot inspect it: %v", err)
				}
				if (fi.Mode()&0o100 != 0) != (e.newMode == modeExec) {
					return "its executable bit was changed after the turn"
				}
			}
			return ""
		}
		return "it was replaced by a directory or link after the turn"
	case modeSymlink:
		if st != stSymlink {
			return "the symbolic link was replaced or deleted after the turn"
		}
		target, err := os.Readlink(filepath.Join(r.root, filepath.FromSlash(e.path)))
		if err != nil {
			return fmt.Sprintf("cannot read the link: %v", err)
		}
		blob, err := r.git(ctx, runOpts{}, "cat-file", "blob", e.newID)
		if err != nil {
			return fmt.Sprintf("cannot read the snapshot: %v", err)
		}
		if target != string(blob) {
			return "the symbolic link was changed after the turn"
		}
		return ""
	case modeGitlink:
		return "the turn changed a submodule or nested repository; undo it by hand"
	}
	return fmt.Sprintf("unsupported file mode %s", e.newMode)
}

// hashFiles hashes the given files as `git add` would (same filters) and
// returns path → object id.
func (r *repo) hashFiles(ctx context.Context, paths []string) (map[string]string, error) {
	hashes := make(map[string]string, len(paths))
	const chunk = 200 // keeps the command line short
	for start := 0; start < len(paths); start += chunk {
		part := paths[start:min(start+chunk, len(paths))]
		args := append([]string{"hash-object", "--"}, part...)
		out, err := r.git(ctx, runOpts{}, args...)
		if err != nil {
			return nil, err
		}
		ids := strings.Fields(string(out))
		if len(ids) != len(part) {
			return nil, fmt.Errorf("hash-object returned %d ids for %d files", len(ids), len(part))
		}
		for i, p := range part {
			hashes[p] = ids[i]
		}
	}
	return hashes, nil
}
