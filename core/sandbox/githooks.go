package sandbox

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// hookManagers are the hook managers whose shims, in a hooks directory,
// run what a file of the work tree names: by a word of the shim, those
// files (pre-commit's local hooks, lefthook's commands).
var hookManagers = []struct {
	marker string
	files  []string
}{
	{"pre-commit", []string{".pre-commit-config.yaml", ".pre-commit-config.yml"}},
	{"lefthook", []string{"lefthook.yml", ".lefthook.yml", "lefthook.yaml", ".lefthook.yaml", "lefthook.toml", ".lefthook.toml",
		"lefthook.json", ".lefthook.json", "lefthook-local.yml", ".lefthook-local.yml", "lefthook-local.yaml", ".lefthook-local.yaml",
		".lefthook", ".lefthook-local", ".config/lefthook.yml", ".config/lefthook-local.yml"}},
}

// editorRC are the files of a directory Vim and Neovim source at start
// with 'exrc' set: before 0.9 without asking ('secure' spares a file
// the user owns, as a command's are), so a command must not make them.
var editorRC = []string{".nvimrc", ".exrc", ".nvim.lua"}

// WorkspaceRunsLater are the paths of workspace root that run later as
// the user: its editor rc files and what GitRunsLater names.
func WorkspaceRunsLater(ctx context.Context, root, home string) []string {
	var out []string
	for _, f := range editorRC {
		out = append(out, filepath.Join(realPath(root), f))
	}
	return append(out, GitRunsLater(ctx, root, home)...)
}

// GitRunsLater are the paths of the work tree of the repository holding
// workspace root that the user's git runs later (on commit, checkout,
// merge, pull), besides the git directory (the git guard's): the
// directory core.hooksPath names (HookDirs), and the files a hook
// manager's shim in the hooks directory runs from.
func GitRunsLater(ctx context.Context, root, home string) []string {
	l, found := findGit(realPath(root))
	if !found {
		return nil
	}
	top := filepath.Dir(l.dotGit)
	dirs := hookDirs(ctx, top, root, home)
	hooks := append([]string{filepath.Join(l.commonDir, "hooks")}, dirs...)
	out := dirs
	for _, m := range hookManagers {
		if !shimIn(hooks, m.marker) {
			continue
		}
		for _, f := range m.files {
			out = append(out, filepath.Join(top, filepath.FromSlash(f)))
		}
	}
	return out
}

// shimIn reports whether a hook of one of dirs names marker (the first
// 4 KB of each, a hook manager's generated shim).
func shimIn(dirs []string, marker string) bool {
	for _, d := range dirs {
		ents, _ := os.ReadDir(d)
		for _, e := range ents {
			if e.IsDir() || strings.HasSuffix(e.Name(), ".sample") {
				continue
			}
			f, err := os.Open(filepath.Join(d, e.Name()))
			if err != nil {
				continue
			}
			buf := make([]byte, 4096)
			n, _ := io.ReadFull(f, buf)
			f.Close()
			if strings.Contains(string(buf[:n]), marker) {
				return true
			}
		}
	}
	return false
}

// HookDirs are the directories the user's git runs hooks from (on
// commit, checkout, merge, pull) for the repository holding workspace
// root, when they are not the git directory's own hooks/ (kept by the
// git guard): core.hooksPath, and for husky's ".husky/_" the ".husky"
// whose scripts those hooks run. Outside the roots they are of no
// concern; the caller checks.
func HookDirs(ctx context.Context, root string, home string) []string {
	l, found := findGit(realPath(root))
	if !found {
		return nil
	}
	return hookDirs(ctx, filepath.Dir(l.dotGit), root, home)
}

// hookDirs is HookDirs for the work tree top.
func hookDirs(ctx context.Context, top, root, home string) []string {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	// git config reads configuration files alone: nothing runs. Not
	// hostGit: its -c core.hooksPath would be what is read back.
	cmd := exec.CommandContext(ctx, gitProgram(root), "config", "--get", "core.hooksPath")
	cmd.Dir = top
	cmd.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "GIT_") })
	out, err := cmd.Output()
	v := strings.TrimSpace(string(out))
	if err != nil || v == "" {
		return nil
	}
	switch {
	case strings.HasPrefix(v, "~/") && home != "":
		v = filepath.Join(home, v[2:])
	case !filepath.IsAbs(v):
		v = filepath.Join(top, v)
	}
	dirs := []string{filepath.Clean(v)}
	if filepath.Base(v) == "_" {
		dirs = append(dirs, filepath.Dir(filepath.Clean(v))) // husky 9: _/h runs ../<hook>
	}
	return dirs
}

// guardWorkspaceRunsLater protects what runs later from the workspace
// root (paths: WorkspaceRunsLater) where a writable root holds it; a
// missing one a call makes is moved aside at its end, beneath the work
// tree's top (the workspace outside git).
func (g *Guard) guardWorkspaceRunsLater(root string, paths []string) {
	base := root
	if l, found := findGit(root); found && within(root, filepath.Dir(l.dotGit)) {
		base = filepath.Dir(l.dotGit)
	}
	for _, p := range paths {
		g.guardLater(p, base, "")
	}
}
