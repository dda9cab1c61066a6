package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// GuardSpec is what a session's workspace guard is built from.
type GuardSpec struct {
	Root string
	// Writable are the writable roots of the session's most open mode.
	Writable []string
	// Protected stay read-only (the user's config and state, .coder);
	// those of Dirs that are missing under a writable root are made, so
	// that a mount guards them.
	Protected, Dirs []string
	Home            string
	Getenv          func(string) string
	// RunsLater is what the user's git or editor runs later from the
	// workspace (WorkspaceRunsLater), which the caller's file tools ask
	// for too: found once, for both.
	RunsLater []string
}

// Guard is what keeps a workspace's own guards in place for the
// session: read-only paths inside the writable roots, the directories
// that may not be renamed or replaced (each is a mount point), the git
// directories a .git file names (writable for commits) and those made
// writable again inside a read-only one. Built once, with placeholders
// made for missing entries, as the sandbox's mounts are made once.
type Guard struct {
	Writable  []string
	Protected []string
	Pinned    []string
	Reopened  []string
	// Unguarded are protected paths that were missing and could not be
	// made: not guarded by the kernel.
	Unguarded []string

	roots   []string // real writable roots, of Writable too
	configs []string // git configuration files, for their includes
	watch   *gitlinkWatch
	// later are the paths that run later, missing when the guard was
	// made (startup.go); homeGuarded: the home's startup files are
	// among the guarded paths.
	later       []watched
	homeGuarded bool
	// made says how each protected path is made again when the host
	// removes it (Epoch).
	made map[string]placeholder
	mu   sync.Mutex // Epoch's
}

// GuardWorkspace builds spec's guard, making what it needs: the missing
// protected directories and git entries, and, where no repository holds
// the workspace, an empty read-only .git (git takes an empty one for no
// repository, so `git init` there cannot make one).
func GuardWorkspace(ctx context.Context, spec GuardSpec) *Guard {
	getenv := spec.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	g := &Guard{}
	for _, w := range spec.Writable {
		g.roots = append(g.roots, realPath(w))
	}
	for _, d := range spec.Dirs {
		g.protectMade(d, dirPlaceholder)
	}
	for _, p := range spec.Protected {
		g.protectMade(p, noPlaceholder)
	}
	root := realPath(spec.Root)
	l, found := findGit(root)
	switch {
	case found && (l.isFile || g.writable(l.dotGit)):
		g.guardGit(l)
	case !found && l.dotGit != "" && g.writable(l.dotGit):
		g.protect(l.dotGit) // one git cannot read: no other takes its place
	}
	if found {
		g.watch = newGitlinkWatch(ctx, root, l)
	}
	if !found && l.dotGit == "" {
		// No repository: one made at the root would be the one the
		// user's git finds there. (Below its repository's top the
		// workspace gets none, as ripgrep and other tools would take
		// it for the top: the gitlink watch looks at the root instead.)
		g.protectEntry(filepath.Join(root, ".git"))
	}
	for _, f := range userGitConfigs(spec.Home, getenv) {
		if g.writable(f) {
			g.protectEntry(f)
		}
		g.configs = append(g.configs, f)
	}
	g.guardIncludes(ctx, spec.Home)
	g.guardRunsLater(spec.Home, getenv)
	g.guardWorkspaceRunsLater(root, spec.RunsLater)
	g.pinAll()
	return g
}

// Apply adds g's paths to p; its writable git directories only when
// workspace (p may write the workspace).
func (g *Guard) Apply(p *Policy, workspace bool) {
	if g == nil {
		return
	}
	if workspace {
		p.Writable = append(p.Writable, g.Writable...)
	}
	p.Protected = append(p.Protected, g.Protected...)
	p.Epoch = g.epoch()
	p.Pinned = append(p.Pinned, g.Pinned...)
	p.Reopened = append(p.Reopened, g.Reopened...)
}

// Ready returns once the guard has taken its first look at the
// workspace (in the background): call it before the first command.
func (g *Guard) Ready() {
	if g != nil {
		g.watch.wait()
	}
}

func (g *Guard) protect(p string) {
	if p = realPath(p); !slices.Contains(g.Protected, p) {
		g.Protected = append(g.Protected, p)
	}
}

func (g *Guard) pin(p string) { g.pinReal(realPath(p)) }

// pinReal pins p, a real path already.
func (g *Guard) pinReal(p string) {
	if !slices.Contains(g.Pinned, p) {
		g.Pinned = append(g.Pinned, p)
	}
}

func (g *Guard) reopen(p string) {
	if p = realPath(p); !slices.Contains(g.Reopened, p) {
		g.Reopened = append(g.Reopened, p)
	}
}

func (g *Guard) addWritable(p string) {
	p = realPath(p)
	if !g.writable(p) {
		g.Writable = append(g.Writable, p)
	}
	if !slices.Contains(g.roots, p) {
		g.roots = append(g.roots, p)
	}
}

// writable reports whether a writable root holds p.
func (g *Guard) writable(p string) bool {
	p = realPath(p)
	return slices.ContainsFunc(g.roots, func(r string) bool { return within(p, r) })
}

// pinAll pins every directory between a guarded path and the writable
// root it lies in, and every writable root inside another one, down
// from that root: a mount point cannot be renamed or removed, so no
// rename moves a guard away and no new directory takes its place.
func (g *Guard) pinAll() {
	targets := append(append(slices.Clone(g.Protected), g.Reopened...), g.Pinned...)
	for _, r := range g.roots {
		if slices.ContainsFunc(g.roots, func(o string) bool { return o != r && within(r, o) }) {
			targets = append(targets, r)
			g.pinReal(r)
		}
	}
	for _, t := range targets {
		for _, r := range g.roots {
			if r == t || !within(t, r) {
				continue
			}
			for d := filepath.Dir(t); d != r && within(d, r); d = filepath.Dir(d) {
				g.pinReal(d) // the paths and roots are real: so are their parents
			}
		}
	}
	// A pin on a mount made anyway, or inside a read-only one, is none.
	g.Pinned = slices.DeleteFunc(g.Pinned, func(p string) bool {
		return slices.Contains(g.Reopened, p) || slices.Contains(g.Protected, p) || g.readOnlyAt(p)
	})
}

// readOnlyAt reports whether the deepest protected or reopened path
// holding p is a protected one.
func (g *Guard) readOnlyAt(p string) bool {
	best, ro := "", false
	for i, list := range [][]string{g.Protected, g.Reopened} {
		for _, m := range list {
			if within(p, m) && len(m) > len(best) {
				best, ro = m, i == 0
			}
		}
	}
	return ro
}

// within reports whether p is dir or below it.
func within(p, dir string) bool {
	if p == dir {
		return true
	}
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// realPath is p with its symbolic links resolved, as far as it exists.
func realPath(p string) string {
	p = filepath.Clean(p)
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	if parent := filepath.Dir(p); parent != p {
		return filepath.Join(realPath(parent), filepath.Base(p))
	}
	return p
}
