package gitsnap

import (
	"context"
	"errors"
	"fmt"
	"github.com/coder-nvim/coder-nvim/core/hostpath"
	"os"
	"slices"
	"strings"
	"sync"
)

// Repo is a workspace's repository as one session sees it. It learns the
// repository's facts once (work tree, git directory, index, object
// format: one rev-parse) and keeps the driver guard until a configuration
// file changes, so a snapshot runs at most four git processes — ls-files
// for the large untracked files, add -A into a temporary index,
// write-tree, update-ref — and the commit object is written here. It
// remembers the trees of its own snapshots, so that comparing two of them
// that are equal runs nothing and a snapshot of an unchanged workspace can
// reuse an earlier one (Options.Reuse).
//
// The package-level functions are the same operations on a Repo of their
// own. A Repo is safe for concurrent use; its operations run one at a
// time.
type Repo struct {
	root string
	// prog is the git to run (UseGit); zero: resolved for root when
	// first opened.
	prog gitProg
	// shadowBase, when set, holds the shadow repositories of workspaces
	// outside git (shadow.go); "": outside git there are no snapshots.
	shadowBase string
	// shadowed: the session's snapshots are in the shadow repository; it
	// stays there when the workspace becomes a git repository meanwhile,
	// where the earlier snapshots are not.
	shadowed bool

	mu    sync.Mutex
	r     *repo // nil until opened
	stamp configStamp
	snaps map[string]snapInfo // snapshots taken here, by id
	refs  map[string]bool     // ids whose ref this Repo wrote and has not deleted
}

// snapInfo is what a Repo remembers of a snapshot it took.
type snapInfo struct {
	tree  string
	large []largeFile
}

// maxSnaps bounds what a Repo remembers; older snapshots are compared by
// asking git, as any other.
const maxSnaps = 512

// NewRepo returns a Repo for the workspace root; nothing runs until it is
// used.
func NewRepo(root string) *Repo {
	return &Repo{root: root, snaps: map[string]snapInfo{}, refs: map[string]bool{}}
}

// NewShadowedRepo is NewRepo that, outside git, snapshots into a shadow
// repository under base (the host's state dir), never into the workspace.
func NewShadowedRepo(root, base string) *Repo {
	g := NewRepo(root)
	g.shadowBase = base
	return g
}

// UseGit has the Repo run p's git with p's PATH (the session resolved
// them as it opened); call it before the first use.
func (g *Repo) UseGit(p hostpath.Programs) {
	g.mu.Lock()
	g.prog = progOf(p)
	g.mu.Unlock()
}

// open returns the repository, learning its facts when they are not known
// or when its git directory or configuration changed. g.mu must be held.
func (g *Repo) open(ctx context.Context) (*repo, error) {
	if g.prog == (gitProg{}) {
		g.prog = hostGit(g.root)
	}
	if g.r != nil {
		if _, err := os.Stat(g.r.facts.gitDir); err == nil && g.stamp.fresh() {
			return g.r, nil
		}
		g.r = nil
	}
	var r *repo
	err := errNotRepo
	if !g.shadowed {
		r, err = open(ctx, g.prog, g.root)
	}
	if errors.Is(err, errNotRepo) && g.shadowBase != "" && ctx.Err() == nil {
		if r, err = openShadow(ctx, g.prog, g.shadowBase, g.root); err == nil {
			g.shadowed = true
		}
	}
	if err != nil {
		return nil, err
	}
	if st, ok := stampFor(r); ok {
		g.r, g.stamp = r, st
	}
	return r, nil
}

// Available reports whether git is installed and the root is inside a git
// work tree; the error says why not in words a user understands.
func (g *Repo) Available(ctx context.Context) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	_, err := g.open(ctx)
	return err
}

// Snapshot records the workspace as SnapshotWith does and returns the id.
func (g *Repo) Snapshot(ctx context.Context, message string, opts Options) (string, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	r, err := g.open(ctx)
	if err != nil {
		return "", err
	}
	tree, large, err := r.worktreeTree(ctx, opts.MaxFileSize)
	if err != nil {
		if ctx.Err() == nil {
			g.r = nil // learn the facts again next time; a cancel says nothing of them
		}
		return "", fmt.Errorf("snapshot %s: %w", r.root, err)
	}
	id := ""
	if prev, ok := g.snaps[opts.Reuse]; ok && opts.Reuse != "" && prev.tree == tree && len(largeChanged(largeMap(prev.large), largeMap(large))) == 0 {
		id = opts.Reuse
	} else {
		if strings.TrimSpace(message) == "" {
			message = "coder-nvim snapshot"
		}
		if id, err = r.commitTree(ctx, tree, message+formatLarge(large)); err != nil {
			return "", fmt.Errorf("snapshot %s: %w", r.root, err)
		}
	}
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("snapshot %s: %w", r.root, err)
	}
	if !g.refs[id] {
		// Not stopped half-way: a killed update-ref leaves its lock.
		if _, err := r.git(context.WithoutCancel(ctx), runOpts{}, "update-ref", "-m", "coder-nvim snapshot", RefPrefix+id, id); err != nil {
			return "", fmt.Errorf("snapshot %s: keep %s: %w", r.root, id, err)
		}
		g.refs[id] = true
		if err := r.shadowBaseline(context.WithoutCancel(ctx), id); err != nil {
			return "", fmt.Errorf("snapshot %s: baseline: %w", r.root, err)
		}
	}
	if len(g.snaps) >= maxSnaps {
		for k := range g.snaps {
			delete(g.snaps, k)
			break
		}
	}
	g.snaps[id] = snapInfo{tree: tree, large: large}
	return id, nil
}

func largeMap(l []largeFile) map[string]largeFile {
	m := make(map[string]largeFile, len(l))
	for _, f := range l {
		m[f.path] = f
	}
	return m
}

// Forget deletes the refs that keep the given snapshots alive, as Forget
// does.
func (g *Repo) Forget(ctx context.Context, ids ...string) error {
	if len(ids) == 0 {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	r, err := g.open(ctx)
	if err != nil {
		return err
	}
	if err := r.forget(ctx, ids); err != nil {
		return err
	}
	for _, id := range ids {
		delete(g.refs, id)
	}
	return nil
}

// Changed lists the files that differ between two snapshots, as Changed
// does. Two snapshots this Repo took are compared without git when their
// trees are equal, and with one diff-tree otherwise.
func (g *Repo) Changed(ctx context.Context, a, b string) ([]string, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	r, err := g.open(ctx)
	if err != nil {
		return nil, err
	}
	sa, okA := g.snaps[a]
	sb, okB := g.snaps[b]
	if !okA || !okB {
		return r.changed(ctx, a, b)
	}
	var paths []string
	if sa.tree != sb.tree {
		entries, err := r.rawDiff(ctx, a, b)
		if err != nil {
			return nil, fmt.Errorf("compare snapshots: %w", err)
		}
		for _, e := range entries {
			paths = append(paths, e.path)
		}
	}
	for _, p := range largeChanged(largeMap(sa.large), largeMap(sb.large)) {
		if !slices.Contains(paths, p) {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	return paths, nil
}

// Undo is Undo on this Repo.
func (g *Repo) Undo(ctx context.Context, before, after string) (Report, error) {
	return g.undo(ctx, before, after, nil)
}

// UndoOwn is UndoOwn on this Repo.
func (g *Repo) UndoOwn(ctx context.Context, before, after string, own []Owned) (Report, error) {
	if own == nil {
		own = []Owned{}
	}
	return g.undo(ctx, before, after, own)
}

func (g *Repo) undo(ctx context.Context, before, after string, own []Owned) (Report, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	r, err := g.open(ctx)
	if err != nil {
		return Report{SkipReasons: map[string]string{}}, err
	}
	return r.undo(ctx, before, after, own)
}

// Diff is Diff on this Repo.
func (g *Repo) Diff(ctx context.Context) (Changes, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	r, err := g.open(ctx)
	if err != nil {
		return Changes{}, err
	}
	return r.diff(ctx)
}
