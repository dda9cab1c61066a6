package tools

import (
	"os"
	"os/exec"
)

// commandReader: as on Unix (bash_unix.go), but the command comes on
// stdin, since Windows passes a child no descriptor past the three
// standard ones; stdin is /dev/null again before the command runs.
const commandReader = `__coder_nvim_command=$(</dev/stdin); exec 0</dev/null; eval "$__coder_nvim_command"`

// passCommand gives bash the read end of the command's pipe as stdin.
func passCommand(cmd *exec.Cmd, r *os.File) { cmd.Stdin = r }
