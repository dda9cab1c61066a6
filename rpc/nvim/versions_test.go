package nvimhost

import (
	"strings"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
)

// TestCleanOnThisNeovim: a turn with an approval, a review and the health
// check leave no deprecation warning or error in :messages, and
// :checkhealth coder reports no warning or error, on whichever Neovim make
// test runs (0.7.2, 0.10, 0.12).
func TestCleanOnThisNeovim(t *testing.T) {
	e := newEditor(t, editorOpts{})
	// The notify override of the harness would hide messages: restore it.
	e.lua(`vim.notify = function(msg, level) vim.api.nvim_echo({{tostring(msg)}}, true, {}) end`, nil)
	e.llm.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("w", "write", map[string]any{"path": "a.txt", "content": "a\n"})}},
		fakellm.Reply{Content: "Done. ```go\nfunc main() {}\n```"},
	)
	e.start()
	e.cmd("Coder write a")
	e.waitApproval()
	e.input("y")
	e.waitIdle(10 * time.Second)
	e.cmd("checkhealth coder")
	var report string
	e.lua(`return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')`, &report)
	for _, bad := range []string{"ERROR", "WARNING"} {
		if strings.Contains(report, bad) {
			t.Errorf("%s: :checkhealth coder reports %s:\n%s", nvimVersion(), bad, report)
		}
	}
	t.Logf("%s\n%s", nvimVersion(), report)
	var msgs string
	e.lua(`return vim.api.nvim_exec('messages', true)`, &msgs)
	for _, bad := range []string{"deprecated", "Error", "E5108", "stack traceback"} {
		if strings.Contains(msgs, bad) {
			t.Errorf("%s: :messages holds %q:\n%s", nvimVersion(), bad, msgs)
		}
	}
}

// TestHealthServerStarting: an MCP server that is simply still starting
// is reported as such, not as a warning.
func TestHealthServerStarting(t *testing.T) {
	e := newEditor(t, editorOpts{config: `{"mcpServers": {"slow": {"command": "sh", "args": ["slow.sh"]}}}`})
	writeFile(t, e.dir+"/slow.sh", "#!/bin/sh\nexec sleep 60\n")
	e.retrust()
	e.start()
	e.cmd("checkhealth coder")
	var report string
	e.lua(`return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')`, &report)
	if !strings.Contains(report, "slow (stdio): starting") || strings.Contains(report, "WARNING") {
		t.Errorf("health report:\n%s", report)
	}
}

// TestKeyHelp: g? in the input and the transcript lists the keys that work
// there; ? is left to Vim's backward search.
func TestKeyHelp(t *testing.T) {
	e := newEditor(t, editorOpts{})
	e.start()
	for _, where := range []string{"input", "transcript"} {
		e.lua(`local ui = require('coder.ui')
			local buf = ... == 'input' and ui.input_buf() or ui.transcript_buf()
			vim.api.nvim_set_current_win(vim.fn.bufwinid(buf))`, nil, where)
		if e.boolLua(`return vim.fn.maparg('?', 'n', false, true).buffer == 1`) {
			t.Errorf("%s: ? is mapped, which hides backward search", where)
		}
		e.input("g?")
		e.waitFor("the key list", 5*time.Second, func() bool { return e.boolLua(`return vim.bo.filetype == 'coder-keys'`) })
		var text string
		e.lua(`return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')`, &text)
		want := []string{"interrupt the turn", "close", "show the keys that work here"}
		if where == "input" {
			want = append(want, "<CR>", "send", "<C-S>")
		} else {
			want = append(want, "gO", "open the folded text whole")
		}
		for _, w := range want {
			if !strings.Contains(strings.ToUpper(text), strings.ToUpper(w)) {
				t.Errorf("%s: g? lists:\n%s\nwant %q", where, text, w)
			}
		}
		e.input("q")
		e.waitFor("the key list to close", 5*time.Second, func() bool { return e.boolLua(`return vim.bo.filetype ~= 'coder-keys'`) })
	}
}

// TestSelectionIntoInput: :'<,'>Coder without text leaves a blank first
// line for the question, the cursor on it in Insert mode, and the context
// folded to its "path:13-20" line.
func TestSelectionIntoInput(t *testing.T) {
	e := newEditor(t, editorOpts{})
	path := e.dir + "/main.go"
	writeFile(t, path, "package main\n\nfunc main() {\n\tprintln(1)\n\tprintln(2)\n\tprintln(3)\n\tprintln(4)\n}\n")
	e.cmd("edit " + path)
	e.cmd("3,8Coder")
	e.waitFor("the input with the selection", 10*time.Second, func() bool {
		return e.boolLua(`return vim.bo.filetype == 'coder-input' and vim.api.nvim_buf_line_count(0) > 3`)
	})
	var lines []string
	e.lua(`return vim.api.nvim_buf_get_lines(0, 0, -1, false)`, &lines)
	if len(lines) < 3 || lines[0] != "" || lines[1] != "main.go:3-8" {
		t.Fatalf("input = %q", lines)
	}
	var row int
	var mode string
	e.lua(`return vim.api.nvim_win_get_cursor(0)[1]`, &row)
	e.lua(`return vim.api.nvim_get_mode().mode`, &mode)
	if row != 1 || mode != "i" {
		t.Errorf("cursor on line %d in mode %q, want line 1 in Insert mode", row, mode)
	}
	if !e.boolLua(`return vim.fn.foldclosed(2) == 2 and vim.fn.foldclosedend(2) == vim.fn.line('$')`) {
		t.Errorf("the context is not folded to its header line")
	}
}

// TestModelPicker: /model without a name offers the endpoint's models in
// vim.ui.select; the choice switches the model.
func TestModelPicker(t *testing.T) {
	e := newEditor(t, editorOpts{})
	e.llm.SetModels([]string{"model-a", "model-b"})
	e.lua(`_G.offered = nil
		vim.ui.select = function(items, opts, on_choice)
			_G.offered = items
			on_choice(items[2])
		end`, nil)
	e.start()
	e.run("Coder /model")
	e.waitFor("the model to switch to the choice", 10*time.Second, func() bool {
		var m string
		_ = e.v.ExecLua(`local s = require('coder').state(); return s and s.model or ''`, &m)
		return m == "model-b"
	})
	var offered []string
	e.lua(`return _G.offered`, &offered)
	if strings.Join(offered, " ") != "model-a model-b" {
		t.Errorf("offered %v", offered)
	}
}

// TestInputQueuedWhileBusy: input sent while a turn runs is queued (said in
// the transcript) and sent when the turn ends; <C-c> drops the queue.
func TestInputQueuedWhileBusy(t *testing.T) {
	e := newEditor(t, editorOpts{})
	release := make(chan struct{})
	e.llm.SetScript(func(req fakellm.Request) fakellm.Reply {
		last := req.Messages[len(req.Messages)-1].Content
		if strings.Contains(last, "first") {
			<-release
		}
		return fakellm.Reply{Content: "answer to " + strings.Fields(last)[0]}
	})
	e.start()
	e.cmd("Coder first")
	e.waitFor("the first turn to run", 10*time.Second, func() bool { return !e.idle() })
	e.cmd("Coder second")
	e.waitFor("the queued note", 10*time.Second, func() bool { return strings.Contains(e.transcript(), "⧗ queued (1): second") })
	close(release)
	e.waitFor("the queued input to be answered", 10*time.Second, func() bool {
		return strings.Contains(e.transcript(), "answer to second")
	})

	// Queued, then interrupted: the queue is dropped.
	hold := make(chan struct{})
	defer close(hold)
	e.llm.SetScript(func(req fakellm.Request) fakellm.Reply {
		if strings.Contains(req.Messages[len(req.Messages)-1].Content, "third") {
			select {
			case <-hold:
			case <-time.After(20 * time.Second):
			}
		}
		return fakellm.Reply{Content: "ok"}
	})
	n := len(e.llm.Requests())
	e.cmd("Coder third")
	e.waitFor("the third turn to run", 10*time.Second, func() bool { return !e.idle() && len(e.llm.Requests()) > n })
	e.cmd("Coder fourth")
	e.waitFor("the queued note", 10*time.Second, func() bool { return strings.Contains(e.transcript(), "⧗ queued (1): fourth") })
	e.cmd("Coder stop")
	e.waitFor("the queue dropped", 10*time.Second, func() bool { return strings.Contains(e.transcript(), "1 queued input(s) dropped") })
	e.waitIdle(10 * time.Second)
	for _, r := range e.llm.Requests() {
		for _, m := range r.Messages {
			if strings.Contains(m.Content, "fourth") {
				t.Fatal("a dropped input was sent")
			}
		}
	}
}

// TestQueuedNoteAfterStreamedAnswer: input queued while an answer streams
// is counted in the status line at once, and its note goes under the
// answer once it has streamed: the answer stays one contiguous text, not
// split mid-word where the note arrived (issue 39, newcomer run 1).
func TestQueuedNoteAfterStreamedAnswer(t *testing.T) {
	e := newEditor(t, editorOpts{})
	_, full := numbered(300)
	// 5-byte chunks cut the words; ~420 chunks 10 ms apart: seconds of
	// streaming, far longer than queueing takes.
	e.llm.SetScript(func(req fakellm.Request) fakellm.Reply {
		if strings.Contains(req.Messages[len(req.Messages)-1].Content, "second") {
			return fakellm.Reply{Content: "answer to second"}
		}
		return fakellm.Reply{Content: full, Chunk: 5, Interval: 10 * time.Millisecond}
	})
	e.start()
	e.cmd("Coder first")
	e.waitFor("streaming to start", 10*time.Second, func() bool { return strings.Contains(e.transcript(), "t00003") })
	e.cmd("Coder second")
	e.waitFor("the status to count the queued input", 10*time.Second, func() bool { return strings.Contains(e.statusLine(), "⧗ 1 queued") })
	if strings.Contains(e.transcript(), "t00299") {
		t.Fatal("the answer had streamed whole before the input was queued: nothing tested")
	}
	e.waitFor("the queued input to be answered", 20*time.Second, func() bool {
		return strings.Contains(e.transcript(), "answer to second")
	})
	e.waitIdle(10 * time.Second)
	tr := e.transcript()
	if strings.Count(tr, strings.TrimRight(full, "\n")) != 1 {
		t.Logf("transcript:\n%s\nnotes: %s", tr, e.notes())
	}
	assertExactlyOnce(t, tr, strings.TrimRight(full, "\n"), 300)
	note := strings.Index(tr, "⧗ queued (1): second")
	if note < 0 || note < strings.Index(tr, "t00299") {
		t.Errorf("the queued note is missing or not under the answer:\n%s", tr)
	}
	if strings.Contains(e.statusLine(), "queued") {
		t.Errorf("the status still counts a queued input: %q", e.statusLine())
	}
}

// TestTranscriptMarkdown: answers are highlighted as Markdown, code blocks
// in their language: tree-sitter where Neovim has the parser (0.10, 0.12
// from Debian), the syntax file on 0.7.2.
func TestTranscriptMarkdown(t *testing.T) {
	e := newEditor(t, editorOpts{})
	e.start()
	var how string
	e.lua(`local buf = require('coder.ui').transcript_buf()
		if vim.fn.has('nvim-0.9') == 1 and vim.treesitter.highlighter.active[buf] then return 'treesitter' end
		return vim.bo[buf].syntax`, &how)
	want := "markdown"
	if e.boolLua(`return vim.fn.has('nvim-0.9') == 1 and pcall(vim.treesitter.language.add or vim.treesitter.require_language, 'markdown')`) {
		want = "treesitter"
	}
	if how != want {
		t.Errorf("%s: the transcript is highlighted by %q, want %q", nvimVersion(), how, want)
	}
}
