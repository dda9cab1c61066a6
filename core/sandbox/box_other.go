//go:build !(linux || darwin)

package sandbox

import (
	"context"
	"os/exec"
	"runtime"
)

func probeSupport(context.Context, string) (Support, bool) {
	return Support{Missing: []string{"no sandbox is built for " + runtime.GOOS + ": commands run unconfined, and are asked as before"}}, false
}

func (b *Box) wrap(*exec.Cmd, Policy) error { return nil }

// Main: there is no launcher here.
func Main([]string) int { return exitSetup }
