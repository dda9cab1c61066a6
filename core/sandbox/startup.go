package sandbox

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// runsLater are the paths under the home directory that programs the
// user runs later execute, or take commands from, with the user's
// authority and no sandbox: the shells' startup files, the desktop
// session's autostart entries, login scripts and user services
// (launchd's agents on macOS), the editors' configuration, the per-user directories on PATH, ssh's configuration
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
	".config/autostart-scripts", ".config/plasma-workspace", ".gnomerc", // KDE's and GNOME's login scripts
	"Library/LaunchAgents", // macOS: launchd loads them at login
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
		g.homeGuarded = g.guardLater(p, home, "~/") || g.homeGuarded
	}
}

// StatusLine is the status's part on what g keeps of the home: "" when
// no writable root holds it.
func (g *Guard) StatusLine() string {
	if g == nil || !g.homeGuarded {
		return ""
	}
	return "; a writable root holds your home: its startup files are read-only (made ones moved aside)"
}

// watched is a path that runs later, missing when the guard was made:
// one a call makes is moved aside beneath base, and shown as prefix and
// its path relative to base.
type watched struct{ path, base, prefix string }

// guardLater protects p when a writable root holds it, and watches it
// when it is missing (see guardRunsLater); it reports whether it did.
func (g *Guard) guardLater(p, base, prefix string) bool {
	if !g.writable(p) {
		return false
	}
	g.protect(p)
	if _, err := os.Lstat(p); err != nil && !slices.ContainsFunc(g.later, func(w watched) bool { return w.path == p }) {
		g.later = append(g.later, watched{p, base, prefix})
	}
	return true
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
	for _, w := range g.later {
		if _, err := os.Lstat(w.path); err == nil {
			before[w.path] = true // the user's own, made during the session
		}
	}
	return func(ctx context.Context) string {
		notes := []string{g.watch.check(ctx), g.refuseMade(before)}
		return strings.TrimSpace(strings.Join(notes, "\n"))
	}
}

// refuseMade moves aside each watched path that did not exist before
// the call and does now, beneath its base.
func (g *Guard) refuseMade(before map[string]bool) string {
	var refused []string
	for _, w := range g.later {
		if before[w.path] {
			continue
		}
		if _, err := os.Lstat(w.path); err != nil {
			continue
		}
		rel, err := filepath.Rel(w.base, w.path)
		if err != nil || !filepath.IsLocal(rel) {
			continue // a $ZDOTDIR outside the home: guarded once it exists only
		}
		shown := w.prefix + filepath.ToSlash(rel)
		to, err := moveAside(w.base, rel)
		if err != nil {
			refused = append(refused, fmt.Sprintf("%s (could not be moved aside: %v)", shown, err))
			continue
		}
		refused = append(refused, fmt.Sprintf("%s (moved to %s%s)", shown, w.prefix, filepath.ToSlash(to)))
	}
	if len(refused) == 0 {
		return ""
	}
	return "[sandbox: the command made " + strings.Join(refused, ", ") + ": your shell, desktop session, editor or git would run it later as you, outside any sandbox. Move it back yourself (outside the agent) if you trust it.]"
}

// moveAside renames rel beneath base (an os.Root: no link leads the
// rename out of it) to the first free rel.refused[-N].
func moveAside(base, rel string) (string, error) {
	root, err := os.OpenRoot(base)
	if err != nil {
		return "", err
	}
	defer root.Close()
	return renameAside(root, rel)
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
