package outstream

import (
	"context"
	"encoding/json"
	"github.com/coder-nvim/coder-nvim/core/hostpath"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/coder-nvim/coder-nvim/core/tools"
)

// TestOutputStreamLimits: a flood is a few deltas, at most one per
// interval; the budget stops the stream with a marked last delta; a
// character cut between reads arrives whole.
func TestOutputStreamLimits(t *testing.T) {
	var mu sync.Mutex
	var got []string
	var limits int
	o := &Stream{interval: 20 * time.Millisecond, budget: 1 << 20, send: func(text string, atLimit bool) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, text)
		if atLimit {
			limits++
		}
	}}
	start := time.Now()
	chunk := []byte(strings.Repeat("x", 4095) + "\n")
	for range 1024 { // 4 MiB
		if n, err := o.Write(chunk); n != len(chunk) || err != nil {
			t.Fatalf("Write = %d, %v", n, err)
		}
	}
	o.Write([]byte("é"[:1]))
	o.Close()
	elapsed := time.Since(start)
	o.Write([]byte("late")) // after close: dropped
	o.flush(false)
	total := 0
	for _, s := range got {
		total += len(s)
	}
	if total != 1<<20 || limits != 1 {
		t.Errorf("streamed %d bytes with %d limit marks, want the 1 MiB budget and one mark", total, limits)
	}
	if max := int(elapsed/o.interval) + 2; len(got) > max {
		t.Errorf("%d deltas in %s, want at most %d", len(got), elapsed, max)
	}

	// A two-byte character split across writes, then closed.
	mu.Lock()
	got = nil
	mu.Unlock()
	o = &Stream{interval: time.Hour, budget: 100, send: func(text string, _ bool) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, text)
	}}
	o.Write([]byte("a" + "é"[:1]))
	o.flush(false)
	o.Write([]byte("é"[1:] + "b" + "é"[:1]))
	o.Close()
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(got, "|") != "a|éb\uFFFD" {
		t.Errorf("deltas %q", got)
	}
	for _, s := range got {
		if !utf8.ValidString(s) {
			t.Errorf("invalid UTF-8 delta %q", s)
		}
	}
}

// BenchmarkBashFlood: a command writing 64 MB as fast as it can, through
// the bash tool without and with streaming (the deltas counted, not
// rendered): what streaming costs the call, and how few deltas a flood
// makes.
func BenchmarkBashFlood(b *testing.B) {
	for _, streaming := range []bool{false, true} {
		b.Run(map[bool]string{false: "plain", true: "streaming"}[streaming], func(b *testing.B) {
			ws, err := tools.NewWorkspace(b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			var bash tools.Tool
			for _, t := range tools.Builtins(hostpath.Resolve(os.Getenv("PATH"), "")) {
				if t.Spec().Function.Name == "bash" {
					bash = t
				}
			}
			ctx := context.Background()
			deltas, streamed := 0, 0
			for b.Loop() {
				inv, err := bash.Prepare(ctx, ws, json.RawMessage(`{"command":"head -c 64000000 /dev/zero"}`))
				if err != nil {
					b.Fatal(err)
				}
				var o *Stream
				if streaming {
					o = &Stream{interval: Interval, budget: Budget, send: func(text string, _ bool) {
						deltas++
						streamed += len(text)
					}}
					inv.Output = o
				}
				if r := inv.Run(ctx); r.IsError {
					b.Fatal(r.Output)
				}
				o.Close()
			}
			b.ReportMetric(float64(deltas)/float64(b.N), "deltas/op")
			b.ReportMetric(float64(streamed)/float64(b.N), "streamed-B/op")
		})
	}
}
