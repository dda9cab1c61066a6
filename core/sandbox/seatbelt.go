package sandbox

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// SeatbeltProfile is macOS Seatbelt's profile for p: everything allowed
// but writes outside p.Writable, writes to p.Protected (a later rule
// wins) and to the entries of each pinned git directory git reads
// configuration, programs or other repositories from, renaming or
// removing p.Pinned, without p.Network any network, connecting to a Unix
// socket but under the workspace's own roots or one of p.UnixSockets,
// and signalling or inspecting a process outside the sandbox. Paths are
// taken as given: Seatbelt matches real paths, so the caller resolves
// symbolic links (/tmp is /private/tmp).
func SeatbeltProfile(p Policy) string {
	var b strings.Builder
	b.WriteString("(version 1)\n(allow default)\n(deny file-write*)\n")
	b.WriteString("(allow file-write*")
	for _, w := range p.Writable {
		b.WriteString(" (subpath " + quote(w) + ")")
	}
	for _, dev := range []string{"/dev/null", "/dev/zero", "/dev/tty", "/dev/dtracehelper"} {
		b.WriteString(" (literal " + quote(dev) + ")")
	}
	b.WriteString(")\n")
	if len(p.Protected) > 0 || len(p.Pinned) > 0 {
		b.WriteString("(deny file-write*")
		for _, x := range p.Protected {
			b.WriteString(" (literal " + quote(x) + ") (subpath " + quote(x) + ")")
		}
		for _, x := range p.Pinned {
			b.WriteString(" (literal " + quote(x) + ")")
		}
		b.WriteString(")\n")
	}
	seatbeltGit(&b, p.Pinned)
	if !p.Network {
		b.WriteString("(deny network*)\n(allow network* (local unix-socket))\n")
	}
	seatbeltSockets(&b, p)
	// The command and what it starts share the sandbox: they may signal
	// and inspect each other, nothing else (Neovim, the host).
	b.WriteString("(deny signal)\n(allow signal (target same-sandbox))\n")
	b.WriteString("(deny process-info*)\n(allow process-info* (target same-sandbox))\n")
	return b.String()
}

// seatbeltGitDenied are the entries of a git directory git reads
// configuration, programs or other repositories from: written by a
// confined command, the user's next plain git command would run its
// program. Denied whether they exist or not, so none can be created.
var seatbeltGitDenied = []string{
	"config", "config.worktree", "commondir", "gitdir", "hooks", "info", "modules", "worktrees",
	"remotes", "branches", "objects/info/alternates", "objects/info/http-alternates",
}

// seatbeltGit denies writes to seatbeltGitDenied in each pinned git
// directory.
func seatbeltGit(b *strings.Builder, pinned []string) {
	var rules []string
	for _, g := range pinned {
		if filepath.Base(g) != ".git" {
			continue
		}
		for _, e := range seatbeltGitDenied {
			x := quote(filepath.Join(g, e))
			rules = append(rules, "(literal "+x+") (subpath "+x+")")
		}
	}
	if len(rules) > 0 {
		b.WriteString("(deny file-write* " + strings.Join(rules, " ") + ")\n")
	}
}

// seatbeltSockets refuses connecting to any Unix socket but those under
// the writable roots other than the shared temp dirs (where Neovim, tmux
// and launchd's ssh-agent keep theirs) and those the user's own config
// names; binding and listening on its own stay allowed.
func seatbeltSockets(b *strings.Builder, p Policy) {
	b.WriteString("(deny network-outbound (remote unix-socket))\n")
	var allow []string
	for _, w := range p.Writable {
		if !sharedTemp(w) {
			allow = append(allow, "(remote unix-socket (subpath "+quote(w)+"))")
		}
	}
	for _, s := range p.UnixSockets {
		allow = append(allow, "(remote unix-socket (path-literal "+quote(s)+"))")
	}
	if len(allow) > 0 {
		b.WriteString("(allow network-outbound " + strings.Join(allow, " ") + ")\n")
	}
}

// macTempDir is a user's own temp dir on macOS ($TMPDIR).
var macTempDir = regexp.MustCompile(`^/private/var/folders/[^/]+/[^/]+/T/?$`)

// sharedTemp reports whether w is a temp dir other programs keep their
// sockets in.
func sharedTemp(w string) bool {
	switch filepath.Clean(w) {
	case "/tmp", "/private/tmp", "/var/tmp", "/private/var/tmp", "/dev/shm":
		return true
	}
	return macTempDir.MatchString(w)
}

// quote is a Seatbelt (Scheme) string: Go's quoting escapes what it needs.
func quote(s string) string { return strconv.Quote(s) }
