//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
)

// TestExecTrustCoversExecutedFiles: the user trusts a project config whose
// hook runs `sh tools/hook.sh`; the model then rewrites that script in
// auto-edit. Trust covered the script's bytes too, so at the next start
// the file is untrusted again and the rewritten script never runs.
func TestExecTrustCoversExecutedFiles(t *testing.T) {
	bin := hostBinary(t)
	srv := fakellm.New()
	defer srv.Close()
	dir := gitRepo(t)
	marker := filepath.Join(t.TempDir(), "script-ran")
	writeTestFile(t, filepath.Join(dir, ".coder", "config.json"), `{"hooks": {"pre_tool_use": [{"matcher": "bash", "command": "sh tools/hook.sh"}]}}`)
	writeTestFile(t, filepath.Join(dir, "tools", "hook.sh"), "exit 0\n")
	xdg := t.TempDir()
	writeTestFile(t, filepath.Join(xdg, "coder", "config.json"), `{"sandbox": {"mode": "off"}}`)
	env := append(os.Environ(), "OPENAI_BASE_URL="+srv.URL(), "OPENAI_API_KEY=test",
		"XDG_CONFIG_HOME="+xdg, "XDG_STATE_HOME="+t.TempDir())
	trust := exec.Command(bin, "trust", "--cwd", dir)
	trust.Env = env
	if out, err := trust.CombinedOutput(); err != nil {
		t.Fatalf("trust: %v\n%s", err, out)
	}
	srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("r", "read", map[string]any{"path": "tools/hook.sh"})}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("w", "write", map[string]any{"path": "tools/hook.sh", "content": "touch " + marker + "\nexit 0\n"})}},
		fakellm.Reply{Content: "done"},
	)
	r := execWithEnv(t, bin, dir, env, "--mode", "auto-edit", "improve the hook")
	if r.code != 0 || !strings.Contains(string(mustRead(t, filepath.Join(dir, "tools", "hook.sh"))), marker) {
		t.Fatalf("the model's write did not land: exit %d\n%s", r.code, r.stderr)
	}
	srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("b", "bash", map[string]any{"command": "true"})}},
		fakellm.Reply{Content: "done"},
	)
	r = execWithEnv(t, bin, dir, env, "--mode", "auto-edit", "--yes", "run something")
	if _, err := os.Stat(marker); err == nil {
		t.Fatalf("the script the model rewrote ran under the old trust\nstderr:\n%s", r.stderr)
	}
	if !strings.Contains(r.stderr, "is not trusted") {
		t.Errorf("stderr does not say the file is untrusted again:\n%s", r.stderr)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
