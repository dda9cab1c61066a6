package sandbox

import (
	"context"
	"os"
	"strings"
	"testing"
)

// TestStatusHonest: each line of the status says only what is enforced.
// Without seccomp nothing says the network is off; without Landlock no
// writable list reads as if writes were confined; a Full sandbox with a
// mechanism missing still says what is not enforced; and the probe
// without user namespaces says its reason once.
func TestStatusHonest(t *testing.T) {
	p := Policy{Writable: []string{"/ws"}}
	full := Support{Filesystem: true, Protect: true, Network: true, PID: true, Scopes: true, Mechanisms: []string{"m"}}
	tests := []struct {
		name    string
		s       Support
		network bool
		want    []string
		not     []string
	}{
		{"full", full, false, []string{"; writable: /ws"}, []string{"not confined", "network on"}},
		{"full, network allowed", full, true, []string{"; network on"}, nil},
		{"no seccomp", Support{Filesystem: true, Protect: true, Missing: []string{"x"}}, false,
			[]string{"; network: not confined (no seccomp)", "commands are asked"}, []string{"network off"}},
		{"no Landlock", Support{Protect: true, Network: true, Missing: []string{"x"}}, false,
			[]string{"; writes: not confined (no Landlock)"}, []string{"writable:"}},
		{"full but no PID namespace", Support{Filesystem: true, Protect: true, Network: true, Missing: []string{"PID namespaces are refused"}}, false,
			[]string{"sandbox: on (", "PID namespaces are refused"}, []string{"commands are asked"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p.Network = tt.network
			out := tt.s.Notice() + tt.s.WritesLine(p)
			if p.Network || !tt.s.Network {
				out += tt.s.NetworkLine(p)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("%q lacks %q", out, w)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(out, n) {
					t.Errorf("%q says %q", out, n)
				}
			}
		})
	}
	if (Support{Filesystem: true, Protect: true, Network: true}).Notice() != "" {
		t.Error("a whole sandbox with nothing missing has a notice")
	}

	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(NoUsernsEnv, "1")
	got := New(context.Background(), self).Support().String()
	if n := strings.Count(got, "not protected by the kernel"); n != 1 {
		t.Errorf("the missing namespaces are told %d times, want once: %s", n, got)
	}
}
