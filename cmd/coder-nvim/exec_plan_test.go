package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
)

// TestExecPlanYesWritesNothing: --yes never approves a plan. The plan is
// the turn's answer, nothing is written, and exec says how to go on; the
// way it names then carries the plan out.
func TestExecPlanYesWritesNothing(t *testing.T) {
	bin := hostBinary(t)
	srv := fakellm.New()
	defer srv.Close()
	dir := gitRepo(t)
	const plan = "1. Create plan.txt\n2. Done"
	srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{
			toolCall("p1", "propose_plan", map[string]any{"plan": plan}),
			toolCall("w1", "write", map[string]any{"path": "plan.txt", "content": "x\n"}),
		}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("w2", "write", map[string]any{"path": "plan.txt", "content": "x\n"})}},
		fakellm.Reply{Content: "should not be asked"},
	)
	r := execHost(t, bin, dir, srv.URL(), "--mode", "plan", "--yes", "plan a file")
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	if strings.TrimSpace(r.stdout) != plan {
		t.Errorf("stdout = %q, want the plan", r.stdout)
	}
	if _, err := os.Stat(filepath.Join(dir, "plan.txt")); err == nil {
		t.Error("plan.txt was written")
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d model calls, want 1: the plan ends the turn", n)
	}
	id := sessionID(t, r.stderr)
	hint := "coder-nvim exec --resume " + id + " --mode auto-edit \"carry out the plan\""
	if !strings.Contains(r.stderr, hint) {
		t.Fatalf("stderr lacks %q:\n%s", hint, r.stderr)
	}

	srv.Reset()
	srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("w3", "write", map[string]any{"path": "plan.txt", "content": "x\n"})}},
		fakellm.Reply{Content: "Done."},
	)
	r = execHost(t, bin, dir, srv.URL(), "--resume", id, "--mode", "auto-edit", "carry out the plan")
	if r.code != 0 {
		t.Fatalf("go on: exit %d\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "plan.txt")); err != nil {
		t.Errorf("the plan was not carried out: %v", err)
	}
}
