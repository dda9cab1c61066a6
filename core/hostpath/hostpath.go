// Package hostpath finds the host's own programs (git, rg, bash, sh) on a
// PATH the workspace cannot add to: a repository's bin/ on the user's PATH,
// or a relative entry such as node_modules/.bin, would otherwise let the
// model's or the repository's files run as the host, unconfined. The same
// cleaned PATH goes to the user's hooks and MCP servers.
package hostpath

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// Programs are the host's programs, resolved once from a cleaned PATH.
// A field is "" when the program was not found.
type Programs struct {
	// Path is the PATH they were found on: the given one without
	// relative or empty entries (which mean the current directory) and
	// without any directory inside the workspace.
	Path    string
	Git     string
	Ripgrep string
	Sh      string
	Bash    string
	// BashMissing says why Bash is "" (with a hint how to install it).
	BashMissing string
	// Dropped are the PATH entries left out, for :checkhealth.
	Dropped []string
	// roots are the workspace, as given and by real path: a program on
	// a kept directory that is a link into it (a dotfiles repository
	// stowed into ~/bin) is not taken either.
	roots []string
}

// Resolve cleans pathList (a PATH value) for workspace and looks the
// host's programs up on what is left.
func Resolve(pathList, workspace string) Programs {
	clean, dropped := Clean(pathList, workspace)
	p := Programs{Path: clean, Dropped: dropped, roots: roots(workspace)}
	p.Git = p.Look("git")
	p.Ripgrep = p.Look("rg")
	p.Sh = p.Look("sh")
	p.Bash, p.BashMissing = findBash(p)
	return p
}

// Clean returns pathList without empty or relative entries and without
// entries inside workspace (by name and by real path), and the entries it
// dropped; entries that are no directory are dropped as well. workspace
// "" drops only those and the relative ones.
func Clean(pathList, workspace string) (clean string, dropped []string) {
	ws := roots(workspace)
	var keep []string
	for _, e := range filepath.SplitList(pathList) {
		if e == "" || !filepath.IsAbs(e) || !isDir(e) || inside(ws, e) {
			dropped = append(dropped, e)
			continue
		}
		keep = append(keep, e)
	}
	return strings.Join(keep, string(os.PathListSeparator)), dropped
}

// roots is the workspace by name and by real path; none for "".
func roots(workspace string) []string {
	if workspace == "" {
		return nil
	}
	ws := []string{filepath.Clean(workspace)}
	if real, err := filepath.EvalSymlinks(workspace); err == nil {
		ws = append(ws, real)
	}
	return ws
}

// isDir: an entry that is no directory (yet) is dropped too, so that a
// link on PATH left dangling into the workspace cannot come alive later.
func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// inside reports whether dir is one of roots or beneath one, by its name
// or by its real path (a link on PATH that leads into the workspace).
func inside(roots []string, dir string) bool {
	cands := []string{filepath.Clean(dir)}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		cands = append(cands, real)
	}
	for _, c := range cands {
		for _, r := range roots {
			if within(r, c) {
				return true
			}
		}
	}
	return false
}

func within(root, p string) bool {
	if runtime.GOOS == "windows" || runtime.GOOS == "darwin" {
		// Case-insensitive file systems by default.
		root, p = strings.ToLower(root), strings.ToLower(p)
	}
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// Look finds name on p.Path, as exec.LookPath does on PATH; "" when it
// is not there. The answer is always absolute.
func (p Programs) Look(name string) string {
	for _, dir := range filepath.SplitList(p.Path) {
		if dir == "" {
			continue
		}
		if path, err := exec.LookPath(filepath.Join(dir, name)); err == nil && !inside(p.roots, path) {
			return path
		}
	}
	return ""
}

// Env returns env with PATH replaced by p.Path (added when env has none),
// for the programs the host starts for the user: hooks, MCP servers,
// verify commands.
func (p Programs) Env(env []string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if isPath(kv) {
			continue
		}
		out = append(out, kv)
	}
	return append(out, "PATH="+p.Path)
}

func isPath(kv string) bool {
	k, _, ok := strings.Cut(kv, "=")
	if !ok {
		return false
	}
	if runtime.GOOS == "windows" {
		return strings.EqualFold(k, "PATH")
	}
	return k == "PATH"
}

// Command is exec.Command with name looked up on p.Path when it is a
// bare name (no separator); a name that is not found stays as given, so
// that the start fails with exec's own "not found" error — never found on
// the uncleaned PATH: the command's Path is made absolute or left unrunnable.
func (p Programs) Command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	if !strings.ContainsAny(name, `/\`) {
		if abs := p.Look(name); abs != "" {
			cmd.Path = abs
			cmd.Err = nil
		} else {
			cmd.Err = &exec.Error{Name: name, Err: exec.ErrNotFound}
		}
	}
	return cmd
}
