//go:build unix

package hooks

import (
	"os/exec"

	"github.com/coder-nvim/coder-nvim/core/hostpath"
)

// shellCommand runs command with sh -c, as Claude Code and git hooks do:
// the host's sh (hostpath), never one the workspace put on PATH.
func shellCommand(progs hostpath.Programs, command string) *exec.Cmd {
	return progs.Command("sh", "-c", command)
}
