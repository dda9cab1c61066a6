//go:build unix

package hooks

import "os/exec"

// shellCommand runs command with sh -c, as Claude Code and git hooks do.
func shellCommand(command string) *exec.Cmd {
	return exec.Command("sh", "-c", command)
}
