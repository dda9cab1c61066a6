package proc

import (
	"bytes"
	"os"
	"os/exec"
	"runtime"
	"testing"
	"time"
)

// While the child runs, the waiting goroutine is parked on the poller
// ([IO wait]), not in a wait system call ([syscall]) holding a P.
func TestWaitParksOnThePoller(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	cmd := exec.Command("sh", "-c", "read line")
	cmd.Stdin = r
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r.Close()
	done := make(chan error, 1)
	go func() { done <- Wait(cmd) }()
	state := ""
	for deadline := time.Now().Add(10 * time.Second); state != "IO wait"; {
		if time.Now().After(deadline) {
			t.Fatalf("the waiting goroutine is never parked on the poller; last seen %q", state)
		}
		state = waiterState()
		if state != "IO wait" {
			time.Sleep(time.Millisecond)
		}
	}
	w.Write([]byte("go\n"))
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// waiterState is the scheduling state of the goroutine in awaitExit or in
// a plain wait ("IO wait", "syscall", …), "" when there is none yet.
func waiterState() string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	for _, g := range bytes.Split(buf, []byte("\n\n")) {
		if !bytes.Contains(g, []byte("proc.Wait(")) || bytes.Contains(g, []byte("waiterState")) {
			continue
		}
		head, _, _ := bytes.Cut(g, []byte("\n"))
		// goroutine 7 [IO wait]: or goroutine 7 [syscall, 2 minutes]:
		if i, j := bytes.IndexByte(head, '['), bytes.IndexAny(head, ",]"); i >= 0 && j > i {
			return string(head[i+1 : j])
		}
	}
	return ""
}
