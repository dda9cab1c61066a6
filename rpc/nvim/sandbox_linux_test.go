package nvimhost

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/sandbox"
)

// TestApprovalSaysSandbox: the approval float says a command runs in the
// sandbox, and, for the model's request to leave it, that it runs outside
// and what "allow" means there; denying it runs nothing.
func TestApprovalSaysSandbox(t *testing.T) {
	if out, err := exec.Command(hostBinary, sandbox.Subcommand, "--probe").Output(); err != nil || !strings.Contains(string(out), `"filesystem":true`) {
		t.Skipf("no sandbox here: %s %v", out, err)
	}
	e := newEditor(t, editorOpts{})
	outside := filepath.Join(t.TempDir(), "escape")
	e.llm.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("in", "bash", map[string]any{"command": "echo hi > out.txt"})}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("out", "bash", map[string]any{"command": "touch " + outside, "outside_sandbox": true})}},
		fakellm.Reply{Content: "done"},
	)
	e.start()
	e.cmd("Coder go")
	float := func() string {
		var text string
		e.lua(`local c = require('coder.approval').current()
			if not c then return '' end
			return table.concat(vim.api.nvim_buf_get_lines(c.buf, 0, -1, false), '\n')`, &text)
		return text
	}
	e.waitApproval()
	if f := float(); !strings.Contains(f, "runs in the sandbox") {
		t.Errorf("the float of a confined command:\n%s", f)
	}
	e.lua(`require('coder.approval').answer('deny') return true`, nil)
	e.waitFor("the escalation's float", 10*time.Second, func() bool { return strings.Contains(float(), "OUTSIDE the sandbox") })
	if f := float(); !strings.Contains(f, "run outside the sandbox") {
		t.Errorf("the escalation's float does not name its allow:\n%s", f)
	}
	e.lua(`require('coder.approval').answer('deny') return true`, nil)
	e.waitIdle(10 * time.Second)
	if _, err := os.Stat(outside); err == nil {
		t.Error("the denied command ran")
	}
}

// TestOutsideAlwaysKeysTheScript: "always" for `python3 a.py` outside the
// sandbox does not cover `python3 -c …` outside: the float asks again,
// and denying it runs nothing.
func TestOutsideAlwaysKeysTheScript(t *testing.T) {
	if out, err := exec.Command(hostBinary, sandbox.Subcommand, "--probe").Output(); err != nil || !strings.Contains(string(out), `"filesystem":true`) {
		t.Skipf("no sandbox here: %s %v", out, err)
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3")
	}
	e := newEditor(t, editorOpts{})
	marks := t.TempDir()
	script := filepath.Join(marks, "a-ran")
	oneLiner := filepath.Join(marks, "c-ran")
	writeFile(t, filepath.Join(e.dir, "a.py"), "open("+`"`+script+`"`+", 'w').close()\n")
	e.llm.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("a", "bash", map[string]any{"command": "python3 a.py", "outside_sandbox": true})}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("c", "bash", map[string]any{"command": "python3 -c \"open('" + oneLiner + "', 'w').close()\"", "outside_sandbox": true})}},
		fakellm.Reply{Content: "done"},
	)
	e.start()
	e.cmd("Coder go")
	e.waitApproval()
	e.lua(`require('coder.approval').answer('always') return true`, nil)
	e.waitFor("the script to run", 10*time.Second, func() bool { _, err := os.Stat(script); return err == nil })
	e.waitFor("the one-liner's float", 10*time.Second, e.approvalOpen)
	e.lua(`require('coder.approval').answer('deny') return true`, nil)
	e.waitIdle(10 * time.Second)
	if _, err := os.Stat(oneLiner); err == nil {
		t.Error("python3 -c ran outside the sandbox unasked after \"always\" for python3 a.py")
	}
}
