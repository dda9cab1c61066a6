//go:build unix

package tools

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func TestBash(t *testing.T) {
	ws := newWS(t, map[string]string{"hello.txt": "hi\n"})
	tests := []struct {
		command string
		code    int
		want    string // exact Output
	}{
		{"cat hello.txt", 0, "hi\n[exit code 0]"},
		{"exit 3", 3, "(no output)\n[exit code 3]"},
		{"echo out; echo err >&2; false", 1, "out\nerr\n[exit code 1]"},
		{"printf 'no newline'", 0, "no newline\n[exit code 0]"},
		{"cat", 0, "(no output)\n[exit code 0]"}, // stdin is /dev/null: returns at once
		{"kill -TERM $$", 128 + 15, "(no output)\n[exit code 143]"},
		{"pwd", 0, ws.Root() + "\n[exit code 0]"},
	}
	for _, tt := range tests {
		r := run(t, ws, "bash", m{"command": tt.command, "timeout_ms": 10000})
		if r.ExitCode == nil || *r.ExitCode != tt.code || r.IsError != (tt.code != 0) {
			t.Errorf("%q: exit %v IsError %v, want %d", tt.command, r.ExitCode, r.IsError, tt.code)
		}
		if r.Output != tt.want {
			t.Errorf("%q: output %q, want %q", tt.command, r.Output, tt.want)
		}
		if !strings.HasPrefix(r.Summary, "exit "+strconv.Itoa(tt.code)+" (") {
			t.Errorf("%q: summary %q", tt.command, r.Summary)
		}
	}
	inv, err := prepare(t, ws, "bash", m{"command": "go test ./...\necho done"})
	if err != nil || inv.Command != "go test ./...\necho done" || inv.Title != "bash: go test ./... ..." || inv.Kind != KindExecute {
		t.Errorf("invocation %+v, %v", inv, err)
	}
}

func TestBashTimeoutKillsGroup(t *testing.T) {
	ws := newWS(t, nil)
	start := time.Now()
	r := run(t, ws, "bash", m{"command": "sleep 30 & echo $! > child.pid; echo started; wait", "timeout_ms": 300})
	if time.Since(start) > 5*time.Second {
		t.Fatalf("timeout took %s", time.Since(start))
	}
	if !r.IsError || !strings.Contains(r.Output, "started\n[timed out after 300ms") || !strings.HasPrefix(r.Summary, "timed out") {
		t.Fatalf("result %+v", r)
	}
	waitGone(t, readPid(t, filepath.Join(ws.Root(), "child.pid")))
}

func TestRunShellCancelKillsGroup(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child.pid")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan ShellResult)
	go func() {
		done <- RunShell(ctx, dir, "sleep 30 & echo $! > child.pid; wait", time.Minute, 0)
	}()
	deadline := time.Now().Add(5 * time.Second)
	for {
		if data, err := os.ReadFile(pidFile); err == nil && strings.HasSuffix(string(data), "\n") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("child never started")
		}
		time.Sleep(10 * time.Millisecond)
	}
	pid := readPid(t, pidFile)
	cancel()
	select {
	case r := <-done:
		if !r.Canceled || r.TimedOut {
			t.Errorf("result %+v", r)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("RunShell did not return after cancel")
	}
	waitGone(t, pid)
}

func readPid(t *testing.T, file string) int {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// waitGone waits for pid to disappear (killed and reaped by init).
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil && strings.Contains(string(stat), ") Z ") {
			return // killed; a zombie waiting for its reaper
		}
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("background child %d survived", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestRunShellOutputCap(t *testing.T) {
	dir := t.TempDir()
	r := RunShell(context.Background(), dir, "echo HEAD; head -c 100000 /dev/zero | tr '\\0' x; echo; echo TAIL", 10*time.Second, 1000)
	if r.ExitCode != 0 {
		t.Fatalf("%+v", r)
	}
	out := r.Output()
	if !strings.HasPrefix(out, "HEAD\nxxx") || !strings.HasSuffix(out, "xxx\nTAIL\n") {
		t.Errorf("head/tail lost: %q", out)
	}
	total := len("HEAD\n") + 100000 + len("\nTAIL\n")
	marker := "[... " + strconv.Itoa(total-1000) + " bytes omitted ...]"
	if !strings.Contains(out, marker) || len(out) > 1000+len(marker)+2 {
		t.Errorf("output %d bytes, want 1000 kept and marker %q: %q", len(out), marker, out[490:520])
	}

	// Small output is untouched, and stdout and stderr keep their order.
	r = RunShell(context.Background(), dir, "echo a; echo b >&2; echo c; echo d >&2", time.Second*10, 1000)
	if r.Stdout != "a\nb\nc\nd\n" || r.Stderr != "" {
		t.Errorf("%+v", r)
	}
}

func TestHeadTail(t *testing.T) {
	h := &headTail{limit: 10}
	for _, chunk := range []string{"0123", "456789", "abcdefghij", "KLMNOPQRST", "uvwxy"} {
		if n, _ := h.Write([]byte(chunk)); n != len(chunk) {
			t.Fatalf("short write %d", n)
		}
	}
	if got, want := h.String(), "01234\n[... 25 bytes omitted ...]\nuvwxy"; got != want {
		t.Errorf("got %q want %q", got, want)
	}
	h = &headTail{limit: 10}
	h.Write([]byte("0123456789"))
	if h.String() != "0123456789" {
		t.Errorf("exact fit: %q", h.String())
	}
}

func TestRunShellNoBashDir(t *testing.T) {
	r := RunShell(context.Background(), filepath.Join(t.TempDir(), "missing"), "true", time.Second, 0)
	if r.ExitCode != -1 || r.Stderr == "" {
		t.Errorf("%+v", r)
	}
}

func TestBashTimeoutArgument(t *testing.T) {
	ws := newWS(t, nil)
	tests := []struct {
		ms   int
		want string // error text; "" for none
	}{
		{0, ""},
		{1000, ""},
		{600000, ""},
		{-1, "must be positive"},
		{600001, "over the maximum"},
		// time.Duration(ms)*time.Millisecond overflows to a negative
		// duration, which would have meant no timeout at all.
		{9223372036855, "over the maximum"},
		{math.MaxInt, "over the maximum"},
	}
	for _, tt := range tests {
		_, err := prepare(t, ws, "bash", m{"command": "true", "timeout_ms": tt.ms})
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("timeout_ms %d: %v", tt.ms, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("timeout_ms %d: error %v, want %q", tt.ms, err, tt.want)
		}
	}
}

// TestBashBackgroundChildrenEndWithTheCall: what a call starts in the
// background dies when its bash exits, also detached by nohup, disown or a
// subshell, and the call returns without waiting for it.
func TestBashBackgroundChildrenEndWithTheCall(t *testing.T) {
	tests := []struct{ name, command string }{
		{"ampersand", "sleep 300 & echo $! > bg.pid"},
		{"holding stdout", "(exec sleep 300) & echo $! > bg.pid"},
		{"nohup", "nohup sleep 300 >/dev/null 2>&1 & echo $! > bg.pid"},
		{"disown", "sleep 300 & echo $! > bg.pid; disown"},
		{"double fork", "( sleep 300 & echo $! > bg.pid )"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			r := RunShell(context.Background(), dir, tt.command+"\necho done", time.Minute, 0)
			if r.ExitCode != 0 || !strings.Contains(r.Stdout, "done") {
				t.Fatalf("result %+v", r)
			}
			waitGone(t, readPid(t, filepath.Join(dir, "bg.pid")))
		})
	}
}

func TestBashKeepsBackgroundOutputAndHidesGuard(t *testing.T) {
	dir := t.TempDir()
	r := RunShell(context.Background(), dir, "(echo from-background) & wait; if [ -e /dev/fd/3 ]; then echo fd3-open; fi; echo $0 $# \"$*\"", time.Minute, 0)
	if r.ExitCode != 0 || r.Stdout != "from-background\nbash 0 \n" {
		t.Fatalf("result %+v", r)
	}
	// Errors read as under bash -c: nothing of the guard shows, line
	// numbers are the command's.
	r = RunShell(context.Background(), dir, "echo (", time.Minute, 0)
	if r.ExitCode != 2 || strings.Contains(r.Stdout, "coder") || !strings.Contains(r.Stdout, "line 1: `echo ('") {
		t.Fatalf("syntax error result %+v", r)
	}
	r = RunShell(context.Background(), dir, "true\nno-such-command-here", time.Minute, 0)
	if r.ExitCode != 127 || !strings.Contains(r.Stdout, "line 2: no-such-command-here: command not found") {
		t.Fatalf("syntax error result %+v", r)
	}
	r = RunShellSplit(context.Background(), dir, "echo out; echo err >&2; exit 4", time.Minute, 0)
	if r.ExitCode != 4 || r.Stdout != "out\n" || r.Stderr != "err\n" {
		t.Fatalf("split result %+v", r)
	}
}

// gateWriter records what it gets and, once it has seen want, creates
// gate, which the command under test waits for.
type gateWriter struct {
	mu   sync.Mutex
	b    strings.Builder
	want string
	gate string
}

func (g *gateWriter) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.b.Write(p)
	if g.gate != "" && strings.Contains(g.b.String(), g.want) {
		os.WriteFile(g.gate, nil, 0o644)
		g.gate = ""
	}
	return len(p), nil
}

// TestBashOutputWhileRunning: Invocation.Output gets the command's output
// while it runs (the command goes on only once the first line arrived),
// all of it past the cap, and the result is what it is without it.
func TestBashOutputWhileRunning(t *testing.T) {
	ws := newWS(t, nil)
	script := "printf 'first\\n'; while [ ! -e gate ]; do sleep 0.01; done; echo err >&2; head -c 40000 /dev/zero | tr '\\0' x; printf '\\nlast\\n'"
	writeFile(t, filepath.Join(ws.Root(), "s.sh"), script)
	inv, err := prepare(t, ws, "bash", m{"command": "bash s.sh", "timeout_ms": 20000})
	if err != nil {
		t.Fatal(err)
	}
	g := &gateWriter{want: "first\n", gate: filepath.Join(ws.Root(), "gate")}
	inv.Output = g
	r := inv.Run(context.Background())
	if r.ExitCode == nil || *r.ExitCode != 0 {
		t.Fatalf("the command did not go on after its first line was passed on: %+v", r)
	}
	want := "first\nerr\n" + strings.Repeat("x", 40000) + "\nlast\n"
	if got := g.b.String(); got != want {
		t.Errorf("Output got %d bytes, want the whole %d", len(got), len(want))
	}
	if !strings.Contains(r.Output, "bytes omitted") || !strings.HasSuffix(r.Output, "last\n[exit code 0]") || !strings.HasPrefix(r.Output, "first\nerr\n") {
		t.Errorf("result changed by Output: %q…", r.Output[:40])
	}
}

// BenchmarkRunShell is the cost of one bash call that runs a builtin:
// bash's start, the group guard and the host's pipes; /spare is the same
// call on a bash started ahead (Shells), whose start is outside the
// timing as it is outside a turn's critical path when the model thinks
// longer than bash starts.
func BenchmarkRunShell(b *testing.B) {
	dir := b.TempDir()
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			if r := RunShell(context.Background(), dir, "echo step", time.Minute, 0); r.ExitCode != 0 {
				b.Fatalf("result %+v", r)
			}
		}
	})
	b.Run("spare", func(b *testing.B) {
		s := NewShells(dir, testBash())
		defer s.Close()
		for b.Loop() {
			b.StopTimer()
			s.Prestart(nil, nil)
			waitSpare(b, s)
			b.StartTimer()
			if r := s.Run(context.Background(), "echo step", time.Minute, 0, nil, nil); r.ExitCode != 0 {
				b.Fatalf("result %+v", r)
			}
		}
	})
}
