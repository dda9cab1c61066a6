package tools

import "syscall"

// setDeathSignal has the kernel kill the command's bash when the host dies
// (the group watcher, groupwatch.go, kills the rest).
func setDeathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
