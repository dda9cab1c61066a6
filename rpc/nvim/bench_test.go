package nvimhost

import (
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/neovim/go-client/nvim"
)

// BenchmarkStreamingResponsiveness streams 5,000 deltas/s for 5 s into
// the transcript while a second client measures nvim_eval("1") round trips
// over Neovim's socket: Neovim must stay responsive (p99 < 20 ms) and the
// transcript must hold every character exactly once, in order.
func BenchmarkStreamingResponsiveness(b *testing.B) {
	const (
		n        = 25000
		interval = 200 * time.Microsecond
		p99Limit = 20 * time.Millisecond
	)
	deltas, full := numbered(n)
	for i := 0; i < b.N; i++ {
		e := newEditor(b, editorOpts{listen: true})
		// Attach a UI so Neovim really redraws the following transcript
		// window, as it would for a user.
		var redraws atomic.Int64
		if err := e.v.RegisterHandler("redraw", func(updates ...[]any) { redraws.Add(1) }); err != nil {
			b.Fatal(err)
		}
		if err := e.v.AttachUI(160, 50, map[string]any{"ext_linegrid": true, "rgb": true}); err != nil {
			b.Fatalf("attach ui: %v", err)
		}
		e.start()
		probe, err := nvim.Dial(e.sock, nvim.DialLogf(func(string, ...any) {}))
		if err != nil {
			b.Fatalf("dial %s: %v", e.sock, err)
		}
		e.llm.Enqueue(fakellm.Reply{Deltas: deltas, Interval: interval})
		b.ResetTimer()
		start := time.Now()
		e.cmd("Coder stream please")

		var rtts []time.Duration
		done := false
		for !done {
			t0 := time.Now()
			var one int
			if err := probe.Eval("1", &one); err != nil || one != 1 {
				b.Fatalf("probe eval: %v (%d)", err, one)
			}
			rtts = append(rtts, time.Since(t0))
			time.Sleep(2 * time.Millisecond)
			if len(rtts)%25 == 0 {
				done = strings.Contains(e.transcript(), "t24999\n")
				if time.Since(start) > 60*time.Second {
					b.Fatal("the stream did not finish within 60 s")
				}
			}
		}
		elapsed := time.Since(start)
		b.StopTimer()
		probe.Close()
		e.waitIdle(10 * time.Second)
		assertExactlyOnce(b, e.transcript(), full, n)

		slices.Sort(rtts)
		p50 := rtts[len(rtts)*50/100]
		p99 := rtts[len(rtts)*99/100]
		b.ReportMetric(float64(p50.Microseconds())/1000, "p50-ms")
		b.ReportMetric(float64(p99.Microseconds())/1000, "p99-ms")
		b.ReportMetric(float64(rtts[len(rtts)-1].Microseconds())/1000, "max-ms")
		b.ReportMetric(float64(len(rtts)), "probes")
		b.ReportMetric(float64(n)/elapsed.Seconds(), "deltas/s")
		b.ReportMetric(float64(redraws.Load())/elapsed.Seconds(), "redraws/s")
		if p99 >= p99Limit {
			b.Errorf("p99 round trip %v while streaming, want < %v", p99, p99Limit)
		}
		b.StartTimer()
	}
}
