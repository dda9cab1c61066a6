//go:build unix

package nvimhost

import (
	"os/exec"
	"syscall"
)

// ownSession starts cmd in a session of its own.
func ownSession(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }
