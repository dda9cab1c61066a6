package nvimhost

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/neovim/go-client/nvim"
)

// probeSockEnv makes the test binary a probe process (runTests): the flood
// benchmark times Neovim from a process of its own, so that the fake model
// server streaming as fast as it can in the test process does not delay
// the measuring client and count as Neovim's stall.
const probeSockEnv = "CODER_BENCH_PROBE_SOCK"

// probeMain dials Neovim at sock, attaches a 160×50 UI and times
// nvim_eval("1") round trips, one every 2 ms, until its stdin closes; it
// then writes each as "<start, ns since the first> <round trip, ns>
// <ns its threads waited for a core meanwhile>" lines.
func probeMain(sock string) int {
	v, err := nvim.Dial(sock, nvim.DialLogf(func(string, ...any) {}))
	if err != nil {
		fmt.Fprintf(os.Stderr, "probe: dial %s: %v\n", sock, err)
		return 1
	}
	defer v.Close()
	// The UI is attached here too, and its redraws read at once: a UI
	// client that is slow to read (the test process, busy serving the
	// flood) makes Neovim wait on a full socket.
	if err := v.RegisterHandler("redraw", func(updates ...[]any) {}); err != nil {
		fmt.Fprintln(os.Stderr, "probe:", err)
		return 1
	}
	if err := v.AttachUI(160, 50, map[string]any{"ext_linegrid": true, "rgb": true}); err != nil {
		fmt.Fprintln(os.Stderr, "probe: attach ui:", err)
		return 1
	}
	var stop atomic.Bool
	go func() {
		io.Copy(io.Discard, os.Stdin)
		stop.Store(true)
	}()
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	start := time.Now()
	for !stop.Load() {
		wait0 := runDelay()
		t0 := time.Now()
		var one int
		if err := v.Eval("1", &one); err != nil || one != 1 {
			fmt.Fprintf(os.Stderr, "probe: eval: %v (%d)\n", err, one)
			return 1
		}
		rtt := time.Since(t0)
		fmt.Fprintf(out, "%d %d %d\n", t0.Sub(start), rtt, runDelay()-wait0)
		time.Sleep(2 * time.Millisecond)
	}
	return 0
}

// runDelay is how long, in ns, this process's threads have waited for a
// core so far (Linux's schedstat); 0 elsewhere.
func runDelay() int64 {
	tasks, _ := os.ReadDir("/proc/self/task")
	var sum int64
	for _, t := range tasks {
		data, err := os.ReadFile("/proc/self/task/" + t.Name() + "/schedstat")
		if err != nil {
			continue
		}
		var run, wait int64
		if _, err := fmt.Sscan(string(data), &run, &wait); err == nil {
			sum += wait
		}
	}
	return sum
}

// probe is a running probe process.
type probe struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   bytes.Buffer
}

func startProbe(b *testing.B, sock string) *probe {
	b.Helper()
	p := &probe{cmd: exec.Command(os.Args[0])}
	p.cmd.Env = append(os.Environ(), probeSockEnv+"="+sock)
	// A session of its own, like another terminal's client (see
	// editorOpts.session).
	ownSession(p.cmd)
	p.cmd.Stdout, p.cmd.Stderr = &p.out, os.Stderr
	stdin, err := p.cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	p.stdin = stdin
	if err := p.cmd.Start(); err != nil {
		b.Fatalf("start probe: %v", err)
	}
	return p
}

// stop ends the probe and returns its round trips in order, with when
// each started and how long, in ms, the probe waited for a core during it.
func (p *probe) stop(b *testing.B) (rtts, at []time.Duration, waits []float64) {
	b.Helper()
	p.stdin.Close()
	if err := p.cmd.Wait(); err != nil {
		b.Fatalf("probe: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(p.out.String()), "\n") {
		var start, rtt, wait int64
		if _, err := fmt.Sscan(line, &start, &rtt, &wait); err != nil {
			b.Fatalf("probe output %q: %v", line, err)
		}
		at = append(at, time.Duration(start))
		rtts = append(rtts, time.Duration(rtt))
		waits = append(waits, float64(wait)/1e6)
	}
	if len(rtts) == 0 {
		b.Fatal("the probe measured nothing")
	}
	return rtts, at, waits
}
