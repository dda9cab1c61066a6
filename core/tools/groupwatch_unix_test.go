//go:build unix

package tools

import (
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// When the host dies, the kernel closes the watcher's input: it kills the
// process groups still registered and leaves those removed alone. A
// watcher a command killed is replaced at once, and told every group
// still running.
func TestGroupWatch(t *testing.T) {
	group := func() int {
		t.Helper()
		cmd := exec.Command("sleep", "300")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		pid := cmd.Process.Pid
		go cmd.Wait() //nolint:errcheck // reaped, so that waitGone sees it go
		t.Cleanup(func() { syscall.Kill(-pid, syscall.SIGKILL) })
		return pid
	}
	g := groupWatch{bash: testBash()}
	a, b := group(), group()
	for _, pid := range []int{a, b} {
		if err := g.add(pid); err != nil {
			t.Fatal(err)
		}
	}
	g.remove(b)

	g.mu.Lock()
	first, firstGone := g.pid, g.gone
	g.mu.Unlock()
	syscall.Kill(first, syscall.SIGKILL)
	select {
	case <-firstGone:
	case <-time.After(10 * time.Second):
		t.Fatal("the killed watcher was not reaped")
	}
	waitFor := func(cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for !cond() {
			if time.Now().After(deadline) {
				t.Fatal("the killed watcher was not replaced at once")
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	waitFor(func() bool { g.mu.Lock(); defer g.mu.Unlock(); return g.pid != first && g.runningLocked() })
	c := group()
	if err := g.add(c); err != nil {
		t.Fatal(err)
	}
	g.mu.Lock()
	second, secondGone := g.pid, g.gone
	g.closed = true // the host is gone: nothing replaces its watcher
	g.in.Close()    // as the kernel does when the host dies
	g.mu.Unlock()
	if second == first {
		t.Fatal("no new watcher after the first was killed")
	}
	waitGone(t, a)
	waitGone(t, c)
	select {
	case <-secondGone:
	case <-time.After(10 * time.Second):
		t.Fatal("the watcher did not end with its input")
	}
	if err := syscall.Kill(b, 0); err != nil {
		t.Errorf("removed group %d was killed: %v", b, err)
	}
}

// A watcher that a command stopped (kill -STOP) reads nothing: once its
// pipe is full, a write gives up after watchWriteTimeout and a new
// watcher takes over, rather than every bash call waiting for ever.
func TestGroupWatchStopped(t *testing.T) {
	g := groupWatch{bash: testBash()}
	defer g.close()
	cmd := exec.Command("sleep", "300")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	defer func() { syscall.Kill(-pid, syscall.SIGKILL); cmd.Wait() }()
	if err := g.add(pid); err != nil {
		t.Fatal(err)
	}
	g.mu.Lock()
	first := g.pid
	g.mu.Unlock()
	syscall.Kill(first, syscall.SIGSTOP)
	defer syscall.Kill(first, syscall.SIGCONT)
	done := make(chan struct{})
	go func() {
		defer close(done)
		// Far more than a pipe holds (64 KiB).
		for range 20_000 {
			g.remove(pid)
			if err := g.add(pid); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("calls wait on a stopped watcher")
	}
	g.mu.Lock()
	second := g.pid
	g.mu.Unlock()
	if second == first {
		t.Error("the stopped watcher was not replaced")
	}
}
