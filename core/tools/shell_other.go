//go:build !linux

package tools

import "syscall"

// setDeathSignal: no parent-death signal here; the group watcher alone
// kills the command when the host dies.
func setDeathSignal(*syscall.SysProcAttr) {}
