package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
)

// codexBinary is Codex CLI: $CODEX_BIN, else `codex` on PATH; "" when
// neither is there.
func codexBinary() string {
	if bin := os.Getenv("CODEX_BIN"); bin != "" {
		return bin
	}
	bin, _ := exec.LookPath("codex")
	return bin
}

// benchAnswer is what the fake model finally says, checked on stdout.
const benchAnswer = "BENCH-DONE: the listing is in."

// shellCallScript answers the first request of a turn with one call of
// the shell tool the client offers (coder-nvim's bash, Codex's shell or
// exec_command) listing the workspace, and the request carrying its
// result with benchAnswer.
func shellCallScript(req fakellm.Request) fakellm.Reply {
	for _, m := range req.Messages {
		if m.Role == llm.RoleTool {
			return fakellm.Reply{Content: benchAnswer}
		}
	}
	var offered []string
	for _, t := range req.Tools {
		offered = append(offered, t.Function.Name)
	}
	var name, args string
	switch {
	case slices.Contains(offered, "bash"):
		name, args = "bash", `{"command":"ls"}`
	case slices.Contains(offered, "shell"):
		name, args = "shell", `{"command":["ls"]}`
	case slices.Contains(offered, "exec_command"):
		name, args = "exec_command", `{"cmd":"ls"}`
	case slices.Contains(offered, "shell_command"):
		name, args = "shell_command", `{"command":"ls"}`
	default:
		return fakellm.Reply{Content: "no shell tool offered: " + strings.Join(offered, ",")}
	}
	return fakellm.Reply{ToolCalls: []llm.ToolCall{{ID: fmt.Sprint("call_", len(req.Messages)), Type: "function", Function: llm.FunctionCall{Name: name, Arguments: args}}}}
}

// BenchmarkExecVsCodex runs one `exec` turn of coder-nvim and of Codex
// CLI against the same fake model speaking the Responses API: the model
// asks for one shell call (`ls`), then answers. Each run is a new process
// in a new git repository, timed from start to exit; min, median and max
// are reported. Codex runs when $CODEX_BIN or `codex` on PATH is found
// (npm install --prefix DIR @openai/codex), with a temporary CODEX_HOME
// and HOME whose config.toml points it at the fake server; else that
// half is skipped.
func BenchmarkExecVsCodex(b *testing.B) {
	srv := fakellm.New()
	defer srv.Close()
	srv.SetScript(shellCallScript)
	prompt := "List the files here, then say you are done."

	b.Run("coder-nvim", func(b *testing.B) {
		bin := hostBinary(b)
		xdg := b.TempDir()
		if err := os.MkdirAll(filepath.Join(xdg, "coder"), 0o755); err != nil {
			b.Fatal(err)
		}
		cfg := `{"provider":"openai","base_url":"` + srv.URL() + `","wire_api":"responses","model":"fake-model"}`
		if err := os.WriteFile(filepath.Join(xdg, "coder", "config.json"), []byte(cfg), 0o644); err != nil {
			b.Fatal(err)
		}
		env := append(os.Environ(), "XDG_CONFIG_HOME="+xdg, "OPENAI_API_KEY=dummy", "OPENAI_BASE_URL=", "HOME="+b.TempDir())
		timeRuns(b, srv, func(dir string) *exec.Cmd {
			cmd := exec.Command(bin, "exec", "--cwd", dir, prompt)
			cmd.Env = env
			return cmd
		})
	})

	b.Run("codex", func(b *testing.B) {
		bin := codexBinary()
		if bin == "" {
			b.Skip("Codex CLI not found: set CODEX_BIN or put codex on PATH (npm install --prefix \"$(mktemp -d)\" @openai/codex@0.169.0)")
		}
		home := b.TempDir()
		codexHome := filepath.Join(home, "codex")
		if err := os.MkdirAll(codexHome, 0o755); err != nil {
			b.Fatal(err)
		}
		// Codex's own sandbox, to compare like with like now that
		// coder-nvim's commands run in one: CODER_BENCH_CODEX_SANDBOX=
		// workspace-write; by default none, as before the sandbox.
		sandboxMode := "danger-full-access"
		if m := os.Getenv("CODER_BENCH_CODEX_SANDBOX"); m != "" {
			sandboxMode = m
		}
		toml := `model = "fake-model"
model_provider = "fake"
approval_policy = "never"
sandbox_mode = "` + sandboxMode + `"
check_for_update_on_startup = false

[model_providers.fake]
name = "fake"
base_url = "` + srv.URL() + `"
wire_api = "responses"
env_key = "CODER_BENCH_FAKE_KEY"
request_max_retries = 0
stream_max_retries = 0

[analytics]
enabled = false

[features]
plugins = false
`
		if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(toml), 0o644); err != nil {
			b.Fatal(err)
		}
		env := append(os.Environ(), "HOME="+home, "CODEX_HOME="+codexHome, "CODER_BENCH_FAKE_KEY=dummy", "OPENAI_API_KEY=", "OPENAI_BASE_URL=")
		timeRuns(b, srv, func(dir string) *exec.Cmd {
			cmd := exec.Command(bin, "exec", "--skip-git-repo-check", "-C", dir, prompt)
			cmd.Env = env
			return cmd
		})
	})
}

// timeRuns runs b.N commands, each in a new git repository, checks each
// printed benchAnswer after exactly one shell call, and reports min,
// median and max wall time.
func timeRuns(b *testing.B, srv *fakellm.Server, command func(dir string) *exec.Cmd) {
	var times []time.Duration
	for b.Loop() {
		b.StopTimer()
		dir := gitRepo(b)
		if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n"), 0o644); err != nil {
			b.Fatal(err)
		}
		cmd := command(dir)
		before := len(srv.Requests())
		b.StartTimer()
		start := time.Now()
		out, err := cmd.Output()
		took := time.Since(start)
		b.StopTimer()
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		if err != nil || !strings.Contains(string(out), benchAnswer) {
			b.Fatalf("%s: %v\nstdout: %s\nstderr: %s", cmd.Path, err, out, stderr)
		}
		if n := len(srv.Requests()) - before; n != 2 {
			b.Fatalf("%d model requests, want 2 (the shell call, the answer)", n)
		}
		times = append(times, took)
		b.StartTimer()
	}
	slices.Sort(times)
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(ms(times[0]), "min-ms")
	b.ReportMetric(ms(times[len(times)/2]), "median-ms")
	b.ReportMetric(ms(times[len(times)-1]), "max-ms")
}
