//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package cpuprio

import (
	"fmt"
	"syscall"
)

// Lower lowers this process, and the processes it starts from now on, to
// nice (1 to MaxNice; 0 changes nothing). It never raises a priority
// already lower. The BSDs and macOS weigh whole processes by nice, with no
// per-session groups to mind, so editor changes nothing here.
func Lower(nice, editor int) (string, error) {
	if nice <= 0 {
		return "", nil
	}
	nice = min(nice, MaxNice)
	cur, err := syscall.Getpriority(syscall.PRIO_PROCESS, 0)
	if err == nil && cur >= nice {
		return fmt.Sprintf("process at nice %d", cur), nil
	}
	if err := syscall.Setpriority(syscall.PRIO_PROCESS, 0, nice); err != nil {
		return "", fmt.Errorf("lower the CPU priority: %w", err)
	}
	return fmt.Sprintf("process at nice %d", nice), nil
}
