package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"
)

// A PID namespace per confined command: its shell is PID 1 there, so
// when the shell ends — by itself, or killed with its group by the
// host's timeout, cancel or death — the kernel kills everything it
// started, setsid and double-forked daemons included. Inside it no
// process outside has a PID: kill, ptrace and pidfd_open cannot name the
// host, Neovim or the fork server.

// probePIDNamespace checks that this process may make PID namespaces,
// on a thread of its own that ends with the check: unshare(CLONE_NEWPID)
// changes where the thread's later children go, and this process may
// serve next.
func probePIDNamespace() error {
	done := make(chan error, 1)
	go func() {
		// Never unlocked: Go ends the thread with the goroutine.
		runtime.LockOSThread()
		done <- unix.Unshare(unix.CLONE_NEWPID)
	}()
	return <-done
}

// freshProc mounts a /proc of this process's own PID namespace over the
// inherited one, when it is PID 1 of one (the one-shot launcher, started
// in a PID namespace of its own): the shell it becomes then sees only its
// own processes. Before Landlock, which refuses mounts. The fork server's
// shells keep the host's /proc (see the package comment): they cannot
// signal, trace or read what it lists.
func freshProc() error {
	if os.Getpid() != 1 {
		return nil
	}
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("mount /proc: %w", err)
	}
	return nil
}

// nonDumpable keeps the fork server's memory and /proc files from its
// shells: a process that is not dumpable can be traced or read only with
// CAP_SYS_PTRACE, which they do not have.
func nonDumpable() error {
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fmt.Errorf("non-dumpable: %w", err)
	}
	return nil
}

// ownSession starts the one-shot launcher, and so the command it
// becomes, in a session of its own (no controlling terminal: /dev/tty
// cannot be opened, TIOCSTI has no terminal to push keys into) and, with
// pid, as PID 1 of a PID namespace of its own. A session leader leads its
// process group too, which the host kills.
func ownSession(cmd *exec.Cmd, pid bool) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setsid = true
	if pid {
		cmd.SysProcAttr.Cloneflags |= syscall.CLONE_NEWPID
	}
}

// spawnAttr starts a fork server's command as the host's child
// (CLONE_PARENT: the host waits for it and kills its group) in a session
// of its own and, with pidns, as PID 1 of a PID namespace of its own.
func spawnAttr(pidns bool) *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Setsid: true, Cloneflags: syscall.CLONE_PARENT}
	if pidns {
		a.Cloneflags |= syscall.CLONE_NEWPID
	}
	return a
}

// serverCaps leaves the fork server CAP_SYS_ADMIN alone, which making a
// PID namespace per command takes (none without pidns), and no way to
// pass a capability on: the shells it starts have none. It also makes
// the server non-dumpable.
func serverCaps(pidns bool) error {
	var keep []uintptr
	if pidns {
		keep = []uintptr{unix.CAP_SYS_ADMIN}
	}
	if err := dropCaps(keep...); err != nil {
		return err
	}
	return nonDumpable()
}
