// Package proc waits for child processes without holding one of the Go
// scheduler's processors (Ps) while they run.
//
// A Go program blocked in a wait system call keeps its P until the
// runtime's monitor takes it back, which it does only on its next tick —
// up to 10 ms later in a process that was mostly idle. With GOMAXPROCS at
// 2, one git snapshot and one bash call waited for at once left nothing to
// read the model's stream: a step took 16 ms instead of 2. Waiting on the
// runtime's poller for the process to exit first (a pidfd on Linux) parks
// the goroutine instead; the wait call that follows then returns at once.
package proc

import (
	"os"
	"os/exec"
)

// Wait waits for the started cmd to exit on the poller where it can, then
// returns cmd.Wait's result.
func Wait(cmd *exec.Cmd) error {
	if cmd.Process != nil {
		awaitExit(cmd.Process.Pid)
	}
	return cmd.Wait()
}

// Run starts cmd and waits for it as Wait does: exec.Cmd.Run.
func Run(cmd *exec.Cmd) error {
	if err := cmd.Start(); err != nil {
		return err
	}
	return Wait(cmd)
}

// WaitProcess is Wait for a child started other than by os/exec (the
// sandbox's fork server makes the host its parent).
func WaitProcess(p *os.Process) (*os.ProcessState, error) {
	awaitExit(p.Pid)
	return p.Wait()
}
