//go:build unix

package proc

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestGroupKill: Kill ends the command and a process it left running in
// the background; Close after the reap is harmless.
func TestGroupKill(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	cmd := exec.Command("sh", "-c", `sleep 300 & echo $! >"$1"; wait`, "sh", pidFile)
	OwnGroup(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	g, err := GroupOf(cmd)
	if err != nil {
		t.Fatal(err)
	}
	if g.ID() != cmd.Process.Pid {
		t.Errorf("group id %d, want the leader's pid %d", g.ID(), cmd.Process.Pid)
	}
	child := waitPID(t, pidFile)
	if pgid, err := syscall.Getpgid(child); err != nil || pgid != g.ID() {
		t.Fatalf("background child in group %d (%v), want %d", pgid, err, g.ID())
	}
	if err := g.Kill(); err != nil {
		t.Fatal(err)
	}
	Wait(cmd) //nolint:errcheck // killed
	g.Close()
	// The orphaned child is reaped by init: wait until its pid is gone or
	// a zombie no longer in our group's state.
	deadline := time.Now().Add(30 * time.Second)
	for alive(child) {
		if time.Now().After(deadline) {
			t.Fatalf("background child %d outlived Kill", child)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func waitPID(t *testing.T, file string) int {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		data, _ := os.ReadFile(file)
		if pid, err := strconv.Atoi(strings.TrimSpace(string(data))); err == nil {
			return pid
		}
		if time.Now().After(deadline) {
			t.Fatal("the command never wrote its child's pid")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// alive reports whether pid still runs (a zombie does not).
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true // no /proc (macOS, FreeBSD): kill 0 is all there is
	}
	// "pid (comm) S ...": the state follows the last ')'.
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}
