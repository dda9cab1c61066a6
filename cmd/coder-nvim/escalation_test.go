package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
)

// execWithHome runs exec with HOME pointing at home, so that ~ in the
// model's commands names a directory the test owns.
func execWithHome(t *testing.T, bin, dir, home, baseURL string, args ...string) result {
	t.Helper()
	return execWithEnv(t, bin, dir, append(os.Environ(), "OPENAI_BASE_URL="+baseURL, "OPENAI_API_KEY=test", "XDG_CONFIG_HOME="+t.TempDir(), "HOME="+home), args...)
}

// bashLine is the exec progress line of a bash call, or "".
func bashLine(stderr, command string) string {
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, "● bash: "+command+" — ") {
			return l
		}
	}
	return ""
}

// TestAutoEditReadOnlyNeverRunsModelRepository: in auto-edit mode the
// model writes a bare repository whose core.fsmonitor runs a program (it
// only touches a marker in a temporary directory), then points read-only
// looking git at it in every way. No call may run unasked, and the marker
// never appears; git on the workspace's own repository still runs. This
// is the analysis layer alone, with the sandbox off as on a machine
// without one (TestExecSandboxConfinesModelRepository: with it).
func TestAutoEditReadOnlyNeverRunsModelRepository(t *testing.T) {
	bin := hostBinary(t)
	srv := fakellm.New()
	defer srv.Close()
	dir := gitRepo(t)
	marker := filepath.Join(t.TempDir(), "marker")
	config := fmt.Sprintf("[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ..\n\tfsmonitor = \"touch %s\"\n", marker)
	files := map[string]string{"sub/HEAD": "ref: refs/heads/main\n", "sub/config": config, "sub/objects/x": "x", "sub/refs/x": "x"}
	var calls []llm.ToolCall
	for _, p := range []string{"sub/HEAD", "sub/config", "sub/objects/x", "sub/refs/x"} {
		calls = append(calls, toolCall(fmt.Sprintf("w%d", len(calls)), "write", map[string]any{"path": p, "content": files[p]}))
	}
	escalations := []string{
		"cd sub && git status",
		"git -C sub status",
		"git --git-dir=sub status",
		"git --git-dir=sub --work-tree=. status",
		"git --work-tree=. --git-dir=sub diff",
		"(cd sub/objects; git status)",
		"cd sub; git log",
		"env -C sub git status",
		"GIT_DIR=sub git status",
	}
	for i, c := range escalations {
		calls = append(calls, toolCall(fmt.Sprintf("b%d", i), "bash", map[string]any{"command": c}))
	}
	calls = append(calls,
		toolCall("own", "bash", map[string]any{"command": "git status --short"}),
		toolCall("env", "bash", map[string]any{"command": "printenv GIT_CONFIG_KEY_0"}),
	)
	srv.Enqueue(fakellm.Reply{ToolCalls: calls}, fakellm.Reply{Content: "done"})
	r := execNoSandbox(t, bin, dir, srv.URL(), "--mode", "auto-edit", "inspect the repository")
	if _, err := os.Stat(marker); err == nil {
		t.Fatalf("a read-only verdict ran the model's core.fsmonitor program\nstderr:\n%s", r.stderr)
	}
	for _, c := range escalations {
		if l := bashLine(r.stderr, c); !strings.Contains(l, "— denied") {
			t.Errorf("%q ran without asking: %q", c, l)
		}
	}
	if l := bashLine(r.stderr, "git status --short"); !strings.Contains(l, "— completed") {
		t.Errorf("git status on the workspace's own repository: %q\n%s", l, r.stderr)
	}
	// Unasked read-only commands run with git hardened.
	reqs := srv.Requests()
	if len(reqs) < 2 {
		t.Fatalf("%d requests\n%s", len(reqs), r.stderr)
	}
	found := false
	for _, m := range reqs[len(reqs)-1].Messages {
		if m.ToolCallID == "env" {
			found = strings.Contains(m.Content, "safe.bareRepository")
		}
	}
	if !found {
		t.Errorf("printenv GIT_CONFIG_KEY_0 in a read-only call does not show the hardening\n%s", r.stderr)
	}
}

// TestAutoEditShellReadsOutsideAsk: reads outside the workspace through
// bash ask (and so are refused by a non-interactive exec) as the file
// tools refuse them; reads inside stay unasked.
func TestAutoEditShellReadsOutsideAsk(t *testing.T) {
	bin := hostBinary(t)
	srv := fakellm.New()
	defer srv.Close()
	dir := gitRepo(t)
	home := t.TempDir()
	const secret = "SECRET-KEY-MATERIAL"
	if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	outsideFile := filepath.Join(t.TempDir(), "shadow")
	for _, p := range []string{filepath.Join(home, ".ssh", "id_rsa"), outsideFile, filepath.Join(filepath.Dir(dir), "neighbour.txt")} {
		if err := os.WriteFile(p, []byte(secret+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("inside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	reads := []string{
		"cat ~/.ssh/id_rsa",
		"cat " + outsideFile,
		"head ../neighbour.txt",
		"grep -r KEY " + filepath.Dir(outsideFile),
		"cat < " + outsideFile,
		"cd .. && cat neighbour.txt",
		"echo " + outsideFile + " | xargs cat",
	}
	var calls []llm.ToolCall
	for i, c := range reads {
		calls = append(calls, toolCall(fmt.Sprintf("r%d", i), "bash", map[string]any{"command": c}))
	}
	calls = append(calls, toolCall("in", "bash", map[string]any{"command": "cat README.md"}))
	srv.Enqueue(fakellm.Reply{ToolCalls: calls}, fakellm.Reply{Content: "done"})
	r := execWithHome(t, bin, dir, home, srv.URL(), "--mode", "auto-edit", "read things")
	results := map[string]string{}
	for _, req := range srv.Requests() {
		for _, m := range req.Messages {
			if m.ToolCallID != "" {
				results[m.ToolCallID] = m.Content
			}
		}
	}
	for i, c := range reads {
		if l := bashLine(r.stderr, c); !strings.Contains(l, "— denied") {
			t.Errorf("%q was not asked for: %q", c, l)
		}
		if res := results[fmt.Sprintf("r%d", i)]; !strings.Contains(res, "outside the workspace") {
			t.Errorf("%q: the model is not told why: %q", c, res)
		}
	}
	if l := bashLine(r.stderr, "cat README.md"); !strings.Contains(l, "— completed") {
		t.Errorf("cat README.md inside the workspace: %q\n%s", l, r.stderr)
	}
	for _, req := range srv.Requests() {
		for _, m := range req.Messages {
			if strings.Contains(m.Content, secret) {
				t.Fatalf("the model was sent a file from outside the workspace (message %s): %q", m.ToolCallID, m.Content)
			}
		}
	}
}
