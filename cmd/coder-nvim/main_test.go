package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/store"
)

// hostBinary is the built coder-nvim: $CODER_NVIM_BIN (set by make), or a
// fresh build.
func hostBinary(t testing.TB) string {
	t.Helper()
	if bin := os.Getenv("CODER_NVIM_BIN"); bin != "" {
		return bin
	}
	bin := filepath.Join(t.TempDir(), "coder-nvim")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func gitRepo(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	return dir
}

type result struct {
	stdout, stderr string
	code           int
}

func execHost(t *testing.T, bin, dir, baseURL string, args ...string) result {
	t.Helper()
	return execWithEnv(t, bin, dir, append(os.Environ(), "OPENAI_BASE_URL="+baseURL, "OPENAI_API_KEY=test", "XDG_CONFIG_HOME="+t.TempDir()), args...)
}

// execNoSandbox is execHost with the sandbox turned off in the user's
// config: the prediction layer alone, as where the kernel has no sandbox.
func execNoSandbox(t *testing.T, bin, dir, baseURL string, args ...string) result {
	t.Helper()
	cfg := t.TempDir()
	writeTestFile(t, filepath.Join(cfg, "coder", "config.json"), `{"sandbox": {"mode": "off"}}`)
	return execWithEnv(t, bin, dir, append(os.Environ(), "OPENAI_BASE_URL="+baseURL, "OPENAI_API_KEY=test", "XDG_CONFIG_HOME="+cfg), args...)
}

// execWithEnv runs `exec --cwd dir args…` with env and returns what it printed
// and its exit code.
func execWithEnv(t *testing.T, bin, dir string, env []string, args ...string) result {
	t.Helper()
	return execFrom(t, "", bin, dir, env, args...)
}

// execFrom is execWithEnv run from cwd ("": the test's own).
func execFrom(t *testing.T, cwd, bin, dir string, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"exec", "--cwd", dir}, args...)...)
	cmd.Dir, cmd.Env = cwd, env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{out.String(), errb.String(), code}
}

func toolCall(id, name string, args any) llm.ToolCall {
	data, _ := json.Marshal(args)
	return llm.ToolCall{ID: id, Type: "function", Function: llm.FunctionCall{Name: name, Arguments: string(data)}}
}

var sessionLine = regexp.MustCompile(`session: ([0-9a-f-]{36})`)

func sessionID(t *testing.T, stderr string) string {
	t.Helper()
	m := sessionLine.FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("no session id on stderr:\n%s", stderr)
	}
	return m[1]
}

func TestExecReadPatchBashAnswer(t *testing.T) {
	bin := hostBinary(t)
	srv := fakellm.New()
	defer srv.Close()
	dir := gitRepo(t)
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	patch := "*** Begin Patch\n*** Update File: main.go\n@@\n package main\n \n+func hello() string { return \"hello\" }\n+\n func main() {}\n*** End Patch\n"
	srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("c1", "read", map[string]any{"path": "main.go"})}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("c2", "patch", map[string]any{"patch": patch})}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("c3", "bash", map[string]any{"command": "grep -n hello main.go"})}},
		fakellm.Reply{Content: "Added a hello function."},
	)
	r := execHost(t, bin, dir, srv.URL(), "--yes", "add a hello function to main.go")
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	if strings.TrimSpace(r.stdout) != "Added a hello function." {
		t.Errorf("stdout = %q", r.stdout)
	}
	for _, w := range []string{"● read main.go", "● patch", "● bash: grep -n hello main.go — completed"} {
		if !strings.Contains(r.stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, r.stderr)
		}
	}
	got, _ := os.ReadFile(filepath.Join(dir, "main.go"))
	if !strings.Contains(string(got), "func hello()") {
		t.Errorf("main.go = %s", got)
	}
	id := sessionID(t, r.stderr)
	snap, err := store.Load(store.Dir(dir), id)
	if err != nil {
		t.Fatal(err)
	}
	// The snapshot replays the last request: same tools and messages.
	reqs := srv.Requests()
	last := reqs[len(reqs)-1]
	if len(snap.Tools) != len(last.Tools) || len(snap.Messages) != len(last.Messages)+1 {
		t.Errorf("snapshot has %d tools / %d messages; last request %d / %d", len(snap.Tools), len(snap.Messages), len(last.Tools), len(last.Messages))
	}

	// --resume continues the saved session.
	srv.Enqueue(fakellm.Reply{Content: "Still here."})
	r = execHost(t, bin, dir, srv.URL(), "--resume", id, "and now?")
	if r.code != 0 || sessionID(t, r.stderr) != id {
		t.Fatalf("resume: exit %d\n%s", r.code, r.stderr)
	}
	msgs := srv.Requests()[len(srv.Requests())-1].Messages
	if msgs[1].Content != "add a hello function to main.go" || msgs[len(msgs)-1].Content != "and now?" {
		t.Errorf("resumed request = %+v", msgs)
	}

	// /undo works from a new process: the snapshots are in the session.
	r = execHost(t, bin, dir, srv.URL(), "--resume", id, "/undo")
	if r.code != 0 || !strings.Contains(r.stdout, "main.go") {
		t.Fatalf("undo: exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "main.go")); string(got) != "package main\n\nfunc main() {}\n" {
		t.Errorf("main.go after /undo = %q", got)
	}
}

func TestExecRetries429(t *testing.T) {
	bin := hostBinary(t)
	srv := fakellm.New()
	defer srv.Close()
	srv.Enqueue(fakellm.Reply{Status: 429, RetryAfter: "0"}, fakellm.Reply{Content: "after retry"})
	r := execHost(t, bin, gitRepo(t), srv.URL(), "hi")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "after retry" {
		t.Fatalf("exit %d stdout %q stderr %s", r.code, r.stdout, r.stderr)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
}

func TestExecInterruptedStream(t *testing.T) {
	bin := hostBinary(t)
	srv := fakellm.New()
	defer srv.Close()
	dir := gitRepo(t)
	srv.Enqueue(fakellm.Reply{Content: strings.Repeat("partial answer ", 20), Chunk: 10, CutAfter: 5})
	r := execHost(t, bin, dir, srv.URL(), "hi")
	if r.code == 0 {
		t.Fatalf("exit 0 for a cut stream; stderr:\n%s", r.stderr)
	}
	if n := strings.Count(r.stderr, "error: "); n != 1 {
		t.Errorf("want the reason once on stderr, got %d times:\n%s", n, r.stderr)
	}
	// The session file is whole and holds the partial answer.
	snap, err := store.Load(store.Dir(dir), sessionID(t, r.stderr))
	if err != nil {
		t.Fatal(err)
	}
	if last := snap.Messages[len(snap.Messages)-1]; !strings.Contains(last.Content, "[interrupted]") {
		t.Errorf("last message = %+v", last)
	}
}

func TestExecErrors(t *testing.T) {
	bin := hostBinary(t)
	srv := fakellm.New()
	defer srv.Close()
	tests := []struct {
		name  string
		setup func(dir string)
		reply *fakellm.Reply
		args  []string
		want  string
	}{
		{"401", nil, &fakellm.Reply{Status: 401}, []string{"hi"}, "401"},
		{"malformed config", func(dir string) {
			os.MkdirAll(filepath.Join(dir, ".coder"), 0o755)
			os.WriteFile(filepath.Join(dir, ".coder", "config.json"), []byte(`{"max_steps": "x"}`), 0o644)
		}, nil, []string{"hi"}, "max_steps"},
		{"bad mode", nil, nil, []string{"--mode", "fast", "hi"}, "unknown mode"},
		{"unknown session", nil, nil, []string{"--resume", "0b8f0a53-0000-4000-8000-000000000000", "hi"}, "no such session"},
		{"unknown command", nil, nil, []string{"/nope"}, "unknown command"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := gitRepo(t)
			if tt.setup != nil {
				tt.setup(dir)
			}
			if tt.reply != nil {
				srv.Enqueue(*tt.reply)
			}
			r := execHost(t, bin, dir, srv.URL(), tt.args...)
			if r.code == 0 || !strings.Contains(r.stderr, tt.want) {
				t.Errorf("exit %d, stderr lacks %q:\n%s", r.code, tt.want, r.stderr)
			}
			if strings.Contains(r.stderr, "panic") {
				t.Errorf("panic:\n%s", r.stderr)
			}
		})
	}
}

func TestExecStdinAndVersion(t *testing.T) {
	bin := hostBinary(t)
	out, err := exec.Command(bin, "--version").Output()
	if err != nil || !strings.HasPrefix(string(out), "coder-nvim ") {
		t.Fatalf("--version: %q %v", out, err)
	}
	srv := fakellm.New()
	defer srv.Close()
	srv.Enqueue(fakellm.Reply{Content: "from stdin"})
	cmd := exec.Command(bin, "exec", "--cwd", gitRepo(t), "-")
	cmd.Env = append(os.Environ(), "OPENAI_BASE_URL="+srv.URL(), "XDG_CONFIG_HOME="+t.TempDir())
	cmd.Stdin = strings.NewReader("prompt on stdin\n")
	got, err := cmd.Output()
	if err != nil || strings.TrimSpace(string(got)) != "from stdin" {
		t.Fatalf("stdin prompt: %q %v", got, err)
	}
	if msgs := srv.Requests()[0].Messages; msgs[1].Content != "prompt on stdin\n" {
		t.Errorf("prompt = %q", msgs[1].Content)
	}
}

// BenchmarkVersionColdStart times `coder-nvim --version` from exec to exit,
// beside the floor of the same measurement on this machine: a statically
// linked Go program that prints one line, and one that also links
// net/http (which the host needs for any model). What the host adds above
// them is its own start-up.
func BenchmarkVersionColdStart(b *testing.B) {
	floor := func(name, imports string) string {
		dir := b.TempDir()
		src := "package main\n\nimport (\n\t\"fmt\"\n" + imports + ")\n\nfunc main() { fmt.Println(\"hello\") }\n"
		for file, text := range map[string]string{"go.mod": "module hello\n\ngo 1.26\n", "main.go": src} {
			if err := os.WriteFile(filepath.Join(dir, file), []byte(text), 0o644); err != nil {
				b.Fatal(err)
			}
		}
		bin := filepath.Join(dir, name)
		build := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", bin, ".")
		build.Dir, build.Env = dir, append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=-mod=mod")
		if out, err := build.CombinedOutput(); err != nil {
			b.Fatalf("build %s: %v\n%s", name, err, out)
		}
		return bin
	}
	for _, c := range []struct{ name, bin string }{
		{"coder-nvim", hostBinary(b)},
		{"go-hello-world", floor("hello", "")},
		{"go-hello-net-http", floor("hello-http", "\t_ \"net/http\"\n")},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if err := exec.Command(c.bin, "--version").Run(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func TestMain(m *testing.M) {
	// Tests never reach a real endpoint.
	os.Unsetenv("OPENAI_API_KEY")
	// Nor the user's state directory (trust records, session provenance).
	state, err := os.MkdirTemp("", "coder-nvim-state-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("XDG_STATE_HOME", state)
	code := m.Run()
	os.RemoveAll(state)
	if largeRepo.dir != "" {
		os.RemoveAll(largeRepo.dir)
	}
	os.Exit(code)
}

// trustWorkspace trusts dir's .coder/config.json as it is now, as the user
// does with `coder-nvim trust`: the tests' own settings are the user's.
func trustWorkspace(t *testing.T, dir string) {
	t.Helper()
	if _, err := config.TrustWorkspace(dir, os.Getenv); err != nil {
		t.Fatal(err)
	}
}

// exec: a hand-over to a sub-conversation and back shows as one stderr
// line each; stdout carries the root's answer only; the session file keeps
// the sub-conversation.
func TestExecHandOver(t *testing.T) {
	bin := hostBinary(t)
	srv := fakellm.New()
	defer srv.Close()
	dir := gitRepo(t)
	srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("c1", "conv_create", map[string]any{"user_instruction": "say SUBANSWER"})}},
		fakellm.Reply{Content: "SUBANSWER"},
		fakellm.Reply{Content: "root got it"},
	)
	r := execHost(t, bin, dir, srv.URL(), "delegate")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if r.stdout != "root got it\n" {
		t.Errorf("stdout = %q", r.stdout)
	}
	if strings.Count(r.stderr, "→ conv.create: handed to conversation") != 1 || strings.Count(r.stderr, "answered; back to conversation") != 1 {
		t.Errorf("stderr = %s", r.stderr)
	}
	snap, err := store.Load(store.Dir(dir), sessionID(t, r.stderr))
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Conversations) != 1 || len(snap.Conversations[0].Messages) != 2 || snap.Conversations[0].Messages[1].Content != "SUBANSWER" {
		t.Errorf("saved conversations = %+v", snap.Conversations)
	}
}
