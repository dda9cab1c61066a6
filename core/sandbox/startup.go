package sandbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// runsLater are the paths under the home directory that programs the
// user runs later execute, or take commands from, with the user's
// authority and no sandbox: the shells' startup files, the desktop
// session's autostart entries and user services, the editors'
// configuration, the per-user directories on PATH, ssh's configuration
// and npm's (its script-shell and node-options run programs). A workspace
// holding the home directory (Neovim opened in ~) has them among its
// files; a confined command must not write them.
var runsLater = []string{
	".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile",
	".zshenv", ".zprofile", ".zshrc", ".zlogin", ".zlogout",
	".kshrc", ".mkshrc", ".cshrc", ".tcshrc", ".login", ".logout",
	".xprofile", ".xinitrc", ".xsession", ".xsessionrc", ".pam_environment",
	".vimrc", ".gvimrc", ".exrc", ".vim", ".config/nvim", ".tmux.conf", ".config/tmux",
	".config/fish", ".config/autostart", ".config/systemd", ".config/environment.d",
	".local/bin", "bin", ".ssh", ".npmrc",
}

// zshStartup are zsh's startup files, looked for in $ZDOTDIR when set.
var zshStartup = []string{".zshenv", ".zprofile", ".zshrc", ".zlogin", ".zlogout"}

// RunsLater are the runsLater paths of the home directory home, absolute,
// with zsh's in $ZDOTDIR when it is set; none without a home.
func RunsLater(home string, getenv func(string) string) []string {
	if home == "" || !filepath.IsAbs(home) {
		return nil
	}
	var out []string
	for _, p := range runsLater {
		out = append(out, filepath.Join(home, filepath.FromSlash(p)))
	}
	if getenv == nil {
		getenv = os.Getenv
	}
	if z := getenv("ZDOTDIR"); z != "" && filepath.IsAbs(z) && filepath.Clean(z) != filepath.Clean(home) {
		for _, p := range zshStartup {
			out = append(out, filepath.Join(z, p))
		}
	}
	return out
}

// guardRunsLater protects the runsLater paths a writable root holds:
// those that exist by a read-only mount (Seatbelt by name, missing ones
// too); those missing are watched, and one a confined call makes is
// moved aside at the call's end (refuseMade): no mount can keep a name
// from being made, and a placeholder in the home directory would change
// what the user's shell reads (an empty .bash_profile hides .profile).
func (g *Guard) guardRunsLater(home string, getenv func(string) string) {
	for _, p := range RunsLater(home, getenv) {
		if !g.writable(p) {
			continue
		}
		g.protect(p)
		if _, err := os.Lstat(p); err != nil {
			g.later = append(g.later, p)
		}
	}
	g.home = home
}

// BeginCall is called as a confined call starts; the func it returns is
// called as the call ends and says what the host refused, for the model
// and the user ("" when nothing): the nested repositories the user's git
// would run programs of (gitlinkWatch), and the startup paths the call
// made.
func (g *Guard) BeginCall() func(context.Context) string {
	if g == nil {
		return func(context.Context) string { return "" }
	}
	before := map[string]bool{}
	for _, p := range g.later {
		if _, err := os.Lstat(p); err == nil {
			before[p] = true // the user's own, made during the session
		}
	}
	return func(ctx context.Context) string {
		notes := []string{g.watch.check(ctx), g.refuseMade(before)}
		return strings.TrimSpace(strings.Join(notes, "\n"))
	}
}

// refuseMade moves aside, within the home directory, each watched path
// that did not exist before the call and does now.
func (g *Guard) refuseMade(before map[string]bool) string {
	var refused []string
	var root *os.Root
	for _, p := range g.later {
		if before[p] {
			continue
		}
		if _, err := os.Lstat(p); err != nil {
			continue
		}
		rel, err := filepath.Rel(g.home, p)
		if err != nil || !filepath.IsLocal(rel) {
			continue // a $ZDOTDIR outside the home: guarded once it exists only
		}
		if root == nil {
			if root, err = os.OpenRoot(g.home); err != nil {
				refused = append(refused, fmt.Sprintf("~/%s (could not be moved aside: %v)", filepath.ToSlash(rel), err))
				continue
			}
			defer root.Close()
		}
		to, err := renameAside(root, rel)
		if err != nil {
			refused = append(refused, fmt.Sprintf("~/%s (could not be moved aside: %v)", filepath.ToSlash(rel), err))
			continue
		}
		refused = append(refused, fmt.Sprintf("~/%s (moved to ~/%s)", filepath.ToSlash(rel), filepath.ToSlash(to)))
	}
	if len(refused) == 0 {
		return ""
	}
	return "[sandbox: the command made " + strings.Join(refused, ", ") + ": your shell, desktop session or editor would run it later as you, outside any sandbox. Move it back yourself (outside the agent) if you trust it.]"
}

// renameAside renames rel beneath root to the first free rel.refused[-N].
func renameAside(root *os.Root, rel string) (string, error) {
	to := rel + ".refused"
	for i := 1; ; i++ {
		if _, err := root.Lstat(to); err != nil {
			break
		}
		to = fmt.Sprintf("%s.refused-%d", rel, i)
	}
	return to, root.Rename(rel, to)
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
	top := filepath.Dir(l.dotGit)
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	// git config reads configuration files alone: nothing runs.
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

// guardHookDirs protects the hook directories (HookDirs) a writable root
// holds.
func (g *Guard) guardHookDirs(ctx context.Context, root, home string) {
	for _, d := range HookDirs(ctx, root, home) {
		if g.writable(d) {
			g.protectMade(d, noPlaceholder)
		}
	}
}
