package nvimhost

import (
	"fmt"
	"os"

	"path/filepath"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"strings"
	"testing"
	"time"
)

func TestDiffReviewAppliesAcceptedHunks(t *testing.T) {
	t.Run("float keys", func(t *testing.T) { testDiffReview(t, false) })
	t.Run("file buffer keys", func(t *testing.T) { testDiffReview(t, true) })
}

func testDiffReview(t *testing.T, fromBuffer bool) {
	e := newEditor(t, editorOpts{})
	var oldLines []string
	for i := 1; i <= 20; i++ {
		oldLines = append(oldLines, fmt.Sprintf("line %d", i))
	}
	old := strings.Join(oldLines, "\n") + "\n"
	newLines := append([]string(nil), oldLines...)
	newLines[1] = "line 2 changed"
	newLines[17] = "line 18 changed"
	proposed := strings.Join(newLines, "\n") + "\n"
	want := strings.Replace(old, "line 2\n", "line 2 changed\n", 1)
	writeFile(t, filepath.Join(e.dir, "f.txt"), old)

	e.llm.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("call_r", "read", map[string]string{"path": "f.txt"})}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("call_w", "write", map[string]string{"path": "f.txt", "content": proposed})}},
		fakellm.Reply{Content: "edited"},
	)
	e.start()
	e.cmd("Coder change two lines")
	e.waitApproval()
	var rv struct {
		Hunks int    `msgpack:"hunks"`
		Buf   string `msgpack:"buf"`
		Marks int    `msgpack:"marks"`
	}
	e.lua(`local c = require('coder.approval').current()
		local ns = vim.api.nvim_create_namespace('coder_review')
		local b = vim.fn.bufnr(...)
		return {hunks = #c.hunks, buf = vim.fn.bufname(b), marks = #vim.api.nvim_buf_get_extmarks(b, ns, 0, -1, {})}`, &rv, filepath.Join(e.dir, "f.txt"))
	if rv.Hunks != 2 || rv.Marks == 0 {
		t.Fatalf("review: %d hunks, %d marks in the file buffer; want 2 hunks and marks", rv.Hunks, rv.Marks)
	}
	if fromBuffer {
		// gr in the file's buffer rejects the hunk under the cursor.
		e.lua(`local w = vim.fn.win_findbuf(vim.fn.bufnr(...))[1]
			vim.api.nvim_set_current_win(w)
			vim.api.nvim_win_set_cursor(w, {18, 0})`, nil, filepath.Join(e.dir, "f.txt"))
		e.input("gr")
	} else {
		e.input("]h")
		e.input("gr")
	}
	e.waitFor("hunk 2 rejected", 5*time.Second, func() bool {
		return e.boolLua(`local c = require('coder.approval').current(); return c ~= nil and c.idx == 2 and c.hunks[2].accepted == false and c.hunks[1].accepted == true`)
	})
	if fromBuffer {
		e.lua(`assert(require('coder.approval').focus())`, nil)
	}
	e.input("y")
	e.waitIdle(10 * time.Second)
	got, err := os.ReadFile(filepath.Join(e.dir, "f.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatalf("file after review:\n%s\nwant:\n%s", got, want)
	}
	res, _ := toolResult(e.llm.Requests(), "call_w")
	if !strings.Contains(res, "line 2 changed") || strings.Contains(res, "+line 18 changed") {
		t.Errorf("the model should be told what was applied: %q", res)
	}
	// The loaded buffer of the file was reloaded and the marks are gone.
	var lines []string
	e.lua(`return vim.api.nvim_buf_get_lines(vim.fn.bufnr(...), 0, -1, false)`, &lines, filepath.Join(e.dir, "f.txt"))
	if strings.Join(lines, "\n")+"\n" != want {
		t.Errorf("buffer not reloaded: %q", lines)
	}
	var marks int
	e.lua(`return #vim.api.nvim_buf_get_extmarks(vim.fn.bufnr(...), vim.api.nvim_create_namespace('coder_review'), 0, -1, {})`, &marks, filepath.Join(e.dir, "f.txt"))
	if marks != 0 {
		t.Errorf("%d review marks left in the buffer", marks)
	}
}

func TestUnsavedBufferIsNeverOverwritten(t *testing.T) {
	e := newEditor(t, editorOpts{config: `{"auto_approve_ask": true}`})
	path := filepath.Join(e.dir, "notes.txt")
	writeFile(t, path, "original\n")
	e.cmd("edit " + path)
	e.lua(`vim.api.nvim_buf_set_lines(0, 0, -1, false, {'my unsaved edit'})`, nil)
	e.llm.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("call_r", "read", map[string]string{"path": "notes.txt"})}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("call_w", "write", map[string]string{"path": "notes.txt", "content": "agent text\n"})}},
		fakellm.Reply{Content: "tried"},
	)
	e.start()
	e.cmd("Coder overwrite notes")
	e.waitFor("the turn", 10*time.Second, func() bool { return strings.Contains(e.transcript(), "tried") })
	e.waitIdle(5 * time.Second)
	got, _ := os.ReadFile(path)
	if string(got) != "original\n" {
		t.Fatalf("file on disk = %q, want it untouched", got)
	}
	var lines []string
	e.lua(`return vim.api.nvim_buf_get_lines(vim.fn.bufnr(...), 0, -1, false)`, &lines, path)
	if len(lines) != 1 || lines[0] != "my unsaved edit" {
		t.Fatalf("buffer = %q, want the user's edit", lines)
	}
	res, _ := toolResult(e.llm.Requests(), "call_w")
	if !strings.Contains(res, "unsaved edits") {
		t.Fatalf("the model was not told why: %q", res)
	}
}

func TestAgentWriteReloadsUnmodifiedBuffer(t *testing.T) {
	e := newEditor(t, editorOpts{config: `{"auto_approve_ask": true}`})
	path := filepath.Join(e.dir, "notes.txt")
	writeFile(t, path, "original\n")
	e.cmd("edit " + path)
	e.llm.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("call_r", "read", map[string]string{"path": "notes.txt"})}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("call_w", "write", map[string]string{"path": "notes.txt", "content": "agent text\n"})}},
		fakellm.Reply{Content: "written"},
	)
	e.start()
	e.cmd("Coder rewrite notes")
	e.waitFor("the reload", 10*time.Second, func() bool {
		var lines []string
		e.lua(`return vim.api.nvim_buf_get_lines(vim.fn.bufnr(...), 0, -1, false)`, &lines, path)
		return len(lines) == 1 && lines[0] == "agent text"
	})
	if e.boolLua(`return vim.bo[vim.fn.bufnr(...)].modified`) {
		t.Fatal("the reloaded buffer is marked modified")
	}
}

func TestDiffReviewDeniedNewFileLeavesNoBuffer(t *testing.T) {
	e := newEditor(t, editorOpts{})
	keep := filepath.Join(e.dir, "keep.txt")
	writeFile(t, keep, "mine\n")
	e.cmd("edit " + keep)
	e.llm.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("call_w", "write", map[string]string{"path": "new.txt", "content": "a\nb\n"})}},
		fakellm.Reply{Content: "ok, not writing"},
	)
	e.start()
	e.cmd("Coder make new.txt")
	e.waitApproval()
	var reviewing bool
	e.lua(`local b = vim.fn.bufnr(...); return b > 0 and #vim.fn.win_findbuf(b) > 0`, &reviewing, filepath.Join(e.dir, "new.txt"))
	if !reviewing {
		t.Fatal("the new file is not shown for review")
	}
	e.input("n")
	e.waitIdle(10 * time.Second)
	if _, err := os.Stat(filepath.Join(e.dir, "new.txt")); err == nil {
		t.Fatal("new.txt was written although denied")
	}
	var gone bool
	e.lua(`return vim.fn.bufnr(...) == -1`, &gone, filepath.Join(e.dir, "new.txt"))
	if !gone {
		t.Error("the review buffer of the denied new file is still there")
	}
	var visible bool
	e.lua(`local b = vim.fn.bufnr(...); return b > 0 and #vim.fn.win_findbuf(b) > 0`, &visible, keep)
	if !visible {
		t.Error("the window did not get its buffer back after the denied review")
	}
}

// A write to a file with unsaved edits is refused before the user is asked
// to approve it, not after.
func TestUnsavedBufferCheckedBeforeApproval(t *testing.T) {
	e := newEditor(t, editorOpts{})
	path := filepath.Join(e.dir, "notes.txt")
	writeFile(t, path, "original\n")
	e.cmd("edit " + path)
	e.lua(`vim.api.nvim_buf_set_lines(0, 0, -1, false, {'my unsaved edit'})`, nil)
	e.llm.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("call_r", "read", map[string]string{"path": "notes.txt"})}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("call_w", "write", map[string]string{"path": "notes.txt", "content": "agent text\n"})}},
		fakellm.Reply{Content: "tried"},
	)
	e.start()
	e.cmd("Coder overwrite notes")
	e.waitFor("the turn", 10*time.Second, func() bool { return strings.Contains(e.transcript(), "tried") || e.approvalOpen() })
	if e.approvalOpen() {
		t.Fatal("an approval was asked for a write the editor refuses")
	}
	e.waitIdle(5 * time.Second)
	res, _ := toolResult(e.llm.Requests(), "call_w")
	if !strings.Contains(res, "unsaved edits") {
		t.Fatalf("the model was not told why: %q", res)
	}
	if got, _ := os.ReadFile(path); string(got) != "original\n" {
		t.Fatalf("file on disk = %q", got)
	}
}
