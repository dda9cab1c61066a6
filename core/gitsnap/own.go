package gitsnap

import (
	"context"
	"fmt"
	"slices"
)

// Owned is a file a turn changed itself, with the snapshot (Base) that
// holds it as it was just before the turn first changed it: the turn's
// first snapshot, or the one taken before the command that changed it.
type Owned struct {
	Path string // relative to the workspace root, slash-separated
	Base string
}

// UndoOwn is Undo limited to the files the turn changed itself: each owned
// file goes back to its state in its Base snapshot, under the same checks
// as Undo. Files that changed between before and after but are not owned —
// written by another session or by the user while the turn ran — are left
// alone and listed in Report.Others.
func UndoOwn(ctx context.Context, root, before, after string, own []Owned) (Report, error) {
	if own == nil {
		own = []Owned{} // nil means "everything" to undo
	}
	return undo(ctx, root, before, after, own)
}

// Changed lists the files (relative to the root) that differ between two
// snapshots, including untracked files left out of either for their size.
// It is how the changes of one command are told from those of others.
func Changed(ctx context.Context, root, a, b string) ([]string, error) {
	return NewRepo(root).Changed(ctx, a, b)
}

func (r *repo) changed(ctx context.Context, a, b string) ([]string, error) {
	for _, id := range []string{a, b} {
		if err := r.commit(ctx, id); err != nil {
			return nil, err
		}
	}
	entries, err := r.rawDiff(ctx, a, b)
	if err != nil {
		return nil, fmt.Errorf("compare snapshots: %w", err)
	}
	var paths []string
	for _, e := range entries {
		paths = append(paths, e.path)
	}
	la, err := r.largeFiles(ctx, a)
	if err != nil {
		return nil, err
	}
	lb, err := r.largeFiles(ctx, b)
	if err != nil {
		return nil, err
	}
	for _, p := range largeChanged(la, lb) {
		if !slices.Contains(paths, p) {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	return paths, nil
}

// rawDiff is every file that differs between snapshots a and b, a move
// being a deletion and an addition.
func (r *repo) rawDiff(ctx context.Context, a, b string) ([]rawEntry, error) {
	out, err := r.git(ctx, runOpts{}, diffArgs(a, b, "-z", "--no-renames", "--raw")...)
	if err != nil {
		return nil, err
	}
	return parseRawEntries(out)
}

// ownEntries narrows all (before → after) to the owned files, each compared
// from its own base, and lists the others in rep.Others.
func (r *repo) ownEntries(ctx context.Context, before, after string, all []rawEntry, own []Owned, rep *Report) ([]rawEntry, error) {
	base := map[string]string{}
	var bases []string
	for _, o := range own {
		if _, ok := base[o.Path]; ok {
			continue // the first change counts
		}
		base[o.Path] = o.Base
		if o.Base != before && !slices.Contains(bases, o.Base) {
			bases = append(bases, o.Base)
		}
	}
	var out []rawEntry
	found := map[string]bool{}
	for _, e := range all {
		if base[e.path] == before {
			out = append(out, e)
			found[e.path] = true
		}
	}
	for _, b := range bases {
		es, err := r.rawDiff(ctx, b, after)
		if err != nil {
			return nil, err
		}
		for _, e := range es {
			if base[e.path] == b {
				out = append(out, e)
				found[e.path] = true
			}
		}
	}
	// Changed during the turn, yet not by its own calls from their base
	// on: someone else's change.
	for _, e := range all {
		if !found[e.path] {
			rep.Others = append(rep.Others, e.path)
		}
	}
	kept := rep.TooLarge[:0]
	for _, p := range rep.TooLarge {
		if _, ok := base[p]; ok {
			kept = append(kept, p)
		}
	}
	rep.TooLarge = kept
	return out, nil
}
