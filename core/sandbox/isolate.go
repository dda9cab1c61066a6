package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// Isolation is what keeps a confined command from the host's daemons
// (Neovim, tmux, D-Bus, ssh-agent, Docker) and gives it places of its
// own, applied once per launcher in its own mount namespace
// (isolate_linux.go): Landlock cannot refuse a connect to a pathname Unix
// socket, so the directories such sockets live in are replaced instead,
// whatever sockets they hold.
type Isolation struct {
	// Temp is the session's own temp dir (a host path), mounted over
	// TempDirs: the confined commands' temp is theirs alone.
	Temp     string   `json:"temp,omitempty"`
	TempDirs []string `json:"temp_dirs,omitempty"`
	// ReadView are shown read-only with no socket in them reachable (an
	// overlay; empty where the kernel has none for us).
	ReadView []string `json:"read_view,omitempty"`
	// Hide are emptied: a fresh tmpfs over a directory, /dev/null over a
	// file. Every socket under /run is hidden too.
	Hide []string `json:"hide,omitempty"`
	// Keep are bound back in place through all of the above (the
	// workspace, when it lies in a temp dir), as are the writable roots
	// and UnixSockets.
	Keep []string `json:"keep,omitempty"`
	// EnvKeep and EnvDrop are glob patterns of variable names (env.go).
	EnvKeep []string `json:"env_keep,omitempty"`
	EnvDrop []string `json:"env_drop,omitempty"`
}

// isolationMissing is Support.Missing's line when the launcher has no
// mount namespace of its own to isolate commands in.
const isolationMissing = "without a mount namespace the Unix sockets outside the sandbox (Neovim's, tmux's, D-Bus, ssh-agent's, Docker's) stay reachable and the temp dir is the host's"

// Private is a session's own places for its confined commands: a temp
// dir for this session, removed with it, and the workspace's build
// cache, kept between sessions so that it stays warm and shared with no
// other workspace.
type Private struct {
	Temp      string // "" when it could not be made: the host's temp is masked empty
	Cache     string // the workspace's; "" without a state dir
	CacheBase string // every workspace's caches: read-only to this one's commands
}

// OpenPrivate makes the session's temp dir under the host's and the
// workspace's cache under stateDir (the host's state dir). A part that
// cannot be made is left out, and the sandbox still hides the host's.
func OpenPrivate(root, stateDir string) *Private {
	p := &Private{}
	sweepTemps()
	if d, err := os.MkdirTemp("", fmt.Sprintf("%s%d-", tempPrefix, os.Getpid())); err == nil {
		p.Temp = d
	}
	if stateDir != "" {
		p.CacheBase = filepath.Join(stateDir, "cache")
		p.Cache = filepath.Join(p.CacheBase, CacheKey(root))
		if err := os.MkdirAll(p.Cache, 0o700); err != nil {
			p.Cache, p.CacheBase = "", ""
		}
	}
	return p
}

// tempPrefix starts the name of a session's temp dir, followed by the
// host's pid.
const tempPrefix = "coder-nvim-sandbox-"

// sweepTemps removes the temp dirs of sessions whose host is gone
// without closing them (killed): nothing reads them any more.
func sweepTemps() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), tempPrefix+"*-*"))
	for _, d := range dirs {
		pidText, _, _ := strings.Cut(strings.TrimPrefix(filepath.Base(d), tempPrefix), "-")
		pid, err := strconv.Atoi(pidText)
		if err != nil || pid <= 0 || pid == os.Getpid() {
			continue
		}
		if pr, err := os.FindProcess(pid); err == nil && errors.Is(pr.Signal(syscall.Signal(0)), os.ErrProcessDone) {
			os.RemoveAll(d) //nolint:errcheck // best effort; the next session tries again
		}
	}
}

// Close removes the session's temp dir.
func (p *Private) Close() error {
	if p == nil || p.Temp == "" {
		return nil
	}
	return os.RemoveAll(p.Temp)
}

// CacheKey names a workspace's cache: a hash of its real path, and its
// name to be readable.
func CacheKey(root string) string {
	abs, err := filepath.Abs(root)
	if err != nil {
		abs = root
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	sum := sha256.Sum256([]byte(abs))
	name := strings.Map(func(r rune) rune {
		if r < 0x80 && (r == '-' || r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return r
		}
		return '_'
	}, filepath.Base(abs))
	return hex.EncodeToString(sum[:8]) + "-" + name
}

// cacheEnv points the usual build and package caches at dir.
func cacheEnv(dir string) []string {
	return []string{"XDG_CACHE_HOME=" + dir, "GOCACHE=" + filepath.Join(dir, "go-build"),
		"npm_config_cache=" + filepath.Join(dir, "npm"), "PIP_CACHE_DIR=" + filepath.Join(dir, "pip"),
		"YARN_CACHE_FOLDER=" + filepath.Join(dir, "yarn"), "CCACHE_DIR=" + filepath.Join(dir, "ccache")}
}

// Rules are the user's own sandbox settings that Apply takes.
type Rules struct {
	UnixSockets      []string // the user's config only
	EnvKeep, EnvDrop []string // a project may only add to EnvDrop
}

// Apply completes p, a policy for the workspace root, with the session's
// own places and what the confined commands must not reach: the temp
// dirs (hostTemp, /tmp, /var/tmp), the runtime dirs, the daemons'
// sockets, the secrets in the environment. getenv is the host's.
func (pv *Private) Apply(p *Policy, root, hostTemp string, r Rules, getenv func(string) string) {
	p.UnixSockets = slices.Clone(r.UnixSockets)
	p.EnvKeep, p.EnvDrop = slices.Clone(r.EnvKeep), slices.Clone(r.EnvDrop)
	p.Keep = []string{root}
	if pv != nil && pv.Temp != "" {
		p.Temp, p.TempDirs = pv.Temp, []string{hostTemp}
	} else {
		p.Hide = append(p.Hide, hostTemp)
	}
	// /run too: its files (resolv.conf, NixOS's programs) stay, and no
	// socket there is reachable, one made later included.
	for _, d := range []string{"/tmp", "/var/tmp", "/run"} {
		if d != hostTemp {
			p.ReadView = append(p.ReadView, d)
		}
	}
	p.Hide = append(p.Hide, socketPlaces(getenv)...)
	cache := filepath.Join(hostTemp, fmt.Sprintf("coder-nvim-cache-%d", os.Getuid()))
	if pv != nil && pv.Cache != "" {
		cache = pv.Cache
		// The other workspaces' caches stay read-only, this one's
		// writable and in place.
		p.Writable = append(p.Writable, cache)
		p.Pinned = append(p.Pinned, cache)
		p.Protected = append(p.Protected, pv.CacheBase)
	}
	p.Env = withEnv(p.Env, cacheEnv(cache))
}

// socketPlaces are where the host's daemons keep their sockets, besides
// the temp dirs: the user's runtime dir (D-Bus, ssh-agent, gpg-agent,
// Wayland, PipeWire, Neovim 0.9+) and the system's; /dev/shm gets a
// fresh tmpfs of its own. /run itself is not emptied (resolv.conf and,
// on NixOS, the programs are there) but a read view; these, and the
// sockets found there (isolate_linux.go), are hidden also for a kernel
// that cannot make the view.
func socketPlaces(getenv func(string) string) []string {
	out := []string{"/dev/shm", "/run/user"}
	if d := getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(d) {
		out = append(out, filepath.Clean(d))
	}
	for _, d := range []string{"dbus", "docker.sock", "docker", "containerd", "podman", "snapd.socket", "snapd-snap.socket",
		"libvirt", "cups", "avahi-daemon", "screen", "tmux", "systemd/private", "systemd/userdb", "systemd/journal"} {
		out = append(out, "/run/"+d)
	}
	return out
}
