//go:build unix

package tools

import (
	"os"
	"os/exec"
)

// commandReader is the script every bash call runs: it reads its command
// from fd 3 until the host closes it — so that a bash can be started
// before its command is known (Shells) — and runs it by eval, with fd 3
// closed and no positional parameters as under bash -c, so that its exit
// status is bash's. `$(<file)` reads in large blocks without a fork (bash
// 5.2), where `read` would take a byte per system call from a pipe. Only
// the variable holding the command remains visible. One line, so that
// bash's messages give the command's own line numbers. A bash whose host
// died reads an empty command and ends; the group watcher (groupwatch.go)
// kills what a command started.
const commandReader = `__coder_nvim_command=$(</dev/fd/3); exec 3<&-; eval "$__coder_nvim_command"`

// passCommand gives bash the read end of the command's pipe as fd 3;
// stdin stays /dev/null.
func passCommand(cmd *exec.Cmd, r *os.File) { cmd.ExtraFiles = []*os.File{r} }
