package tools

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"github.com/coder-nvim/coder-nvim/core/hostpath"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/coder-nvim/coder-nvim/core/proc"
	"github.com/coder-nvim/coder-nvim/core/shellcheck"
)

// maxListed bounds how many files a tree listing collects (Workspace.listed
// lowers it in tests).
const maxListed = 200_000

// listFiles returns the regular files under dir (absolute, inside the
// workspace), as slash paths relative to dir, honouring .gitignore. In a git
// work tree it asks git; otherwise it walks the tree with the root
// .gitignore. It never descends into .git and skips symlinks.
// capped reports that the listing stopped at maxListed files. With rg on
// PATH, rg lists (it is several times faster than git on large trees).
func (w *Workspace) listFiles(ctx context.Context, dir string) (files []string, capped bool, err error) {
	if rg := w.ripgrep(); rg != "" {
		files, capped, err := rgFiles(ctx, rg, dir, "", 0, w.listLimit())
		if !errors.Is(err, errRgFailed) {
			return files, capped, err
		}
	}
	if files, ok := gitFiles(ctx, w.progs, dir, w.listLimit()); ok {
		return files, len(files) >= w.listLimit(), nil
	}
	files, err = w.walkFiles(ctx, dir)
	return files, len(files) >= w.listLimit(), err
}

func (w *Workspace) listLimit() int {
	if w.listed > 0 {
		return w.listed
	}
	return maxListed
}

// ripgrep returns the path of rg, looked up once, or "" when the built-in
// search is to be used.
func (w *Workspace) ripgrep() string {
	w.rgOnce.Do(func() {
		if !w.noRipgrep {
			w.rg = w.progs.Ripgrep
		}
	})
	return w.rg
}

// gitFiles lists files with git; ok is false when git is missing or dir is
// not in a work tree.
func gitFiles(ctx context.Context, progs hostpath.Programs, dir string, limit int) ([]string, bool) {
	if progs.Git == "" {
		return nil, false
	}
	cmd := exec.CommandContext(ctx, progs.Git, "-C", dir, "ls-files", "--cached", "--others", "--exclude-standard", "-z")
	// dir may hold a repository the model wrote (a bare one, or one with
	// an fsmonitor command): git must not load it or run anything.
	cmd.Env = append(append(progs.Env(os.Environ()), "GIT_OPTIONAL_LOCKS=0"), shellcheck.ReadOnlyEnv()...)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	if err := proc.Run(cmd); err != nil {
		return nil, false
	}
	out := stdout.Bytes()
	var files []string
	for name := range bytes.SplitSeq(out, []byte{0}) {
		if len(name) == 0 {
			continue
		}
		rel := string(name)
		if inGitDir(rel) {
			continue
		}
		// The index may list files deleted from the work tree, and
		// submodules appear as directories.
		st, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil || !st.Mode().IsRegular() {
			continue
		}
		files = append(files, rel)
		if len(files) >= limit {
			break
		}
	}
	return files, true
}

func (w *Workspace) walkFiles(ctx context.Context, dir string) ([]string, error) {
	ign := loadIgnore(filepath.Join(w.root, ".gitignore"))
	var files []string
	errFull := errors.New("full")
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir {
				return err
			}
			return nil // unreadable entries are skipped, not fatal
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		rootRel, ok := w.relative(p)
		if !ok {
			return filepath.SkipDir
		}
		if p != dir && ign.ignored(rootRel, d.IsDir()) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return nil
		}
		files = append(files, filepath.ToSlash(rel))
		if len(files) >= w.listLimit() {
			return errFull
		}
		return nil
	})
	if err != nil && !errors.Is(err, errFull) {
		return nil, err
	}
	return files, nil
}

// ignoreRule is one line of a .gitignore.
type ignoreRule struct {
	pattern  string
	negate   bool
	dirOnly  bool
	anchored bool // contains a slash: matched against the whole path
}

type ignoreRules []ignoreRule

// loadIgnore reads a .gitignore; a missing file means no rules.
func loadIgnore(file string) ignoreRules {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil
	}
	var rules ignoreRules
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), " \t\r")
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		var r ignoreRule
		if rest, ok := strings.CutPrefix(line, "!"); ok {
			r.negate, line = true, rest
		}
		line = strings.TrimPrefix(line, `\`)
		if rest, ok := strings.CutSuffix(line, "/"); ok {
			r.dirOnly, line = true, rest
		}
		if strings.Contains(line, "/") {
			r.anchored = true
			line = strings.TrimPrefix(line, "/")
		}
		if line == "" || !doublestar.ValidatePattern(line) {
			continue
		}
		r.pattern = line
		rules = append(rules, r)
	}
	return rules
}

// ignored reports whether rel (slash path relative to the root) is ignored;
// the last matching rule wins, as in git.
func (rules ignoreRules) ignored(rel string, isDir bool) bool {
	ignored := false
	for _, r := range rules {
		if r.dirOnly && !isDir {
			continue
		}
		name := path.Base(rel)
		if r.anchored {
			name = rel
		}
		if doublestar.MatchUnvalidated(r.pattern, name) {
			ignored = !r.negate
		}
	}
	return ignored
}
