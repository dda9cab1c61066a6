package nvimhost

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
)

// benchTaskReply scripts one task of BenchmarkEightTasks: five bash calls
// and two writes, one per step, each answer streamed before its call,
// then a streamed final answer.
func benchTaskReply(req fakellm.Request) fakellm.Reply {
	marker, tools := "", 0
	for _, m := range req.Messages {
		if i := strings.Index(m.Content, "BENCH-"); m.Role == llm.RoleUser && marker == "" && i >= 0 {
			marker = strings.Fields(m.Content[i:])[0]
		}
		if m.Role == llm.RoleTool {
			tools++
		}
	}
	words := strings.Fields(strings.Repeat("working on it step by step ", 8))
	deltas := make([]string, len(words))
	for i, w := range words {
		deltas[i] = w + " "
	}
	r := fakellm.Reply{Deltas: deltas, Interval: 2 * time.Millisecond}
	name := strings.ToLower(marker)
	switch {
	case marker == "":
		r.Deltas = []string{"chat"}
	case tools < 2:
		r.ToolCalls = []llm.ToolCall{toolCall(fmt.Sprintf("w%d-%s", tools, name), "write", map[string]any{"path": fmt.Sprintf("%s-%d.txt", name, tools), "content": strings.Repeat(marker+" line\n", 50)})}
	case tools < 7:
		r.ToolCalls = []llm.ToolCall{toolCall(fmt.Sprintf("b%d-%s", tools, name), "bash", map[string]any{"command": fmt.Sprintf("wc -l %s-0.txt > %s-bash-%d.txt", name, name, tools)})}
	}
	return r
}

// BenchmarkEightTasks runs eight tasks at once in one host, against the
// fake model streaming, while a second client with a UI attached measures
// nvim_eval("1") round trips: the host's peak RSS must stay within 40 MiB
// and the round trip under 50 ms (:Coder task waits for no git: the
// worktree is made in the background).
func BenchmarkEightTasks(b *testing.B) {
	const (
		tasks    = 8
		rssLimit = 40 << 10 // KiB
		maxLimit = 50 * time.Millisecond
	)
	for i := 0; i < b.N; i++ {
		e := newEditor(b, editorOpts{listen: true, session: true, nice: true, userConfig: `{"tasks": {"max_parallel": 8}}`})
		writeFile(b, filepath.Join(e.dir, "main.txt"), "one\n")
		writeFile(b, filepath.Join(e.dir, ".gitignore"), ".coder/\n")
		gitOut(b, e.dir, "add", "-A")
		gitOut(b, e.dir, "commit", "-qm", "start")
		e.llm.SetScript(benchTaskReply)
		e.start()
		var pid int
		e.lua(`return vim.fn.jobpid(require('coder.host').state.chan)`, &pid)
		base := procKB(b, pid, "VmRSS")
		// The end of each task is counted in Neovim (its CoderTask event),
		// not asked of the host: a request would hold Neovim while the
		// host answers.
		e.lua(`_G.bench_done = 0
			vim.api.nvim_create_autocmd('User', {pattern = 'CoderTask', callback = function()
				local d = require('coder').last_event.data
				if d.kind == 'task_done' then _G.bench_done = _G.bench_done + 1 end
				if d.state == 'failed' then _G.bench_failed = d.message end
			end})`, nil)
		// The machine's own share: round trips with the host idle first.
		idle := startProbe(b, e.sock)
		e.waitFor("the probe's UI", 10*time.Second, func() bool { return e.boolLua(`return #vim.api.nvim_list_uis() > 0`) })
		time.Sleep(5 * time.Second) // a measuring window, not a wait for a condition
		idleRTT, _, _ := idle.stop(b)
		slices.Sort(idleRTT)
		probe := startProbe(b, e.sock)
		e.waitFor("the probe's UI", 10*time.Second, func() bool { return e.boolLua(`return #vim.api.nvim_list_uis() > 0`) })
		b.ResetTimer()
		start := time.Now()
		for n := 1; n <= tasks; n++ {
			e.cmd(fmt.Sprintf("Coder task --mode yolo BENCH-%d do the work", n))
		}
		for deadline := time.Now().Add(300 * time.Second); ; {
			var done int
			var failed string
			e.lua(`return _G.bench_done`, &done)
			e.lua(`return _G.bench_failed or ''`, &failed)
			if failed != "" {
				b.Fatal(failed)
			}
			if done == tasks {
				break
			}
			if time.Now().After(deadline) {
				var lines []string
				for _, it := range e.tasks() {
					lines = append(lines, it.Line)
				}
				b.Fatalf("%d of %d tasks told done after 300 s:\n%s\nnotes: %s", done, tasks, strings.Join(lines, "\n"), e.notes())
			}
			time.Sleep(100 * time.Millisecond) // few polls: each one is Neovim's work too
		}
		elapsed := time.Since(start)
		b.StopTimer()
		rtts, _, _ := probe.stop(b)
		peak := procKB(b, pid, "VmHWM")
		slices.Sort(rtts)
		worst := rtts[len(rtts)-1]
		b.ReportMetric(float64(rtts[len(rtts)*99/100].Microseconds())/1000, "p99-ms")
		b.ReportMetric(float64(worst.Microseconds())/1000, "max-ms")
		b.ReportMetric(float64(idleRTT[len(idleRTT)-1].Microseconds())/1000, "idle-max-ms")
		b.ReportMetric(float64(base)/1024, "host-base-MiB")
		b.ReportMetric(float64(peak)/1024, "host-peak-MiB")
		b.ReportMetric(elapsed.Seconds(), "run-s")
		b.Logf("%d tasks in %.1f s: round trip p99 %v max %v over %d probes (host idle before: p99 %v max %v); host RSS %d KiB before, peak %d KiB", tasks, elapsed.Seconds(), rtts[len(rtts)*99/100], worst, len(rtts), idleRTT[len(idleRTT)*99/100], idleRTT[len(idleRTT)-1], base, peak)
		if peak > rssLimit || worst >= maxLimit {
			b.Errorf("host peak RSS %d KiB (limit %d), round trip max %v (limit %v)", peak, rssLimit, worst, maxLimit)
		}
		b.StartTimer()
	}
}
