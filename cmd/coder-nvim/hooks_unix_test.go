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

// A project's pre_tool_use hook runs nothing until the user trusted the
// file; trusted, its exit 2 refuses the model's bash call, and the model
// reads the hook's reason as the call's result.
func TestExecProjectHooksOnlyOnceTrusted(t *testing.T) {
	bin := hostBinary(t)
	srv := fakellm.New()
	defer srv.Close()
	dir := gitRepo(t)
	marker := filepath.Join(t.TempDir(), "hook-ran")
	ran := filepath.Join(dir, "bash-ran")
	cfg := `{"hooks": {"pre_tool_use": [{"matcher": "bash", "command": "touch ` + marker + `; echo 'no shell in this repository' >&2; exit 2"}]}}`
	writeTestFile(t, filepath.Join(dir, ".coder", "config.json"), cfg)
	env := append(os.Environ(), "OPENAI_BASE_URL="+srv.URL(), "OPENAI_API_KEY=test",
		"XDG_CONFIG_HOME="+t.TempDir(), "XDG_STATE_HOME="+t.TempDir())
	turn := func() result {
		t.Helper()
		os.Remove(ran)
		srv.ForgetRequests()
		srv.Enqueue(
			fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("b", "bash", map[string]any{"command": "touch bash-ran"})}},
			fakellm.Reply{Content: "done"},
		)
		r := execWithEnv(t, bin, dir, env, "--yes", "go")
		if r.code != 0 {
			t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
		}
		return r
	}

	r := turn()
	if _, err := os.Stat(marker); err == nil {
		t.Fatalf("the untrusted project's hook ran; stderr:\n%s", r.stderr)
	}
	if _, err := os.Stat(ran); err != nil {
		t.Fatalf("the bash call did not run: %v; stderr:\n%s", err, r.stderr)
	}
	if !strings.Contains(r.stderr, `hooks.pre_tool_use[0] (bash): runs "touch `+marker) {
		t.Errorf("stderr does not list the ignored hook:\n%s", r.stderr)
	}

	trust := exec.Command(bin, "trust", "--cwd", dir)
	trust.Env = env
	if out, err := trust.CombinedOutput(); err != nil || !strings.Contains(string(out), "now applies: hooks.pre_tool_use[0]") {
		t.Fatalf("trust: %v\n%s", err, out)
	}

	r = turn()
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("the trusted hook did not run; stderr:\n%s", r.stderr)
	}
	if _, err := os.Stat(ran); err == nil {
		t.Fatalf("the blocked bash call ran; stderr:\n%s", r.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	msgs := reqs[1].Messages
	if last := msgs[len(msgs)-1]; last.Role != llm.RoleTool || last.Content != "blocked by a pre_tool_use hook: no shell in this repository" {
		t.Errorf("tool message = %+v", last)
	}
}
