package agent

import (
	"strings"
	"testing"
)

// TestStatusIdleNotRunning (issue 39): /status in an idle session does not
// call its own conversation "(running)" — the only task running there is
// the /status itself.
func TestStatusIdleNotRunning(t *testing.T) {
	f := newFixture(t, nil)
	f.run(t, "/status")
	out := lastOutput(f)
	if !strings.Contains(out, "(this one)") || strings.Contains(out, "(running)") {
		t.Errorf("/status of an idle session:\n%s", out)
	}
}
