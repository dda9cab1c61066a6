package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/policy"
)

// TestBangBypassesPolicy (seed 001): the user's own `!` command runs
// without policy or approval, even one a rule denies the model, and is
// shown as run; the model is not asked.
func TestBangBypassesPolicy(t *testing.T) {
	f := newFixture(t, func(c *config.Config, _ *Options) {
		c.Permissions.Rules = []policy.Rule{{Tool: "bash", Pattern: "touch *", Decision: policy.Deny}}
	})
	f.run(t, "!touch bang.txt")
	if _, err := os.Stat(filepath.Join(f.sess.Root(), "bang.txt")); err != nil {
		t.Fatalf("the user's ! command did not run: %v", err)
	}
	if len(f.rec.find(event.ApprovalRequested)) != 0 || len(f.srv.Requests()) != 0 {
		t.Error("the ! command was asked about or sent to the model")
	}
	ends := f.rec.find(event.ToolCallEnd)
	if len(ends) != 1 || ends[0].Tool.Status != event.ToolCompleted || !strings.Contains(ends[0].Tool.Title, "touch bang.txt") {
		t.Errorf("the ! command's call: %+v", ends)
	}
}

// TestRequireTodoForComplexSwitch (seed 001 §7): with the switch off, a
// complex request starts no todo list and adds no note.
func TestRequireTodoForComplexSwitch(t *testing.T) {
	const complexInput = "Refactor the parser: 1. split the lexer out 2. add error recovery 3. write tests for both and update the docs"
	for _, on := range []bool{true, false} {
		f := newFixture(t, func(c *config.Config, _ *Options) { c.Workflow.RequireTodoForComplex = on })
		f.srv.Enqueue(fakellm.Reply{Content: "ok"})
		f.run(t, complexInput)
		msgs := f.srv.Requests()[0].Messages
		noted := strings.Contains(msgs[len(msgs)-1].Content, "complex, multi-step task")
		started := len(f.sess.Todos()) > 0
		if noted != on || started != on {
			t.Errorf("require_todo_for_complex %v: note %v, todo list %v", on, noted, started)
		}
	}
}
