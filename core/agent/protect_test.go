package agent

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
)

// TestSkillWritesAlwaysAsk: in yolo mode a skill write is asked, and an
// "always" answer does not let the next one through unasked.
func TestSkillWritesAlwaysAsk(t *testing.T) {
	f := newFixture(t, func(c *config.Config, _ *Options) { c.Mode = "yolo" })
	f.rec.onAsk = func(a *event.Approval) {
		if err := f.sess.Answer(a.ID, Answer{Decision: AllowAlways}); err != nil {
			t.Error(err)
		}
	}
	f.srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("s1", "write", map[string]any{"path": ".coder/skills/a/SKILL.md", "content": "a\n"})}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("s2", "write", map[string]any{"path": ".coder/skills/a/notes.md", "content": "b\n"})}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("n", "write", map[string]any{"path": "plain.txt", "content": "c\n"})}},
		fakellm.Reply{Content: "done"},
	)
	f.run(t, "write skills")
	asks := f.rec.find(event.ApprovalRequested)
	if len(asks) != 2 {
		t.Fatalf("%d approval requests, want 2 (one per skill write, none for plain.txt)", len(asks))
	}
	for _, p := range []string{".coder/skills/a/SKILL.md", ".coder/skills/a/notes.md", "plain.txt"} {
		if _, err := os.Stat(filepath.Join(f.root, p)); err != nil {
			t.Errorf("%s not written: %v", p, err)
		}
	}
}

// TestShellAgentConfigAsked: in auto-edit mode, "always" for `echo ... >
// notes.txt` does not let `echo ... > .coder/config.json` run unasked.
func TestShellAgentConfigAsked(t *testing.T) {
	f := newFixture(t, func(c *config.Config, _ *Options) { c.Mode = "auto-edit" })
	cfg := filepath.Join(f.root, ".coder", "config.json")
	writeFile(t, cfg, "{}\n")
	var asked []string
	f.rec.onAsk = func(a *event.Approval) {
		asked = append(asked, a.Command)
		d := AllowAlways
		if len(asked) > 1 {
			d = Deny
		}
		if err := f.sess.Answer(a.ID, Answer{Decision: d}); err != nil {
			t.Error(err)
		}
	}
	f.srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("b1", "bash", map[string]any{"command": "echo hi > notes.txt"})}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("b2", "bash", map[string]any{"command": `echo '{"mode":"yolo"}' > .coder/config.json`})}},
		fakellm.Reply{Content: "done"},
	)
	f.run(t, "take notes")
	if len(asked) != 2 {
		t.Errorf("asked %q, want both commands asked", asked)
	}
	if got, _ := os.ReadFile(cfg); string(got) != "{}\n" {
		t.Errorf(".coder/config.json = %q, want it unchanged", got)
	}
}
