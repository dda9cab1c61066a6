//go:build unix

package tools

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time (user and system) used so far by this process
// and by its children that were waited for: on a shared machine a
// benchmark's CPU time varies less than its wall time.
func cpuTime() time.Duration {
	var total time.Duration
	for _, who := range []int{syscall.RUSAGE_SELF, syscall.RUSAGE_CHILDREN} {
		var ru syscall.Rusage
		if syscall.Getrusage(who, &ru) == nil {
			total += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		}
	}
	return total
}
