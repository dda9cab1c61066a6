package proc

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// A Group is a started command with every process it starts, killed
// together: on Unix the process group the command leads, on Windows a job
// object holding it. Use OwnGroup(cmd) before cmd.Start and GroupOf(cmd)
// after; Kill while the command may run; Close once it was reaped.
type Group struct {
	job windows.Handle
	pid int
}

// OwnGroup has cmd start in a console process group of its own, so that a
// Ctrl-C meant for the host's console does not reach it.
func OwnGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.CreationFlags |= windows.CREATE_NEW_PROCESS_GROUP
}

// GroupOf puts the started cmd in a new job object, which kills every
// process in it when its last handle closes: on Close, and when the host
// dies. The processes cmd starts from then on join the job. What it
// started before (a race only a command that forks at once can win) does
// not.
func GroupOf(cmd *exec.Cmd) (*Group, error) { return GroupOfPID(cmd.Process.Pid) }

// GroupOfPID is GroupOf for a started child known by its pid.
func GroupOfPID(pid int) (*Group, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return nil, fmt.Errorf("create a job object: %w", err)
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{
		BasicLimitInformation: windows.JOBOBJECT_BASIC_LIMIT_INFORMATION{LimitFlags: windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE},
	}
	_, err = windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation, uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)))
	if err == nil {
		err = assign(job, pid)
	}
	if err != nil {
		windows.CloseHandle(job)
		return nil, fmt.Errorf("put process %d in a job object: %w", pid, err)
	}
	return &Group{job: job, pid: pid}, nil
}

func assign(job windows.Handle, pid int) error {
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(pid))
	if err != nil {
		return err
	}
	defer windows.CloseHandle(h)
	return windows.AssignProcessToJobObject(job, h)
}

// ID is the leader's pid.
func (g *Group) ID() int { return g.pid }

// Kill kills every process in the job.
func (g *Group) Kill() error { return windows.TerminateJobObject(g.job, 1) }

// Close closes the job, killing what is left in it.
func (g *Group) Close() {
	if g.job != 0 {
		windows.CloseHandle(g.job)
		g.job = 0
	}
}

// KillsOnHostDeath: a job closed by the host's death kills its processes.
const KillsOnHostDeath = true

// ExitCode is the exit status of a reaped process (TerminateJobObject's 1
// for a killed one).
func ExitCode(ps *os.ProcessState) int { return ps.ExitCode() }

// KillGroupOf kills cmd, started after OwnGroup: only cmd itself, since a
// job cannot be found for it afterwards, nor a pid trusted once reaped
// (Windows hands pids out again soon).
func KillGroupOf(cmd *exec.Cmd) {
	if cmd == nil || cmd.Process == nil {
		return
	}
	cmd.Process.Kill() //nolint:errcheck // os.Process knows when it was reaped
}
