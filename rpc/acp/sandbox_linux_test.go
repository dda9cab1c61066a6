package acp_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/sandbox"
	sdk "github.com/coder/acp-go-sdk"
)

// TestSandboxPermissionOptions: a command confined by the sandbox is
// asked with an option that says so, and the model's request to run one
// outside it is asked with "run outside the sandbox" options; rejecting
// it leaves nothing written.
func TestSandboxPermissionOptions(t *testing.T) {
	if out, err := exec.Command(binary, sandbox.Subcommand, "--probe").Output(); err != nil || !strings.Contains(string(out), `"filesystem":true`) {
		t.Skipf("no full sandbox here: %s %v", out, err)
	}
	e := newEnv(t, envOptions{})
	sid, _ := e.newSession()
	outside := filepath.Join(t.TempDir(), "escape")
	e.client.permit = func(_ context.Context, req sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
		return selectOption("reject_once"), nil
	}
	e.llm.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("in", "bash", map[string]any{"command": "echo hi > out.txt"})}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("out", "bash", map[string]any{"command": "touch " + outside, "outside_sandbox": true})}},
		fakellm.Reply{Content: "done"},
	)
	e.mustPrompt(sid, "go", sdk.StopReasonEndTurn)
	perms := e.client.permissions()
	if len(perms) != 2 {
		t.Fatalf("%d permission requests, want 2: %+v", len(perms), perms)
	}
	names := func(r sdk.RequestPermissionRequest) string {
		var out []string
		for _, o := range r.Options {
			out = append(out, o.Name)
		}
		return strings.Join(out, " | ")
	}
	if got := names(perms[0]); !strings.Contains(got, "Allow once (in the sandbox)") {
		t.Errorf("confined command's options: %s", got)
	}
	got := names(perms[1])
	// Leaving the sandbox is asked each time: no "always" (issue 48).
	if !strings.Contains(got, "Run outside the sandbox, once") || hasKind(perms[1], sdk.PermissionOptionKindAllowAlways) {
		t.Errorf("escalation options: %s", got)
	}
	// The title stays the call's own; the reason, which says the command
	// leaves the sandbox, is in the request's content.
	if text := contentText(perms[1].ToolCall.Content); !strings.Contains(text, "OUTSIDE the sandbox") {
		t.Errorf("escalation content %q does not say it leaves the sandbox", text)
	}
	if _, err := os.Stat(outside); err == nil {
		t.Error("the rejected command ran")
	}
}

// TestOutsideSandboxNeverRemembered: a client that answers allow_always
// to everything still gets each run outside the sandbox asked on its own.
func TestOutsideSandboxNeverRemembered(t *testing.T) {
	if out, err := exec.Command(binary, sandbox.Subcommand, "--probe").Output(); err != nil || !strings.Contains(string(out), `"filesystem":true`) {
		t.Skipf("no full sandbox here: %s %v", out, err)
	}
	e := newEnv(t, envOptions{})
	sid, _ := e.newSession()
	dir := t.TempDir()
	e.client.permit = func(context.Context, sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
		return selectOption("allow_always"), nil
	}
	e.llm.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("o1", "bash", map[string]any{"command": "touch " + filepath.Join(dir, "one"), "outside_sandbox": true})}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("o2", "bash", map[string]any{"command": "touch " + filepath.Join(dir, "two"), "outside_sandbox": true})}},
		fakellm.Reply{Content: "done"},
	)
	e.mustPrompt(sid, "go", sdk.StopReasonEndTurn)
	perms := e.client.permissions()
	if len(perms) != 2 {
		t.Fatalf("%d permission requests, want one for each run outside the sandbox", len(perms))
	}
	checkIDs(t, perms)
	for _, p := range perms {
		if hasKind(p, sdk.PermissionOptionKindAllowAlways) {
			t.Errorf("%q offers allow_always", ptrText(p.ToolCall.Title))
		}
	}
}
