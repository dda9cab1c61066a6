//go:build unix

package proc

import (
	"os"
	"os/exec"
	"syscall"
)

// A Group is a started command with every process it starts, killed
// together: on Unix the process group the command leads, on Windows a job
// object holding it. Use OwnGroup(cmd) before cmd.Start and GroupOf(cmd)
// after; Kill while the command may run; Close once it was reaped.
type Group struct{ pgid int }

// OwnGroup has cmd start as the leader of a process group of its own.
func OwnGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	// A session leader (the sandbox's launcher, Setsid) leads its own
	// group already, and may not change it.
	cmd.SysProcAttr.Setpgid = !cmd.SysProcAttr.Setsid
}

// GroupOf is the group of cmd, started after OwnGroup.
func GroupOf(cmd *exec.Cmd) (*Group, error) { return &Group{pgid: cmd.Process.Pid}, nil }

// ID is the process group's id, for a watcher that kills it (kill -- -ID).
func (g *Group) ID() int { return g.pgid }

// Kill kills every process of the group. Only before the leader is
// reaped: the id is free after that, for the system to hand out again.
func (g *Group) Kill() error { return syscall.Kill(-g.pgid, syscall.SIGKILL) }

// Close lets the group go; a process group needs nothing.
func (g *Group) Close() {}

// KillsOnHostDeath reports whether the system kills a group when the host
// dies: not a process group (Linux only kills the leader, by its death
// signal), so the host runs a watcher that does.
const KillsOnHostDeath = false

// ExitCode is the exit status of a reaped process, 128 plus the signal's
// number for one a signal killed, as a shell reports it.
func ExitCode(ps *os.ProcessState) int {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

// KillGroupOf kills what is left of the group of cmd, started after
// OwnGroup, and cmd itself: for a command something else waits for, also
// after that reaped it, since a group's id is handed out again only once
// the whole pid range was used.
func KillGroupOf(cmd *exec.Cmd) {
	if cmd == nil || cmd.Process == nil {
		return
	}
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) //nolint:errcheck // already gone is fine
	cmd.Process.Kill()                              //nolint:errcheck // os.Process knows when it was reaped
}

// GroupOfPID is the group a started child leads (it was started with a
// group of its own, as OwnGroup does).
func GroupOfPID(pid int) (*Group, error) { return &Group{pgid: pid}, nil }
