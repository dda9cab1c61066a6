package tools

import "syscall"

// setDeathSignal has the kernel kill the command's bash when the host dies
// (the group's watcher kills the rest).
func setDeathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
