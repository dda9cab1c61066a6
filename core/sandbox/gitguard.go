package sandbox

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// gitReadOnly are the entries of a git directory git reads configuration,
// programs or other repositories from (gitrepository-layout(5),
// git-config(1)): read-only for confined commands whether or not they
// exist. `gitdir` only matters in a linked worktree's own directory and
// is never made where missing (libgit2 takes a git directory holding one
// for a linked worktree's).
var gitReadOnly = []string{
	"config", "config.worktree", "commondir", "gitdir",
	"hooks", "info", "modules", "worktrees", "remotes", "branches",
	"objects/info/alternates", "objects/info/http-alternates",
}

// gitWritable are what git writes in a git directory for add, commit,
// stash, checkout, merge, rebase, cherry-pick, fetch and gc: a name, a
// directory and all beneath it (trailing "/"), or a name prefix
// (trailing "*"); lock files ("*.lock") are created beside what they
// replace. gitReadOnly wins over it (objects/info/alternates).
var gitWritable = []string{
	"index", "HEAD", "ORIG_HEAD", "FETCH_HEAD", "MERGE_HEAD", "MERGE_MSG", "MERGE_MODE", "MERGE_RR",
	"CHERRY_PICK_HEAD", "REVERT_HEAD", "REBASE_HEAD", "AUTO_MERGE", "BISECT_*", "COMMIT_EDITMSG",
	"TAG_EDITMSG", "SQUASH_MSG", "NOTES_*", "packed-refs", "shallow", "sharedindex.*", "gc.pid", "gc.log",
	"refs/", "objects/", "logs/", "rebase-merge/", "rebase-apply/", "sequencer/", "rr-cache/", "*.lock",
}

// GitReadOnlyEntries are the entries of a git directory, relative to
// it, no confined command may write or create, and GitWritableEntries
// the ones git itself writes (see gitWritable for the patterns): one list
// for every platform's sandbox. Linux cannot refuse every other entry
// (git creates its lock files in the git directory itself, and Landlock
// has no exceptions under a writable root), so it keeps the first list
// read-only; a profile that can deny by pattern (Seatbelt) keeps all but
// the second.
func GitReadOnlyEntries() []string { return slices.Clone(gitReadOnly) }

// GitWritableEntries: see GitReadOnlyEntries.
func GitWritableEntries() []string { return slices.Clone(gitWritable) }

// gitLayout is what a work tree's .git names.
type gitLayout struct {
	dotGit    string // the .git directory or file
	isFile    bool
	gitDir    string // where HEAD and the index live
	commonDir string // where config, objects and refs live
}

// findGit is the repository git finds from dir, as git discovers it:
// the nearest .git, a directory or a "gitdir:" file, at dir or above.
func findGit(dir string) (gitLayout, bool) {
	for d := dir; ; d = filepath.Dir(d) {
		dot := filepath.Join(d, ".git")
		if fi, err := os.Lstat(dot); err == nil {
			if fi.Mode()&os.ModeSymlink != 0 {
				// Taken as what it names; the link itself can be
				// replaced (no mount covers a link).
				if fi, err = os.Stat(dot); err != nil {
					return gitLayout{dotGit: dot}, false
				}
			}
			l := gitLayout{dotGit: dot, gitDir: dot}
			if fi.Mode().IsRegular() {
				l.isFile = true
				target, ok := readGitFile(dot)
				if !ok {
					return l, false
				}
				l.gitDir = target
			} else if !fi.IsDir() {
				return l, false
			}
			l.commonDir = commonDirOf(l.gitDir)
			return l, true
		}
		if filepath.Dir(d) == d {
			return gitLayout{}, false
		}
	}
}

// readGitFile is the directory a "gitdir: PATH" file names.
func readGitFile(p string) (string, bool) {
	data, err := os.ReadFile(p)
	if err != nil {
		return "", false
	}
	rest, ok := strings.CutPrefix(strings.TrimRight(string(data), "\r\n"), "gitdir: ")
	if !ok || rest == "" {
		return "", false
	}
	if !filepath.IsAbs(rest) {
		rest = filepath.Join(filepath.Dir(p), rest)
	}
	return filepath.Clean(rest), true
}

// commonDirOf is the common directory gitDir's commondir names, gitDir
// itself without one (or with the "." placeholder).
func commonDirOf(gitDir string) string {
	data, err := os.ReadFile(filepath.Join(gitDir, "commondir"))
	if err != nil {
		return gitDir
	}
	c := strings.TrimRight(string(data), "\r\n")
	if c == "" {
		return gitDir
	}
	if !filepath.IsAbs(c) {
		c = filepath.Join(gitDir, c)
	}
	return filepath.Clean(c)
}

// guardGit adds to g what keeps the git directories of l as git needs
// them, making the missing entries' placeholders: a read-only empty
// directory, an empty file (a config, alternates), and for a missing
// commondir one naming its own directory ("."), which git reads as none
// (an empty one breaks git). writable reports whether the directories
// must be made writable (a linked worktree's or submodule's, outside the
// workspace).
func (g *Guard) guardGit(l gitLayout) {
	if l.isFile {
		g.protect(l.dotGit) // else it could name another repository
		g.addWritable(l.commonDir)
		if !within(l.gitDir, l.commonDir) {
			g.addWritable(l.gitDir)
		}
	} else {
		g.pin(l.dotGit)
	}
	g.guardGitDir(l.commonDir, 0)
	if l.gitDir != l.commonDir {
		// A linked worktree's own directory, inside the common dir's
		// read-only worktrees/: writable again but for what names
		// other places.
		g.reopen(l.gitDir)
		for _, e := range []string{"config.worktree", "commondir", "gitdir"} {
			g.protectEntry(filepath.Join(l.gitDir, e))
		}
	}
}

// guardGitDir protects dir's gitReadOnly entries and, read-only
// modules/ holding submodules' own git directories, reopens each of
// those guarded the same (depth counts the nesting).
func (g *Guard) guardGitDir(dir string, depth int) {
	for _, e := range gitReadOnly {
		g.protectEntry(filepath.Join(dir, e))
	}
	g.configs = append(g.configs, filepath.Join(dir, "config"), filepath.Join(dir, "config.worktree"))
	if depth > 8 {
		return
	}
	ents, _ := os.ReadDir(filepath.Join(dir, "modules"))
	for _, e := range ents {
		sub := filepath.Join(dir, "modules", e.Name())
		if e.IsDir() && isGitDir(sub) {
			g.reopen(sub)
			g.guardGitDir(sub, depth+1)
		}
	}
}

// isGitDir reports whether dir looks like a git directory.
func isGitDir(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "HEAD"))
	return err == nil
}

// protectEntry protects the git directory entry p, made when missing.
func (g *Guard) protectEntry(p string) {
	kind := placeholderFor(filepath.Base(p))
	if kind == noPlaceholder {
		if _, err := os.Lstat(p); err != nil {
			return // see gitReadOnly
		}
	}
	g.protectMade(p, kind)
}

// placeholderFor is what takes a missing git entry's place.
func placeholderFor(name string) placeholder {
	switch name {
	case "gitdir":
		return noPlaceholder
	case "commondir":
		return commondirPlaceholder
	case "config", "config.worktree", "alternates", "http-alternates", ".gitconfig":
		return filePlaceholder
	}
	return dirPlaceholder
}

// guardIncludes protects the files the git configuration files include
// (include.path, includeIf.*.path) when a writable root holds them, made
// empty when missing (git reads an empty one as no settings), and those
// they include in turn.
func (g *Guard) guardIncludes(ctx context.Context, home string) {
	seen := map[string]bool{}
	queue := slices.Clone(g.configs)
	for len(queue) > 0 && len(seen) < 64 {
		f := queue[0]
		queue = queue[1:]
		if seen[f] {
			continue
		}
		seen[f] = true
		for _, inc := range includesOf(ctx, f, home) {
			if !g.writable(inc) {
				continue
			}
			g.protectMade(inc, filePlaceholder)
			queue = append(queue, inc)
		}
	}
}

// includesOf is the paths config file f includes, resolved as git does.
// git reads the file alone (no includes, no repository): nothing runs.
func includesOf(ctx context.Context, f, home string) []string {
	data, err := os.ReadFile(f)
	if err != nil || !bytes.Contains(bytes.ToLower(data), []byte("include")) {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", "config", "--file", f, "--null", "--get-regexp", `^include(if\..*)?\.path$`)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_COUNT=0")
	out, err := cmd.Output()
	if err != nil {
		return nil
	}
	var paths []string
	for _, rec := range strings.Split(string(out), "\x00") {
		_, v, ok := strings.Cut(rec, "\n")
		switch {
		case !ok || v == "":
			continue
		case strings.HasPrefix(v, "~/"):
			if home == "" {
				continue
			}
			v = filepath.Join(home, v[2:])
		case !filepath.IsAbs(v):
			v = filepath.Join(filepath.Dir(f), v)
		}
		paths = append(paths, filepath.Clean(v))
	}
	return paths
}

// userGitConfigs are the user's own git configuration files (global).
func userGitConfigs(home string, getenv func(string) string) []string {
	if f := getenv("GIT_CONFIG_GLOBAL"); f != "" {
		return []string{f}
	}
	var out []string
	if x := getenv("XDG_CONFIG_HOME"); x != "" {
		out = append(out, filepath.Join(x, "git", "config"))
	} else if home != "" {
		out = append(out, filepath.Join(home, ".config", "git", "config"))
	}
	if home != "" {
		out = append(out, filepath.Join(home, ".gitconfig"))
	}
	return out
}
