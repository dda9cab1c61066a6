package acp_test

import (
	"os/user"
	"runtime"
	"strings"
	"testing"
)

// TestNoHome: an agent started without HOME (avante does) finds the home
// directory in the user's passwd entry and says so (when even that fails,
// TestFindHome).
func TestNoHome(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no HOME on Windows")
	}
	u, err := user.Current()
	if err != nil || u.HomeDir == "" {
		t.Skipf("no passwd entry for this user: %v", err)
	}
	e := newEnv(t, envOptions{env: []string{"HOME="}})
	e.newSession()
	want := "using " + u.HomeDir + ", the home directory of user " + u.Username
	e.client.waitFor(t, "the agent's note on HOME", func() bool { return strings.Contains(e.proc.stderr.String(), want) })
}
