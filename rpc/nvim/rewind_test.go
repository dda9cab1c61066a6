package nvimhost

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
)

// TestRewindPicker: :Coder rewind offers the turns through vim.ui.select;
// picking turn 2 takes turn 2's file back, keeps turn 1's, and the
// transcript shows where the rewind happened.
func TestRewindPicker(t *testing.T) {
	e := newEditor(t, editorOpts{config: `{"mode": "auto-edit"}`})
	e.llm.SetScript(func(req fakellm.Request) fakellm.Reply {
		last := req.Messages[len(req.Messages)-1]
		if name, ok := strings.CutPrefix(last.Content, "write "); ok && last.Role == llm.RoleUser {
			return fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("w", "write", map[string]any{"path": name, "content": name + "\n"})}}
		}
		return fakellm.Reply{Content: "done"}
	})
	e.lua(`_G.offered = nil
		vim.ui.select = function(items, opts, on_choice)
			_G.offered = {}
			for _, it in ipairs(items) do table.insert(_G.offered, opts.format_item(it)) end
			on_choice(items[2])
		end`, nil)
	e.start()
	e.run("Coder write one.txt")
	e.run("Coder write two.txt")
	e.run("Coder rewind")
	var offered []string
	e.lua(`return _G.offered`, &offered)
	if len(offered) != 2 || !strings.Contains(offered[0], "write one.txt") || !strings.Contains(offered[1], "write two.txt") {
		t.Errorf("picker offered %q", offered)
	}
	e.waitFor("the rewind in the transcript", 10*time.Second, func() bool {
		return strings.Contains(e.transcript(), "rewound to just before turn 2")
	})
	if _, err := os.Stat(filepath.Join(e.dir, "two.txt")); !os.IsNotExist(err) {
		t.Errorf("two.txt survived the rewind")
	}
	if _, err := os.Stat(filepath.Join(e.dir, "one.txt")); err != nil {
		t.Errorf("one.txt: %v", err)
	}
}

// :checkhealth coder says where the snapshots go (here: the workspace's
// git repository).
func TestHealthSaysCheckpointMode(t *testing.T) {
	e := newEditor(t, editorOpts{})
	e.start()
	var report string
	e.waitFor("the checkpoints line in :checkhealth", 30*time.Second, func() bool {
		e.cmd("checkhealth coder")
		e.lua(`return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')`, &report)
		e.cmd("bwipeout!")
		return strings.Contains(report, "checkpoints: git: snapshots in the workspace's repository")
	})
}
