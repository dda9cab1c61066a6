package cpuprio

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Lower lowers this process, and the processes it starts from now on, to
// nice (1 to MaxNice; 0 changes nothing) below the process editor (a pid;
// 0: the parent). It never raises a priority already lower. It returns
// what it did, for the log.
//
// With Linux's autogroups, the scheduler shares the cores between
// sessions before it weighs processes by nice, so a process in another
// session than the editor's (Neovim starts its jobs in sessions of their
// own) lowers its session's group; one in the editor's session lowers each
// of its threads, which the threads and children started later inherit.
func Lower(nice, editor int) (string, error) {
	if nice <= 0 {
		return "", nil
	}
	nice = min(nice, MaxNice)
	if editor <= 0 {
		editor = os.Getppid()
	}
	if self, err := readAutogroup("self"); err == nil && autogroupsOn() {
		ed, err := readAutogroup(strconv.Itoa(editor))
		if err == nil && ed.name != self.name {
			nice = max(nice, self.nice)
			if err := os.WriteFile("/proc/self/autogroup", []byte(strconv.Itoa(nice)), 0); err != nil {
				return "", fmt.Errorf("lower the session's CPU priority: %w", err)
			}
			return fmt.Sprintf("session %s at nice %d", self.name, nice), nil
		}
	}
	// Threads made while the list is read start from one already lowered
	// or not yet listed: a second pass catches the latter.
	for range 2 {
		tasks, err := os.ReadDir("/proc/self/task")
		if err != nil {
			return "", fmt.Errorf("lower the CPU priority: %w", err)
		}
		for _, t := range tasks {
			tid, err := strconv.Atoi(t.Name())
			if err != nil {
				continue
			}
			// The raw syscall returns 20 - nice.
			cur, err := syscall.Getpriority(syscall.PRIO_PROCESS, tid)
			if err != nil || 20-cur >= nice {
				continue
			}
			if err := syscall.Setpriority(syscall.PRIO_PROCESS, tid, nice); err != nil && err != syscall.ESRCH {
				return "", fmt.Errorf("lower the CPU priority of thread %d: %w", tid, err)
			}
		}
	}
	return fmt.Sprintf("threads at nice %d", nice), nil
}

func autogroupsOn() bool {
	on, err := os.ReadFile("/proc/sys/kernel/sched_autogroup_enabled")
	return err == nil && strings.TrimSpace(string(on)) == "1"
}

type autogroup struct {
	name string
	nice int
}

// readAutogroup reads /proc/PID/autogroup: "/autogroup-12 nice 0".
func readAutogroup(pid string) (autogroup, error) {
	data, err := os.ReadFile("/proc/" + pid + "/autogroup")
	if err != nil {
		return autogroup{}, err
	}
	var g autogroup
	if _, err := fmt.Sscanf(string(data), "%s nice %d", &g.name, &g.nice); err != nil {
		return autogroup{}, fmt.Errorf("/proc/%s/autogroup: %w", pid, err)
	}
	return g, nil
}
