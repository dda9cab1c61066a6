package tools

import (
	"testing"

	"github.com/coder-nvim/coder-nvim/core/event"
)

// A note on a bash summary goes before its duration, so front ends find
// the duration and show it once, not "exit 1 (0s), … (18.0 s)" (issue 52).
func TestNoteBeforeDuration(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		timed    bool
	}{
		{"exit 1 (0s)", "exit 1, the sandbox may have refused it (0s)", true},
		{"exit 126 (1.2s)", "exit 126, the sandbox may have refused it (1.2s)", true},
		{"exit 1", "exit 1, the sandbox may have refused it", false},
	} {
		got := noteBeforeDuration(tc.in, ", the sandbox may have refused it")
		if got != tc.want {
			t.Errorf("noteBeforeDuration(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if _, _, ok := event.SplitDuration(got); ok != tc.timed {
			t.Errorf("SplitDuration(%q) found a duration: %v, want %v", got, ok, tc.timed)
		}
	}
}
