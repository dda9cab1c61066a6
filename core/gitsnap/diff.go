package gitsnap

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// FileStat is one changed file. Path is relative to the workspace root;
// OldPath is set for renames.
type FileStat struct {
	Path           string
	OldPath        string
	Added, Deleted int // lines; 0 for binary files
	Binary         bool
	Status         string // "added", "modified", "deleted" or "renamed"
}

// Changes is a summary of changes and the full patch.
type Changes struct {
	Files []FileStat
	Patch string // unified diff in git's format, one "diff --git" section per file
}

// Summary renders the file list for the user: one line per file with its
// status and line counts, then the totals.
func (c Changes) Summary() string {
	if len(c.Files) == 0 {
		return "no changes"
	}
	var b strings.Builder
	added, deleted := 0, 0
	for _, f := range c.Files {
		name := f.Path
		if f.OldPath != "" {
			name = f.OldPath + " → " + f.Path
		}
		counts := fmt.Sprintf("+%d -%d", f.Added, f.Deleted)
		if f.Binary {
			counts = "binary"
		}
		fmt.Fprintf(&b, "%-8s %s  %s\n", f.Status, name, counts)
		added += f.Added
		deleted += f.Deleted
	}
	fmt.Fprintf(&b, "%d file(s) changed, +%d -%d\n", len(c.Files), added, deleted)
	return b.String()
}

// Diff summarises the workspace's changes against HEAD, or against the empty
// tree in a repository without commits; untracked files are included,
// ignored ones are not.
func Diff(ctx context.Context, root string) (Changes, error) {
	return NewRepo(root).Diff(ctx)
}

func (r *repo) diff(ctx context.Context) (Changes, error) {
	base, err := r.headTree(ctx)
	if err != nil {
		return Changes{}, err
	}
	cur, _, err := r.worktreeTree(ctx, 0)
	if err != nil {
		return Changes{}, fmt.Errorf("diff %s: %w", r.root, err)
	}
	return r.changes(ctx, base, cur)
}

// DiffBetween summarises what changed from snapshot before to snapshot after.
func DiffBetween(ctx context.Context, root, before, after string) (Changes, error) {
	r, err := open(ctx, hostGit(root), root)
	if err != nil {
		return Changes{}, err
	}
	for _, id := range []string{before, after} {
		if err := r.commit(ctx, id); err != nil {
			return Changes{}, err
		}
	}
	return r.changes(ctx, before, after)
}

// headTree is HEAD's tree, or the empty tree when HEAD has no commit yet.
func (r *repo) headTree(ctx context.Context) (string, error) {
	if out, err := r.git(ctx, runOpts{}, "rev-parse", "--verify", "--quiet", "HEAD^{tree}"); err == nil {
		return strings.TrimSpace(string(out)), nil
	}
	out, err := r.git(ctx, runOpts{stdin: strings.NewReader("")}, "hash-object", "-t", "tree", "-w", "--stdin")
	if err != nil {
		return "", fmt.Errorf("empty tree: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// diffArgs are the options and pathspec shared by every comparison: whole
// trees, paths relative to (and limited to) the workspace root, nothing
// from the user's diff configuration.
func diffArgs(a, b string, opts ...string) []string {
	args := append([]string{"diff-tree", "-r", "--relative", "--no-color", "--no-ext-diff", "--no-textconv"}, opts...)
	args = append(args, a, b, "--", ".")
	return append(args, excluded...)
}

func (r *repo) changes(ctx context.Context, a, b string) (Changes, error) {
	raw, err := r.git(ctx, runOpts{}, diffArgs(a, b, "-z", "-M", "--raw")...)
	if err != nil {
		return Changes{}, err
	}
	files, err := parseRaw(raw)
	if err != nil {
		return Changes{}, err
	}
	num, err := r.git(ctx, runOpts{}, diffArgs(a, b, "-z", "-M", "--numstat")...)
	if err != nil {
		return Changes{}, err
	}
	if err := addNumstat(files, num); err != nil {
		return Changes{}, err
	}
	patch, err := r.git(ctx, runOpts{}, diffArgs(a, b, "-M", "-p")...)
	if err != nil {
		return Changes{}, err
	}
	return Changes{Files: files, Patch: string(patch)}, nil
}

// rawEntry is one record of `git diff-tree --raw -z`.
type rawEntry struct {
	oldMode, newMode string
	oldID, newID     string
	status           byte
	path, newPath    string // newPath only for renames and copies
}

func parseRawEntries(out []byte) ([]rawEntry, error) {
	f := splitZ(out)
	var entries []rawEntry
	for i := 0; i < len(f); i++ {
		meta := strings.Fields(strings.TrimPrefix(f[i], ":"))
		if !strings.HasPrefix(f[i], ":") || len(meta) != 5 || meta[4] == "" || i+1 >= len(f) {
			return nil, fmt.Errorf("unexpected diff-tree output %q", f[i])
		}
		e := rawEntry{oldMode: meta[0], newMode: meta[1], oldID: meta[2], newID: meta[3], status: meta[4][0], path: f[i+1]}
		i++
		if e.status == 'R' || e.status == 'C' {
			if i+1 >= len(f) {
				return nil, fmt.Errorf("unexpected diff-tree output: rename without target")
			}
			e.newPath = f[i+1]
			i++
		}
		entries = append(entries, e)
	}
	return entries, nil
}

func parseRaw(out []byte) ([]FileStat, error) {
	entries, err := parseRawEntries(out)
	if err != nil {
		return nil, err
	}
	files := make([]FileStat, 0, len(entries))
	for _, e := range entries {
		fs := FileStat{Path: e.path}
		switch e.status {
		case 'A':
			fs.Status = "added"
		case 'D':
			fs.Status = "deleted"
		case 'R':
			fs.Status, fs.OldPath, fs.Path = "renamed", e.path, e.newPath
		case 'C':
			fs.Status, fs.Path = "added", e.newPath
		default: // M, T
			fs.Status = "modified"
		}
		files = append(files, fs)
	}
	return files, nil
}

// addNumstat fills line counts from `--numstat -z`, which lists the same
// files in the same order as --raw.
func addNumstat(files []FileStat, out []byte) error {
	f := splitZ(out)
	n := 0
	for i := 0; i < len(f); i++ {
		parts := strings.SplitN(f[i], "\t", 3)
		if len(parts) != 3 {
			return fmt.Errorf("unexpected numstat output %q", f[i])
		}
		path := parts[2]
		if path == "" { // rename: old and new path follow
			if i+2 >= len(f) {
				return fmt.Errorf("unexpected numstat output: rename without paths")
			}
			path = f[i+2]
			i += 2
		}
		if n >= len(files) || files[n].Path != path {
			return fmt.Errorf("numstat and raw output disagree at %q", path)
		}
		if parts[0] == "-" {
			files[n].Binary = true
		} else {
			files[n].Added, _ = strconv.Atoi(parts[0])
			files[n].Deleted, _ = strconv.Atoi(parts[1])
		}
		n++
	}
	if n != len(files) {
		return fmt.Errorf("numstat lists %d files, raw %d", n, len(files))
	}
	return nil
}
