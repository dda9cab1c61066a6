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

// TestReviewRejectHunk: a turn changes two separate lines of an open
// file; :Coder review lists two hunks in the quickfix list; `gr` on the
// first, with a reason, reverts it in the file and its buffer and keeps
// the second, and the next request tells the model the reason.
func TestReviewRejectHunk(t *testing.T) {
	e := newEditor(t, editorOpts{config: `{"mode": "auto-edit"}`})
	const ten = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n"
	changed := strings.Replace(strings.Replace(ten, "2\n", "two\n", 1), "9\n", "nine\n", 1)
	writeFile(t, filepath.Join(e.dir, "n.txt"), ten)
	e.llm.SetScript(func(req fakellm.Request) fakellm.Reply {
		switch last := req.Messages[len(req.Messages)-1]; {
		case last.Role == llm.RoleUser && strings.HasPrefix(last.Content, "change"):
			return fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("r", "read", map[string]any{"path": "n.txt"})}}
		case last.Role == llm.RoleTool && last.ToolCallID == "r":
			return fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("w", "write", map[string]any{"path": "n.txt", "content": changed})}}
		}
		return fakellm.Reply{Content: "done"}
	})
	e.lua(`vim.ui.input = function(opts, on_confirm) on_confirm('digits please') end`, nil)
	e.start()
	e.cmd("edit " + filepath.Join(e.dir, "n.txt"))
	e.run("Coder change n.txt")
	e.cmd("Coder review")
	var items []string
	e.lua(`local out = {}
		for _, it in ipairs(vim.fn.getqflist()) do table.insert(out, it.lnum .. ' ' .. it.text) end
		return out`, &items)
	if len(items) != 2 || !strings.HasPrefix(items[0], "2 [to review]") || !strings.HasPrefix(items[1], "9 [to review]") {
		t.Fatalf("quickfix list %q", items)
	}
	var diff string
	e.lua(`for _, w in ipairs(vim.api.nvim_list_wins()) do
			local b = vim.api.nvim_win_get_buf(w)
			if vim.bo[b].filetype == 'diff' then return table.concat(vim.api.nvim_buf_get_lines(b, 0, -1, false), '\n') end
		end
		return ''`, &diff)
	if !strings.Contains(diff, "-2") || !strings.Contains(diff, "+two") {
		t.Errorf("diff view %q", diff)
	}
	e.lua(`vim.cmd('copen'); vim.api.nvim_win_set_cursor(0, {1, 0}); vim.api.nvim_feedkeys('gr', 'mx', false)`, nil)
	want := strings.Replace(ten, "9\n", "nine\n", 1)
	e.waitFor("the first hunk reverted on disk", 10*time.Second, func() bool {
		data, _ := os.ReadFile(filepath.Join(e.dir, "n.txt"))
		return string(data) == want
	})
	e.waitFor("the buffer reloaded", 10*time.Second, func() bool {
		return e.boolLua(`local path, want = ...
			local b = vim.fn.bufnr(path)
			return table.concat(vim.api.nvim_buf_get_lines(b, 0, -1, false), '\n') .. '\n' == want`, filepath.Join(e.dir, "n.txt"), want)
	})
	e.lua(`local out = {}
		for _, it in ipairs(vim.fn.getqflist()) do table.insert(out, it.text) end
		return out`, &items)
	if len(items) != 2 || !strings.HasPrefix(items[0], "[rejected: digits please]") {
		t.Errorf("quickfix list after the rejection %q", items)
	}
	e.llm.ForgetRequests()
	e.run("Coder and now?")
	reqs := e.llm.Requests()
	if len(reqs) == 0 {
		t.Fatal("no request")
	}
	msgs := reqs[0].Messages
	if last := msgs[len(msgs)-1].Content; !strings.Contains(last, "digits please") || !strings.Contains(last, "n.txt at line 2") {
		t.Errorf("the model was not told: %q", last)
	}
}

// TestReviewKeyOnTurnSummary: a turn that changed files ends with a
// summary line naming its number and files; `gR` in the transcript, with
// the cursor in the first turn (above its summary), reviews that turn,
// not the last one; a turn that changed nothing has no summary.
func TestReviewKeyOnTurnSummary(t *testing.T) {
	e := newEditor(t, editorOpts{config: `{"mode": "auto-edit"}`})
	e.llm.SetScript(func(req fakellm.Request) fakellm.Reply {
		last := req.Messages[len(req.Messages)-1]
		if last.Role == llm.RoleUser && strings.HasPrefix(last.Content, "write ") {
			name := strings.Fields(last.Content)[1]
			return fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("w"+name, "write", map[string]any{"path": name, "content": "x\n"})}}
		}
		return fakellm.Reply{Content: "done"}
	})
	e.start()
	e.run("Coder write first.txt")
	e.run("Coder write second.txt")
	e.run("Coder just talk")
	tr := e.transcript()
	for _, want := range []string{"✎ turn 1 changed 1 file: first.txt (:Coder review 1)", "✎ turn 2 changed 1 file: second.txt (:Coder review 2)"} {
		if !strings.Contains(tr, want) {
			t.Fatalf("no summary %q in the transcript:\n%s", want, tr)
		}
	}
	if strings.Contains(tr, "✎ turn 3") {
		t.Errorf("a turn that changed nothing has a summary:\n%s", tr)
	}
	e.lua(`local b = require('coder.ui').transcript_buf()
		vim.api.nvim_set_current_win(vim.fn.bufwinid(b))
		for i, l in ipairs(vim.api.nvim_buf_get_lines(b, 0, -1, false)) do
			if l == 'write first.txt' then vim.api.nvim_win_set_cursor(0, {i, 0}) break end
		end
		vim.api.nvim_feedkeys('gR', 'mx', false)`, nil)
	e.waitFor("the review of turn 1", 10*time.Second, func() bool {
		var title string
		e.lua(`return vim.fn.getqflist({ title = 0 }).title`, &title)
		return strings.HasPrefix(title, "coder review: turn 1 ")
	})
}
