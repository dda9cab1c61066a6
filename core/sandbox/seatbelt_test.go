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
		"(deny network*)\n(allow network* (remote unix-socket) (local unix-socket))\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("profile lacks %q:\n%s", want, got)
		}
	}
	if strings.Index(got, "(allow file-write*") > strings.Index(got, `(deny file-write* (literal "/ws/.git/config")`) {
		t.Error("the protected paths' deny must follow the writable roots' allow")
	}
	p.Network = true
	if got := SeatbeltProfile(p); strings.Contains(got, "network") {
		t.Errorf("network allowed, yet the profile restricts it:\n%s", got)
	}
	odd := SeatbeltProfile(Policy{Writable: []string{`/a "b"\c`}})
	if !strings.Contains(odd, `(subpath "/a \"b\"\\c")`) {
		t.Errorf("a path with quotes is not quoted:\n%s", odd)
	}
}
