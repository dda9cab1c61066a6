package sandbox

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
)

// Box confines commands: the launcher (the host's own binary, or
// Seatbelt's on macOS) and what this machine supports, probed once.
type Box struct {
	launcher string
	support  Support
	userns   bool // start the launcher in user and mount namespaces of its own
}

// New probes what confines commands here, with launcher as the program
// that runs `sandbox-exec`. A nil Box, or one without support, leaves
// commands as they are.
func New(ctx context.Context, launcher string) *Box {
	b := &Box{launcher: launcher}
	b.support, b.userns = probeSupport(ctx, launcher)
	return b
}

// LauncherName is the launcher's own binary, beside the host's.
const LauncherName = "coder-nvim-sandbox"

// Launcher is the program to run `sandbox-exec` with: the small launcher
// binary beside host (the host's executable) when it is there, as it
// starts a few times sooner; else the host itself.
func Launcher(host string) string {
	side := filepath.Join(filepath.Dir(host), LauncherName)
	if fi, err := os.Stat(side); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
		return side
	}
	return host
}

// Support is what confines commands here.
func (b *Box) Support() Support {
	if b == nil {
		return Support{Missing: []string{"no sandbox was set up"}}
	}
	return b.support
}

// Wrap makes cmd, not yet started, run its program confined by p. It
// changes nothing when nothing here confines commands.
func (b *Box) Wrap(cmd *exec.Cmd, p Policy) error {
	if b == nil || !b.support.Any() {
		return nil
	}
	return b.wrap(cmd, p)
}
