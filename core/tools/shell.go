package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"
)

const (
	defaultBashTimeout = 120 * time.Second
	maxBashTimeout     = 600 * time.Second
	// DefaultOutputCap is the bash tool's output cap: the first and last
	// half of it are kept.
	DefaultOutputCap = 32 << 10
	// waitDelay bounds how long a finished command's output is still read
	// when a child that left its process group keeps the pipe open.
	waitDelay = 2 * time.Second
)

// ShellResult is the outcome of RunShell.
type ShellResult struct {
	Command  string
	ExitCode int // 128+N when killed by signal N; -1 if bash could not start
	// Stdout holds the command's stdout and stderr together, in the order
	// written: both share one pipe, as in a terminal, since the model and
	// the user need to see an error next to the output that led to it.
	// RunShellSplit keeps them apart instead. It is capped (head and tail
	// kept).
	Stdout string
	// Stderr is the command's stderr with RunShellSplit; otherwise only set
	// when bash could not be started.
	Stderr   string
	TimedOut bool
	Canceled bool
	Duration time.Duration
}

// Output is everything the command printed (and any start error).
func (r ShellResult) Output() string { return r.Stdout + r.Stderr }

// RunShell runs command with `bash -c` in dir, stdin from /dev/null, in its
// own process group. The whole group is killed when bash exits (background
// children, `nohup` included, do not outlive the call), on timeout, when
// ctx is canceled, and when the host dies, even by SIGKILL. A child that
// leaves the group (`setsid`) escapes all of these. Output beyond capBytes
// is cut in the middle, keeping its head and tail.
func RunShell(ctx context.Context, dir, command string, timeout time.Duration, capBytes int) ShellResult {
	return runShell(ctx, dir, command, timeout, capBytes, false, nil, nil)
}

// RunShellEnv is RunShell with env added to the environment.
func RunShellEnv(ctx context.Context, dir, command string, timeout time.Duration, capBytes int, env []string) ShellResult {
	return runShell(ctx, dir, command, timeout, capBytes, false, env, nil)
}

// RunShellSplit is RunShell with stdout and stderr captured apart (each
// capped), for the user's `!command` whose result shows both.
func RunShellSplit(ctx context.Context, dir, command string, timeout time.Duration, capBytes int) ShellResult {
	return runShell(ctx, dir, command, timeout, capBytes, true, nil, nil)
}

// groupGuard is the script bash runs before the command. It leaves a
// watcher in the process group that reads fd 3, a pipe whose write end
// only the host holds: the kernel closes it when the host dies, however it
// dies, and the watcher then kills the group. The command then runs in
// the same bash by eval, with fd 3 closed and no positional parameters as
// under bash -c, so its exit status is bash's; eval rather than a second
// `exec bash -c` saves a bash start per call. The watcher is disowned so
// that the command's `wait` and `jobs` do not see it; only the variable
// holding the command (and $! until it starts a job) remain visible.
// One line, so that bash's messages give the command's own line numbers.
const groupGuard = `( read -r _ <&3; kill -KILL 0 ) </dev/null >/dev/null 2>&1 & disown; exec 3<&-; __coder_nvim_command=$1; set --; eval "$__coder_nvim_command"`

// runShell runs the command; tee, when set, also gets the output as it
// is read (not with split).
func runShell(ctx context.Context, dir, command string, timeout time.Duration, capBytes int, split bool, env []string, tee io.Writer) ShellResult {
	if capBytes <= 0 {
		capBytes = DefaultOutputCap
	}
	res := ShellResult{Command: command}
	runCtx := ctx
	var cancel context.CancelFunc = func() {}
	if timeout > 0 {
		runCtx, cancel = context.WithTimeout(ctx, timeout)
	}
	defer cancel()

	out := &headTail{limit: capBytes}
	errOut := &headTail{limit: capBytes}
	// Our own pipes rather than os/exec's copying: Wait then returns when
	// bash exits, so the group is killed at once, not after background
	// children have held the output open for waitDelay.
	var pipes []*os.File // the host's ends, closed on return
	defer func() {
		for _, f := range pipes {
			f.Close()
		}
	}()
	pipe := func() (r, w *os.File, err error) {
		if r, w, err = os.Pipe(); err == nil {
			pipes = append(pipes, r, w)
		}
		return r, w, err
	}
	outR, outW, err1 := pipe()
	errR, errW := outR, outW
	var err2 error
	if split {
		errR, errW, err2 = pipe()
	}
	guardR, guardW, err3 := pipe()
	if err := errors.Join(err1, err2, err3); err != nil {
		res.ExitCode, res.Stderr = -1, err.Error()
		return res
	}

	cmd := exec.CommandContext(runCtx, "bash", "-c", groupGuard, "bash", command)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "PAGER=cat", "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0"), env...)
	// The same file for both: one pipe, output in the order written.
	cmd.Stdout, cmd.Stderr = outW, errW
	cmd.ExtraFiles = []*os.File{guardR}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	setDeathSignal(cmd.SysProcAttr)
	cmd.Cancel = func() error {
		// Negative pid: the whole process group.
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	cmd.WaitDelay = waitDelay

	// The death signal fires when the OS thread that started the child
	// ends, not the process: keep this goroutine on its thread until the
	// child is gone (Go ends a thread only when a locked goroutine exits).
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start := time.Now()
	err := cmd.Start()
	// The child has its copies; ours would keep the reads from ending.
	outW.Close()
	errW.Close()
	guardR.Close()
	var copies sync.WaitGroup
	if err == nil {
		drain := func(r *os.File, w io.Writer) {
			copies.Add(1)
			go func() {
				defer copies.Done()
				io.Copy(w, r)
			}()
		}
		var w io.Writer = out
		if tee != nil && !split {
			w = io.MultiWriter(out, tee)
		}
		drain(outR, w)
		if split {
			drain(errR, errOut)
		}
		err = cmd.Wait()
		// Background children end with the call; the watcher too, before
		// it sees the guard pipe close.
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		guardW.Close()
		// A child that left the group may hold the output open: read what
		// is there, within waitDelay.
		if !waitTimeout(&copies, waitDelay) {
			outR.SetReadDeadline(time.Now())
			errR.SetReadDeadline(time.Now())
			copies.Wait()
		}
	}
	res.Duration = time.Since(start)
	res.Stdout = out.String()
	res.Stderr = errOut.String()

	switch {
	case ctx.Err() != nil:
		res.Canceled = true
	case runCtx.Err() != nil:
		res.TimedOut = true
	}
	switch {
	case cmd.ProcessState != nil:
		res.ExitCode = cmd.ProcessState.ExitCode()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			res.ExitCode = 128 + int(ws.Signal())
		}
	case err != nil:
		res.ExitCode = -1
		res.Stderr += err.Error()
	}
	return res
}

// waitTimeout waits for wg at most d and reports whether it finished.
func waitTimeout(wg *sync.WaitGroup, d time.Duration) bool {
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
		return true
	case <-t.C:
		return false
	}
}

// headTail keeps the first and last limit/2 bytes written to it.
type headTail struct {
	limit int
	head  []byte
	tail  []byte
	total int
}

func (h *headTail) Write(p []byte) (int, error) {
	n := len(p)
	h.total += n
	half := h.limit / 2
	if room := half - len(h.head); room > 0 {
		k := min(room, len(p))
		h.head = append(h.head, p[:k]...)
		p = p[k:]
	}
	h.tail = append(h.tail, p...)
	if len(h.tail) > 2*half {
		// Compact rarely: keep the buffer between half and 2*half.
		h.tail = append(h.tail[:0], h.tail[len(h.tail)-half:]...)
	}
	return n, nil
}

func (h *headTail) String() string {
	half := h.limit / 2
	tail := h.tail
	if len(tail) > half {
		tail = tail[len(tail)-half:]
	}
	omitted := h.total - len(h.head) - len(tail)
	if omitted <= 0 {
		return strings.ToValidUTF8(string(h.head)+string(tail), "\uFFFD")
	}
	return strings.ToValidUTF8(string(h.head), "\uFFFD") +
		fmt.Sprintf("\n[... %d bytes omitted ...]\n", omitted) +
		strings.ToValidUTF8(string(tail), "\uFFFD")
}

// bash

type bashArgs struct {
	Command   string `json:"command" jsonschema:"bash command line"`
	TimeoutMS int    `json:"timeout_ms,omitempty" jsonschema:"timeout in ms (default 120000, max 600000)"`
}

type bashTool struct{ base[bashArgs] }

func newBashTool() *bashTool {
	return &bashTool{newBase[bashArgs]("bash", KindExecute,
		"Run a bash command in the workspace root (stdin is /dev/null). Returns combined stdout/stderr and the exit code. Output is capped; use file tools to read and edit files.")}
}

func (t *bashTool) Prepare(ctx context.Context, ws *Workspace, raw json.RawMessage) (*Invocation, error) {
	args, err := t.decode(raw)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(args.Command) == "" {
		return nil, errors.New("command is empty")
	}
	timeout := defaultBashTimeout
	switch {
	case args.TimeoutMS < 0:
		return nil, errors.New("timeout_ms must be positive")
	case int64(args.TimeoutMS) > maxBashTimeout.Milliseconds(): // compared in ms: the Duration could overflow
		return nil, fmt.Errorf("timeout_ms %d is over the maximum of %d", args.TimeoutMS, maxBashTimeout.Milliseconds())
	case args.TimeoutMS > 0:
		timeout = time.Duration(args.TimeoutMS) * time.Millisecond
	}
	title := firstLine(args.Command)
	if strings.Contains(strings.TrimSpace(args.Command), "\n") {
		title += " ..."
	}
	return &Invocation{
		Tool: t.name, Kind: t.kind, Title: "bash: " + title, Command: args.Command,
		run: func(ctx context.Context, inv *Invocation) Result {
			return bashResult(runShell(ctx, ws.Root(), args.Command, timeout, DefaultOutputCap, false, inv.Env, inv.Output), timeout)
		},
	}, nil
}

func bashResult(r ShellResult, timeout time.Duration) Result {
	var b strings.Builder
	output := r.Output()
	b.WriteString(output)
	if output != "" && !strings.HasSuffix(output, "\n") {
		b.WriteByte('\n')
	}
	if output == "" {
		b.WriteString("(no output)\n")
	}
	dur := r.Duration.Round(100 * time.Millisecond)
	var summary string
	switch {
	case r.TimedOut:
		fmt.Fprintf(&b, "[timed out after %s; the command and its child processes were killed]", timeout)
		summary = fmt.Sprintf("timed out (%s)", dur)
	case r.Canceled:
		b.WriteString("[canceled; the command and its child processes were killed]")
		summary = fmt.Sprintf("canceled (%s)", dur)
	default:
		fmt.Fprintf(&b, "[exit code %d]", r.ExitCode)
		summary = fmt.Sprintf("exit %d (%s)", r.ExitCode, dur)
	}
	code := r.ExitCode
	out := b.String()
	return Result{
		Output:   out,
		Display:  out,
		Summary:  summary,
		IsError:  r.ExitCode != 0 || r.TimedOut || r.Canceled,
		ExitCode: &code,
	}
}
