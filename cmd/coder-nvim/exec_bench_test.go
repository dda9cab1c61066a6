package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/testrepo"
)

// largeRepo is the large repository of the benchmarks, made once per
// test process (-count runs share it) and removed by TestMain.
var largeRepo struct {
	once sync.Once
	dir  string
	err  error
}

// sharedLargeRepo returns the large repository of benchFiles files.
func sharedLargeRepo(b *testing.B) string {
	largeRepo.once.Do(func() {
		largeRepo.dir, largeRepo.err = os.MkdirTemp("", "coder-nvim-bench-repo-")
		if largeRepo.err == nil {
			testrepo.Large(b, largeRepo.dir, benchFiles())
		}
	})
	if largeRepo.err != nil {
		b.Fatal(largeRepo.err)
	}
	return largeRepo.dir
}

// benchFiles is the size of the large repository: CODER_BENCH_FILES,
// default 20,000 so that `make bench` stays quick; the figures
// are for 100,000 (and 40,000 for search).
func benchFiles() int {
	if v, err := strconv.Atoi(os.Getenv("CODER_BENCH_FILES")); err == nil && v > 0 {
		return v
	}
	return 20_000
}

// BenchmarkExecTurn is the wall time of `coder-nvim exec` — process
// start, session open, one turn on the scripted fake model, the session
// closed and every background snapshot done — for:
//
//   - 0-tool: the model answers at once, in a tiny repository;
//   - 5-bash: the model runs `echo step N` five times (read-only: no
//     snapshot, not even the turn's first), then answers; budget ≤ 2×
//     0-tool;
//   - 5-bash-over-0-tool: the two run in turn, the budget's ratio as a
//     metric (ratio), with each one's median (0-tool-ms, 5-bash-ms);
//   - 5-bash-no-git: 5-bash in a directory that is no repository: what
//     git still adds to 5-bash (nothing but finding it is a repository);
//   - 0-tool-large: the one-answer turn in a committed repository of
//     benchFiles files + 1% untracked; budget ≤ 1.5× 0-tool;
//   - codex-5-bash: Codex CLI's `codex exec` on the same fake model and
//     script, when `codex` is on PATH (5-bash's budget is ≤ 0.1× it);
//     skipped with a note otherwise.
func BenchmarkExecTurn(b *testing.B) {
	bin := hostBinary(b)
	srv := fakellm.New()
	b.Cleanup(srv.Close)
	env := append(os.Environ(), "OPENAI_BASE_URL="+srv.URL(), "OPENAI_API_KEY=test", "XDG_CONFIG_HOME="+b.TempDir())
	tiny := b.TempDir()
	if out, err := exec.Command("git", "init", "-q", tiny).CombinedOutput(); err != nil {
		b.Fatalf("git init: %v %s", err, out)
	}
	if err := os.WriteFile(filepath.Join(tiny, "main.go"), []byte("package main\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	fiveBash := func() []fakellm.Reply {
		var calls []llm.ToolCall
		for i := range 5 {
			calls = append(calls, toolCall(fmt.Sprint("c", i), "bash", map[string]any{"command": fmt.Sprintf("echo step %d", i)}))
		}
		// One call per step, as models mostly do.
		var replies []fakellm.Reply
		for _, c := range calls {
			replies = append(replies, fakellm.Reply{ToolCalls: []llm.ToolCall{c}})
		}
		return append(replies, fakellm.Reply{Content: "done"})
	}
	// once runs one exec turn; each starts without the sessions of the
	// runs before, removed outside the timing.
	once := func(b *testing.B, dir string, script func() []fakellm.Reply) time.Duration {
		b.StopTimer()
		if err := os.RemoveAll(filepath.Join(dir, ".coder")); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		start := time.Now()
		srv.Enqueue(script()...)
		cmd := exec.Command(bin, "exec", "--cwd", dir, "go on")
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("exec: %v\n%s", err, out)
		}
		return time.Since(start)
	}
	run := func(b *testing.B, dir string, script func() []fakellm.Reply) {
		for b.Loop() {
			once(b, dir, script)
		}
	}
	answer := func() []fakellm.Reply { return []fakellm.Reply{{Content: "done"}} }
	b.Run("0-tool", func(b *testing.B) { run(b, tiny, answer) })
	b.Run("5-bash", func(b *testing.B) { run(b, tiny, fiveBash) })
	// The budget's ratio, from turns run in turn, so that the machine's
	// drift between two blocks of runs does not enter it: the medians of
	// each and 5-bash's over 0-tool's.
	b.Run("5-bash-over-0-tool", func(b *testing.B) {
		var zero, five []time.Duration
		for b.Loop() {
			zero = append(zero, once(b, tiny, answer))
			five = append(five, once(b, tiny, fiveBash))
		}
		z, f := median(zero), median(five)
		b.ReportMetric(float64(z.Microseconds())/1000, "0-tool-ms")
		b.ReportMetric(float64(f.Microseconds())/1000, "5-bash-ms")
		b.ReportMetric(float64(f)/float64(z), "ratio")
	})
	// The same turn outside any repository: no snapshot at all, so the
	// difference to 5-bash is all git costs.
	b.Run("5-bash-no-git", func(b *testing.B) { run(b, b.TempDir(), fiveBash) })
	b.Run("0-tool-large", func(b *testing.B) {
		b.StopTimer()
		large := sharedLargeRepo(b)
		b.ReportMetric(float64(benchFiles()), "files")
		b.StartTimer()
		run(b, large, answer)
	})
	b.Run("codex-5-bash", func(b *testing.B) {
		codex := os.Getenv("CODER_BENCH_CODEX")
		if codex == "" {
			codex, _ = exec.LookPath("codex")
		}
		if codex == "" {
			b.Skip("Codex CLI is not installed: set CODER_BENCH_CODEX to its binary (npm install @openai/codex@0.169.0) or put codex on PATH; 5-bash's budget is ≤ 0.1× its time")
		}
		codexEnv := codexHome(b, srv.URL())
		for b.Loop() {
			n := 0
			srv.SetScript(func(req fakellm.Request) fakellm.Reply {
				n++
				if n > 5 {
					return fakellm.Reply{Content: "done"}
				}
				return fakellm.Reply{ToolCalls: []llm.ToolCall{codexShellCall(b, req, fmt.Sprint("c", n), fmt.Sprintf("echo step %d", n-1))}}
			})
			cmd := exec.Command(codex, "exec", "--skip-git-repo-check", "--cd", tiny, "go on")
			cmd.Env = append(append([]string{}, env...), codexEnv...)
			out, err := cmd.CombinedOutput()
			if err != nil || n != 6 {
				b.Fatalf("codex exec: %v, %d model requests (want 6)\n%s", err, n, out)
			}
		}
		srv.SetScript(nil)
	})
}

// codexHome writes a CODEX_HOME of its own (never the user's) whose model
// provider is the fake server on the Responses wire, the only one Codex
// CLI 0.169 speaks, with approvals off and no sandbox so that it runs the
// commands as coder-nvim exec does; it returns the environment for it.
func codexHome(b *testing.B, url string) []string {
	home := b.TempDir()
	conf := fmt.Sprintf(`model = "test-model"
model_provider = "fake"
approval_policy = "never"
sandbox_mode = "danger-full-access"

[model_providers.fake]
name = "fake"
base_url = %q
env_key = "CODER_BENCH_FAKE_KEY"
wire_api = "responses"
`, url)
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(conf), 0o600); err != nil {
		b.Fatal(err)
	}
	return []string{"CODEX_HOME=" + home, "HOME=" + home, "CODER_BENCH_FAKE_KEY=test"}
}

// codexShellCall asks Codex to run command with whichever shell tool its
// request offers.
func codexShellCall(b *testing.B, req fakellm.Request, id, command string) llm.ToolCall {
	for _, t := range req.Tools {
		switch t.Function.Name {
		case "exec_command":
			return toolCall(id, t.Function.Name, map[string]any{"cmd": command})
		case "shell_command":
			return toolCall(id, t.Function.Name, map[string]any{"command": command})
		case "shell":
			return toolCall(id, t.Function.Name, map[string]any{"command": []string{"bash", "-lc", command}})
		}
	}
	var names []string
	for _, t := range req.Tools {
		names = append(names, t.Function.Name)
	}
	b.Errorf("Codex offered no shell tool this benchmark knows: %v", names)
	return toolCall(id, "shell", map[string]any{"command": []string{"bash", "-lc", command}})
}

// median is the middle of d (the upper one of an even count).
func median(d []time.Duration) time.Duration {
	d = slices.Clone(d)
	slices.Sort(d)
	return d[len(d)/2]
}
