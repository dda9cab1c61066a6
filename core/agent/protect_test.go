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
