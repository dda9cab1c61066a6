package main

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/sandbox"
)

// sandboxWorld is a workspace whose temp dir (TMPDIR) and user config dir
// are its own, so that "outside" is neither writable temp nor the
// workspace.
type sandboxWorld struct {
	bin, ws, outside, tmp, config string
	srv                           *fakellm.Server
	env                           []string
}

func newSandboxWorld(t *testing.T) *sandboxWorld {
	t.Helper()
	w := &sandboxWorld{bin: hostBinary(t), ws: gitRepo(t), outside: t.TempDir(), srv: fakellm.New()}
	t.Cleanup(w.srv.Close)
	base := t.TempDir()
	w.tmp = filepath.Join(base, "tmp")
	// The user's config inside the workspace, as with a dotfiles
	// repository: still protected.
	w.config = filepath.Join(w.ws, "dotconfig")
	for _, d := range []string{w.tmp, filepath.Join(w.config, "coder"), filepath.Join(w.ws, ".coder")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(w.config, "coder", "config.json"), filepath.Join(w.ws, ".coder", "notes.md")} {
		if err := os.WriteFile(f, []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range [][]string{{"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init"}} {
		if out, err := exec.Command("git", append([]string{"-C", w.ws}, c...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", c, err, out)
		}
	}
	w.env = append(slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, "TMPDIR=") || strings.HasPrefix(kv, "XDG_CONFIG_HOME=")
	}), "TMPDIR="+w.tmp, "XDG_CONFIG_HOME="+w.config, "XDG_STATE_HOME="+filepath.Join(base, "state"),
		"OPENAI_BASE_URL="+w.srv.URL(), "OPENAI_API_KEY=test",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	return w
}

// run has the model make the bash calls, one per step, then answer.
func (w *sandboxWorld) run(t *testing.T, mode string, extraEnv []string, calls ...llm.ToolCall) (result, map[string]string) {
	t.Helper()
	w.srv.Reset()
	for _, c := range calls {
		w.srv.Enqueue(fakellm.Reply{ToolCalls: []llm.ToolCall{c}})
	}
	w.srv.Enqueue(fakellm.Reply{Content: "done"})
	r := execWithEnv(t, w.bin, w.ws, append(slices.Clone(w.env), extraEnv...), "--mode", mode, "go")
	return r, toolResults(w.srv)
}

func bash(id, command string) llm.ToolCall {
	return toolCall(id, "bash", map[string]any{"command": command})
}

func requireSandbox(t *testing.T) {
	t.Helper()
	self := hostBinary(t)
	out, err := exec.Command(self, sandbox.Subcommand, "--probe").Output()
	if err != nil || !strings.Contains(string(out), `"filesystem":true`) || !strings.Contains(string(out), `"network":true`) {
		t.Skipf("no Landlock and seccomp here: %s %v", out, err)
	}
}

// TestExecSandbox: in auto-edit, commands the analyzer cannot see through
// run unasked and confined; writes outside, to the protected paths and
// the user's config fail in every mode, yolo included; git commit works;
// no TCP connection leaves.
func TestExecSandbox(t *testing.T) {
	requireSandbox(t)
	w := newSandboxWorld(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	arrived := make(chan struct{}, 8)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			arrived <- struct{}{}
			c.Close()
		}
	}()
	py := func(code string) string { return "python3 -c " + shellQuote(code) }
	escape := filepath.Join(w.outside, "escape")
	r, res := w.run(t, "auto-edit", nil,
		bash("in", py("open('in.txt','w').write('x')")),
		bash("out", py("open('"+escape+"','w').write('x')")),
		bash("tmp", py("import tempfile; tempfile.mkstemp()")),
		bash("gitcfg", py("open('.git/config','a').write('[core]\\n\\tfsmonitor = evil\\n')")),
		bash("net", py("import socket; socket.create_connection(('127.0.0.1', "+portOf(ln)+"), timeout=5)")),
		bash("commit", "git add in.txt && git commit -qm 'from the agent' && git log --oneline | wc -l"),
	)
	if r.code != 0 {
		t.Fatalf("exec: exit %d\n%s", r.code, r.stderr)
	}
	if strings.Contains(r.stderr, "approval") && strings.Contains(r.stderr, "denied") {
		t.Errorf("a command asked in auto-edit:\n%s", r.stderr)
	}
	if _, err := os.Stat(filepath.Join(w.ws, "in.txt")); err != nil {
		t.Errorf("the write in the workspace did not land: %v; %q", err, res["in"])
	}
	if _, err := os.Stat(escape); err == nil {
		t.Error("a write outside the workspace landed")
	}
	if !strings.Contains(res["out"], "SandboxError") {
		t.Errorf("the refused write is not reported as the sandbox's: %q", res["out"])
	}
	if !strings.Contains(res["tmp"], "exit code 0") {
		t.Errorf("a temp file could not be made: %q", res["tmp"])
	}
	if data, _ := os.ReadFile(filepath.Join(w.ws, ".git", "config")); strings.Contains(string(data), "fsmonitor") {
		t.Error(".git/config was written")
	}
	if !strings.Contains(res["commit"], "2\n") {
		t.Errorf("git commit in the sandbox: %q", res["commit"])
	}
	select {
	case <-arrived:
		t.Error("a TCP connection left the sandbox")
	case <-time.After(50 * time.Millisecond):
	}

	// yolo: no prompts, the sandbox still on for the protected paths.
	cfg := filepath.Join(w.config, "coder", "config.json")
	r, res = w.run(t, "yolo", nil,
		bash("y1", "echo pwned >> .git/config; echo '{\"mode\":\"yolo\"}' > "+cfg+"; echo x > .coder/notes.md; echo x > .git/hooks/pre-commit; echo x > "+escape),
	)
	if r.code != 0 {
		t.Fatalf("exec yolo: exit %d\n%s", r.code, r.stderr)
	}
	for _, f := range []string{filepath.Join(w.ws, ".git", "config"), cfg, filepath.Join(w.ws, ".coder", "notes.md")} {
		if data, _ := os.ReadFile(f); strings.Contains(string(data), "pwned") || strings.Contains(string(data), "yolo") || string(data) == "x\n" {
			t.Errorf("yolo wrote the protected %s: %q", f, data)
		}
	}
	for _, f := range []string{filepath.Join(w.ws, ".git", "hooks", "pre-commit"), escape} {
		if _, err := os.Stat(f); err == nil {
			t.Errorf("yolo wrote %s", f)
		}
	}
}

// TestExecSandboxMissingProtectedDirs: a repository without .git/hooks,
// .git/info and .coder (git init --template=, a fresh workspace): the
// sandbox's read-only mounts are made once per session, so those paths
// must exist by then; a command cannot create a hook, git's attributes or
// a project config in them, yolo included.
func TestExecSandboxMissingProtectedDirs(t *testing.T) {
	requireSandbox(t)
	w := newSandboxWorld(t)
	for _, d := range []string{".git/hooks", ".git/info", ".coder"} {
		if err := os.RemoveAll(filepath.Join(w.ws, d)); err != nil {
			t.Fatal(err)
		}
	}
	planted := []string{".git/hooks/pre-commit", ".git/info/attributes", ".coder/config.json"}
	var script []string
	for _, f := range planted {
		script = append(script, "mkdir -p "+filepath.Dir(f)+"; echo pwned > "+f)
	}
	r, res := w.run(t, "yolo", nil, bash("plant", strings.Join(script, "; ")))
	if r.code != 0 {
		t.Fatalf("exec yolo: exit %d\n%s", r.code, r.stderr)
	}
	for _, f := range planted {
		if _, err := os.Stat(filepath.Join(w.ws, f)); err == nil {
			t.Errorf("a command created %s: %q", f, res["plant"])
		}
	}
}

// TestExecSandboxEscalation: the model's request to run outside the
// sandbox is asked in every mode; exec refuses it without --yes and runs
// it unconfined with it.
func TestExecSandboxEscalation(t *testing.T) {
	requireSandbox(t)
	w := newSandboxWorld(t)
	escape := filepath.Join(w.outside, "escape")
	outside := toolCall("o", "bash", map[string]any{"command": "touch " + escape, "outside_sandbox": true})
	r, res := w.run(t, "yolo", nil, outside)
	if _, err := os.Stat(escape); err == nil || r.code != 0 {
		t.Fatalf("ran outside the sandbox unasked (exit %d): %q", r.code, res["o"])
	}
	if !strings.Contains(res["o"], "OUTSIDE the sandbox") {
		t.Errorf("the refusal does not say why: %q", res["o"])
	}
	w.srv.Reset()
	w.srv.Enqueue(fakellm.Reply{ToolCalls: []llm.ToolCall{outside}}, fakellm.Reply{Content: "done"})
	r = execWithEnv(t, w.bin, w.ws, w.env, "--mode", "auto-edit", "--yes", "go")
	if _, err := os.Stat(escape); err != nil {
		t.Fatalf("--yes did not run it outside the sandbox: %v\n%s", err, r.stderr)
	}
}

// TestExecSandboxFallback: without user namespaces (forced here) the
// protected paths are not kernel-guarded: the session says so, and a
// command the analyzer cannot see through is asked again in auto-edit.
func TestExecSandboxFallback(t *testing.T) {
	requireSandbox(t)
	w := newSandboxWorld(t)
	r, res := w.run(t, "auto-edit", []string{sandbox.NoUsernsEnv + "=1"}, bash("in", "python3 -c "+shellQuote("open('in.txt','w').write('x')")))
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "sandbox: ") || !strings.Contains(r.stderr, "not protected by the kernel") {
		t.Errorf("the missing mechanism is not told:\n%s", r.stderr)
	}
	if _, err := os.Stat(filepath.Join(w.ws, "in.txt")); err == nil {
		t.Errorf("auto-edit ran an unseen command unasked without a full sandbox: %q", res["in"])
	}
}

// TestExecSandboxConfinesModelRepository: in auto-edit a git command on
// a repository the model wrote runs unasked, and so does its
// core.fsmonitor program, but confined: what it writes outside the
// workspace, or to .git/config, is refused.
func TestExecSandboxConfinesModelRepository(t *testing.T) {
	requireSandbox(t)
	w := newSandboxWorld(t)
	marker := filepath.Join(w.outside, "marker")
	ran := filepath.Join(w.ws, "ran")
	program := "touch " + ran + "; touch " + marker + "; echo pwned >> " + filepath.Join(w.ws, ".git", "config")
	config := "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ..\n\tfsmonitor = \"" + program + "\"\n"
	var calls []llm.ToolCall
	for p, content := range map[string]string{"sub/HEAD": "ref: refs/heads/main\n", "sub/config": config, "sub/objects/x": "x", "sub/refs/x": "x"} {
		calls = append(calls, toolCall("w"+strings.ReplaceAll(p, "/", "_"), "write", map[string]any{"path": p, "content": content}))
	}
	calls = append(calls, bash("st", "cd sub && git status"))
	r, res := w.run(t, "auto-edit", nil, calls...)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if !strings.Contains(res["st"], "exit code") {
		t.Errorf("git status did not run unasked: %q", res["st"])
	}
	if _, err := os.Stat(ran); err != nil {
		t.Fatalf("the repository's program did not run (the test proves nothing): %v\n%s", err, r.stderr)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the repository's program wrote outside the workspace")
	}
	if data, _ := os.ReadFile(filepath.Join(w.ws, ".git", "config")); strings.Contains(string(data), "pwned") {
		t.Error("the repository's program wrote .git/config")
	}
}

func portOf(ln net.Listener) string {
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return port
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// TestSandboxPromptCount counts the approvals a scripted "make the
// failing test pass" task asks in auto-edit: the test runner, reads, a
// sed -i, a python3 one-liner editing a file, go vet, the tests again.
// Without the sandbox (turned off in the user's config) the commands the
// analyzer cannot see through are asked; with it none is, the work is
// done, and nothing is written outside the workspace (HOME stays empty:
// Go's build cache goes to the temp dir).
func TestSandboxPromptCount(t *testing.T) {
	requireSandbox(t)
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go on PATH")
	}
	count := func(sandboxOn bool) (asked int, fixed bool, home string) {
		w := newSandboxWorld(t)
		home = t.TempDir()
		for name, content := range map[string]string{
			"go.mod":       "module calc\n\ngo 1.26\n",
			"calc.go":      "package calc\n\n// TODO: check the sign\nfunc Add(a, b int) int { return a - b }\n",
			"calc_test.go": "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 3) != 5 {\n\t\tt.Fatal(Add(2, 3))\n\t}\n}\n",
		} {
			if err := os.WriteFile(filepath.Join(w.ws, name), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		env := []string{"HOME=" + home, "GOTOOLCHAIN=local", "GOFLAGS=", "GOCACHE=", "XDG_CACHE_HOME="}
		if !sandboxOn {
			cfg := filepath.Join(w.config, "coder", "config.json")
			if err := os.WriteFile(cfg, []byte(`{"sandbox": {"mode": "off"}}`), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		r, res := w.run(t, "auto-edit", env,
			bash("t1", "go test ./..."),
			bash("r1", "cat calc.go"),
			bash("r2", "grep -n return calc.go"),
			bash("s1", "sed -i 's/a - b/a + b/' calc.go"),
			bash("p1", "python3 -c "+shellQuote("p='calc.go'; s=open(p).read(); open(p,'w').write(s.replace('TODO: check the sign', 'adds'))")),
			bash("v1", "go vet ./..."),
			bash("t2", "go test ./..."),
		)
		asked = strings.Count(r.stderr, "— denied: ")
		fixed = strings.Contains(res["t2"], "exit code 0")
		if sandboxOn && !fixed {
			t.Logf("results: %q\n%s", res, r.stderr)
		}
		return asked, fixed, home
	}
	before, _, _ := count(false)
	after, fixed, home := count(true)
	t.Logf("approvals asked in auto-edit: %d without the sandbox, %d with it", before, after)
	if after != 0 || !fixed {
		t.Errorf("with the sandbox: %d asked, fixed %v", after, fixed)
	}
	if before == 0 {
		t.Error("without the sandbox nothing was asked: the count proves nothing")
	}
	if ents, _ := os.ReadDir(home); len(ents) > 0 {
		t.Errorf("written under HOME: %v", ents)
	}
}
