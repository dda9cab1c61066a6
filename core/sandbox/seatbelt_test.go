package sandbox

import (
	"strings"
	"testing"
)

// TestSeatbeltProfile checks the macOS profile's text (it cannot run
// here): writes allowed under the writable roots only, the protected
// paths denied after them (a later rule wins), the pinned directory
// itself denied, the network denied but for Unix sockets unless allowed,
// and paths quoted.
func TestSeatbeltProfile(t *testing.T) {
	p := Policy{
		Writable:  []string{"/ws", "/private/tmp"},
		Protected: []string{"/ws/.git/config", "/ws/.coder"},
		Pinned:    []string{"/ws/.git"},
	}
	got := SeatbeltProfile(p)
	for _, want := range []string{
		"(version 1)\n(allow default)\n(deny file-write*)\n",
		`(allow file-write* (subpath "/ws") (subpath "/private/tmp") (literal "/dev/null")`,
		`(deny file-write* (literal "/ws/.git/config") (subpath "/ws/.git/config") (literal "/ws/.coder") (subpath "/ws/.coder") (literal "/ws/.git"))`,
		"(deny network*)\n(allow network* (local unix-socket))\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("profile lacks %q:\n%s", want, got)
		}
	}
	if strings.Index(got, "(allow file-write*") > strings.Index(got, `(deny file-write* (literal "/ws/.git/config")`) {
		t.Error("the protected paths' deny must follow the writable roots' allow")
	}
	p.Network = true
	if got := SeatbeltProfile(p); strings.Contains(got, "network*") {
		t.Errorf("network allowed, yet the profile restricts it:\n%s", got)
	}
	odd := SeatbeltProfile(Policy{Writable: []string{`/a "b"\c`}})
	if !strings.Contains(odd, `(subpath "/a \"b\"\\c")`) {
		t.Errorf("a path with quotes is not quoted:\n%s", odd)
	}
}

// TestSeatbeltProfileProcesses checks the rules issue 44 adds, as text:
// Unix socket connects refused but under the workspace and to the
// sockets the user's config names (not under the shared temp dirs, where
// Neovim's, tmux's and ssh-agent's are), network or not; no signal and
// no process inspection outside the sandbox; git's configuration entries
// denied in the pinned .git, existing or not.
func TestSeatbeltProfileProcesses(t *testing.T) {
	p := Policy{
		Writable:    []string{"/ws", "/private/tmp", "/private/var/folders/ab/cd/T"},
		Pinned:      []string{"/ws/.git"},
		UnixSockets: []string{"/var/run/docker.sock"},
	}
	for _, network := range []bool{false, true} {
		p.Network = network
		got := SeatbeltProfile(p)
		for _, want := range []string{
			"(deny network-outbound (remote unix-socket))\n" +
				`(allow network-outbound (remote unix-socket (subpath "/ws")) (remote unix-socket (path-literal "/var/run/docker.sock")))` + "\n",
			"(deny signal)\n(allow signal (target same-sandbox))\n",
			"(deny process-info*)\n(allow process-info* (target same-sandbox))\n",
		} {
			if !strings.Contains(got, want) {
				t.Errorf("network %v: profile lacks %q:\n%s", network, want, got)
			}
		}
		for _, tmp := range []string{"/private/tmp", "/private/var/folders/ab/cd/T"} {
			if strings.Contains(got, `(remote unix-socket (subpath "`+tmp+`"))`) {
				t.Errorf("sockets in the shared %s are allowed:\n%s", tmp, got)
			}
		}
		if strings.Index(got, "(deny network-outbound (remote unix-socket))") < strings.Index(got, "(deny network*)") {
			t.Errorf("the Unix socket rules must follow the network's (a later rule wins):\n%s", got)
		}
	}
	got := SeatbeltProfile(p)
	for _, e := range []string{"config", "config.worktree", "commondir", "gitdir", "hooks", "info", "modules", "worktrees", "objects/info/alternates"} {
		want := `(literal "/ws/.git/` + e + `") (subpath "/ws/.git/` + e + `")`
		if !strings.Contains(got, want) {
			t.Errorf("git's %s is not denied:\n%s", e, got)
		}
	}
	for _, w := range []string{"/ws/.git/index", "/ws/.git/objects\")", "/ws/.git/refs"} {
		if strings.Contains(got, `(subpath "`+w) {
			t.Errorf("%s, which git add and commit write, is denied:\n%s", w, got)
		}
	}
	if got := SeatbeltProfile(Policy{Writable: []string{"/ws"}, Pinned: []string{"/ws/other"}}); strings.Contains(got, "/ws/other/config") {
		t.Errorf("a pinned directory that is no .git got git's rules:\n%s", got)
	}
}
