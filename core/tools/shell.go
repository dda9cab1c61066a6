package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/coder-nvim/coder-nvim/core/sandbox"
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
	// OutsideSandbox asks to run unconfined; the user is always asked.
	OutsideSandbox bool `json:"outside_sandbox,omitempty" jsonschema:"only after the sandbox blocked this command: run it outside the sandbox (the user is asked)"`
}

type bashTool struct{ base[bashArgs] }

func newBashTool() *bashTool {
	return &bashTool{newBase[bashArgs]("bash", KindExecute,
		"Run a bash command in the workspace root (stdin is /dev/null). Returns combined stdout/stderr and the exit code. Output is capped; use file tools to read and edit files. "+sandbox.EnvNote)}
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
		Tool: t.name, Kind: t.kind, Title: "bash: " + title, Command: args.Command, OutsideSandbox: args.OutsideSandbox,
		run: func(ctx context.Context, inv *Invocation) Result {
			end := ws.BeginConfined(inv.Confine)
			r := ws.shells.RunConfined(ctx, inv.Confine, args.Command, timeout, DefaultOutputCap, inv.Env, inv.Output)
			res := bashResult(r, timeout)
			if ws.shells.blocksNetwork(inv.Confine) && networkRefused(r) {
				res.Output += "\n" + SandboxNetworkRefusal
				res.Display += "\n" + SandboxNetworkRefusal
				res.Summary += ", the sandbox has no network"
				res.Err = ErrSandboxRefused
			} else if inv.Confine != nil && sandboxRefused(r) {
				res.Output += "\n" + SandboxRefusal
				res.Display += "\n" + SandboxRefusal
				res.Summary = noteBeforeDuration(res.Summary, ", the sandbox may have refused it")
				res.Err = ErrSandboxRefused
			}
			note := end(ctx)
			res.Output += note
			res.Display += note
			return res
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

// SandboxRefusal follows the output of a confined command that failed
// the way a sandbox refusal does (seed 004's SandboxError).
const SandboxRefusal = "[SandboxError: this may have been blocked by the sandbox, which refuses writes outside the workspace and to .git's configuration, hooks and the like and .coder, and the network. If the command must do this, call bash again with outside_sandbox: true; the user will be asked.]"

// sandboxRefused reports whether a confined command failed with the
// errors the sandbox gives: EACCES or EROFS on a write, EPERM on a socket.
func sandboxRefused(r ShellResult) bool {
	if r.ExitCode == 0 || r.TimedOut || r.Canceled {
		return false
	}
	out := r.Output()
	for _, s := range []string{"Permission denied", "Read-only file system", "Operation not permitted", "Network is unreachable", "Could not resolve host", "Temporary failure in name resolution"} {
		if strings.Contains(out, s) {
			return true
		}
	}
	return false
}

// noteBeforeDuration adds note to a summary ending in its duration
// ("exit 1 (0s)"), before the duration: front ends show that as every
// other duration, once (issue 52).
func noteBeforeDuration(summary, note string) string {
	if i := strings.LastIndex(summary, " ("); i >= 0 && strings.HasSuffix(summary, ")") {
		return summary[:i] + note + summary[i:]
	}
	return summary + note
}
