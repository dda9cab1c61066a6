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

// TestSlashCommandsInEditor runs the built-in commands from the editor:
// /mode, /todos, /diff (a folded diff tab), /undo (the buffer reloads) and
// a bare /resume (a picker over saved sessions).
func TestSlashCommandsInEditor(t *testing.T) {
	e := newEditor(t, editorOpts{config: `{"mode": "auto-edit"}`})
	e.start()
	path := filepath.Join(e.dir, "notes.txt")
	writeFile(t, path, "one\n")
	e.cmd("edit " + path)

	e.cmd("Coder /plan")
	e.waitFor("plan mode in the status", 10*time.Second, func() bool {
		var mode string
		e.lua(`local s = require('coder').state(); return s and s.mode or ''`, &mode)
		return mode == "plan"
	})
	e.waitIdle(5 * time.Second)
	e.run("Coder /auto-edit")

	e.llm.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("r", "read", map[string]any{"path": "notes.txt"})}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("e", "edit", map[string]any{"path": "notes.txt", "old_string": "one", "new_string": "two"})}},
		fakellm.Reply{Content: "edited"},
	)
	e.cmd("Coder change notes")
	e.waitFor("the edit", 10*time.Second, func() bool { return strings.Contains(e.transcript(), "edited") })
	e.waitIdle(5 * time.Second)
	e.waitFor("the buffer to reload", 5*time.Second, func() bool {
		return e.boolLua(`return vim.fn.getbufline(vim.fn.bufnr(...), 1)[1] == 'two'`, path)
	})

	e.cmd("Coder /todos")
	e.waitFor("/todos", 5*time.Second, func() bool { return strings.Contains(e.transcript(), "no todos") })
	e.waitIdle(5 * time.Second)

	e.cmd("Coder /diff")
	e.waitFor("the diff tab", 10*time.Second, func() bool {
		return e.boolLua(`return vim.bo.filetype == 'diff' and vim.api.nvim_buf_get_name(0):match('coder://diff') ~= nil`)
	})
	if !e.boolLua(`return vim.wo.foldmethod == 'expr' and vim.fn.foldclosed(1) == 1`) {
		t.Error("the diff is not folded per file")
	}
	if !strings.Contains(e.transcript(), "notes.txt") {
		t.Errorf("/diff summary missing:\n%s", e.transcript())
	}
	e.cmd("tabclose")
	e.waitIdle(5 * time.Second)

	e.cmd("Coder /undo")
	e.waitFor("the undo", 10*time.Second, func() bool { return strings.Contains(e.transcript(), "undid the turn") })
	e.waitIdle(5 * time.Second)
	if data, _ := os.ReadFile(path); string(data) != "one\n" {
		t.Errorf("notes.txt after /undo = %q", data)
	}
	e.waitFor("the buffer to reload after /undo", 5*time.Second, func() bool {
		return e.boolLua(`return vim.fn.getbufline(vim.fn.bufnr(...), 1)[1] == 'one'`, path)
	})

	// A bare /resume offers the other saved sessions; picking one resumes
	// it and shows its conversation.
	var first string
	e.lua(`return require('coder').state().session_id`, &first)
	e.run("Coder /new")
	// A run whose only request failed is no session to go back to.
	e.llm.Enqueue(fakellm.Reply{Status: 400})
	e.run("Coder this request fails")
	if !strings.Contains(e.transcript(), "scripted HTTP 400") {
		t.Fatalf("the request did not fail:\n%s", e.transcript())
	}
	e.run("Coder /new")
	var current string
	e.lua(`return require('coder').state().session_id`, &current)
	e.lua(`
		_G.picked = nil
		vim.ui.select = function(items, opts, on_choice)
			_G.picked = items
			on_choice(items[1])
		end
	`, nil)
	before := len(e.transcript())
	e.cmd("Coder /resume")
	e.waitFor("the resumed session", 10*time.Second, func() bool { return strings.Contains(e.transcript(), "resumed session "+first) })
	var items []struct {
		ID    string `msgpack:"id"`
		Label string `msgpack:"label"`
	}
	e.lua(`return _G.picked`, &items)
	if len(items) != 1 || items[0].ID != first {
		t.Fatalf("picker items %+v, want only the session %s (not the current %s nor the failed run)", items, first, current)
	}
	if !strings.Contains(items[0].Label, "change notes") {
		t.Errorf("picker item = %q, want the first prompt", items[0].Label)
	}
	tr := e.transcript()[before:]
	// The picker and the notice count messages the same way.
	_, count, _ := strings.Cut(items[0].Label, "(")
	if !strings.Contains(tr, "resumed session "+first+" ("+count) {
		t.Errorf("picker says %q; transcript:\n%s", items[0].Label, tr)
	}
	if !strings.Contains(tr, "## You\nchange notes") || !strings.Contains(tr, "edited") {
		t.Errorf("the resumed conversation is not in the transcript:\n%s", tr)
	}
}

// A file the agent created and /undo removed leaves no buffer behind that
// a later :w could write back; the window stays.
func TestUndoDropsBufferOfRemovedFile(t *testing.T) {
	e := newEditor(t, editorOpts{config: `{"mode": "auto-edit"}`})
	e.start()
	path := filepath.Join(e.dir, "made.txt")
	e.llm.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("w", "write", map[string]any{"path": "made.txt", "content": "made\n"})}},
		fakellm.Reply{Content: "created"},
	)
	e.cmd("Coder make a file")
	e.waitFor("the answer", 10*time.Second, func() bool { return strings.Contains(e.transcript(), "created") })
	e.waitIdle(5 * time.Second)
	e.cmd("wincmd p")
	e.cmd("edit " + path)
	var wins int
	e.lua(`return #vim.api.nvim_list_wins()`, &wins)

	e.cmd("Coder /undo")
	e.waitFor("the undo", 10*time.Second, func() bool { return strings.Contains(e.transcript(), "undid the turn") })
	e.waitIdle(5 * time.Second)
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("made.txt still exists: %v", err)
	}
	e.waitFor("the buffer to go", 5*time.Second, func() bool {
		return e.boolLua(`return vim.fn.bufloaded(...) == 0`, path)
	})
	var after int
	e.lua(`return #vim.api.nvim_list_wins()`, &after)
	if after != wins {
		t.Errorf("windows: %d before /undo, %d after", wins, after)
	}
}

// /diff sent from the input in Insert mode opens its read-only tab in
// Normal mode.
func TestDiffFromInsertModeStopsInsert(t *testing.T) {
	e := newEditor(t, editorOpts{})
	writeFile(t, filepath.Join(e.dir, "a.txt"), "hi\n")
	e.start()
	e.lua(`vim.api.nvim_set_current_win(require('coder.ui').state.iwin)`, nil)
	e.input("i/diff<C-s>")
	e.waitFor("the diff tab", 10*time.Second, func() bool {
		return e.boolLua(`return vim.api.nvim_buf_get_name(0):match('coder://diff') ~= nil`)
	})
	e.waitFor("Normal mode in the diff tab", 5*time.Second, func() bool {
		return e.boolLua(`return vim.api.nvim_get_mode().mode == 'n'`)
	})
}
