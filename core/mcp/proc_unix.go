//go:build unix

package mcp

import (
	"os/exec"
	"syscall"
)

// ownGroup puts a stdio server in its own process group, so killGroup can
// end the processes it started too.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup ends whatever is left of the server's process group.
func killGroup(cmd *exec.Cmd) {
	if cmd == nil || cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if cmd.ProcessState == nil {
		_ = cmd.Process.Kill()
	}
}
