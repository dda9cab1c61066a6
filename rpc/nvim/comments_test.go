package nvimhost

import (
	"strings"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
)

// TestReviewCommentsOneRound: comments on hunks of two files in
// :Coder review show as virtual text and in a quickfix list of their
// own, /status lists them, and gS sends both as one user message with
// each file, line range and hunk; the review's own list stays current.
func TestReviewCommentsOneRound(t *testing.T) {
	e := newEditor(t, editorOpts{config: `{"mode": "auto-edit"}`})
	e.llm.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("w1", "write", map[string]string{"path": "a.go", "content": "package a\n\nfunc A() int { return 1 }\n"})}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("w2", "write", map[string]string{"path": "b.go", "content": "package b\n\nfunc B() int {\n\treturn 2\n}\n"})}},
		fakellm.Reply{Content: "both changed"},
	)
	e.lua(`_G.comment_texts = {'rename A to One', 'B needs a doc comment'}
		vim.ui.input = function(opts, cb) cb(table.remove(_G.comment_texts, 1)) end`, nil)
	e.start()
	e.run("Coder change both")
	e.cmd("Coder review 1")
	for i := 1; i <= 2; i++ {
		e.lua(`local i = ...
			vim.cmd('copen'); vim.api.nvim_win_set_cursor(0, {i, 0})
			vim.api.nvim_feedkeys('gc', 'mx', false)`, nil, i)
		want := i
		e.waitFor("the comment kept", 5*time.Second, func() bool {
			var n int
			e.lua(`return require('coder.comments').count()`, &n)
			return n == want
		})
	}
	var title string
	e.lua(`return vim.fn.getqflist({title = 0}).title`, &title)
	if !strings.HasPrefix(title, "coder review: turn 1") {
		t.Errorf("the current quickfix list is %q, want the review's", title)
	}
	var items []string
	e.lua(`vim.cmd('silent cnewer')
		local out = {}
		for _, it in ipairs(vim.fn.getqflist()) do table.insert(out, it.text) end
		vim.cmd('silent colder')
		return out`, &items)
	if strings.Join(items, "|") != "💬 rename A to One|💬 B needs a doc comment" {
		t.Errorf("comments' quickfix list %q", items)
	}
	var marks int
	e.lua(`local ns = vim.api.nvim_create_namespace('coder_review_comments')
		local n = 0
		for _, b in ipairs(vim.api.nvim_list_bufs()) do n = n + #vim.api.nvim_buf_get_extmarks(b, ns, 0, -1, {}) end
		return n`, &marks)
	if marks != 2 {
		t.Errorf("%d comment marks, want 2", marks)
	}
	e.run("Coder /status")
	if tr := e.transcript(); !strings.Contains(tr, "review comments: 2 waiting (a.go:1-3, b.go:1-5)") {
		t.Errorf("/status does not list the comments:\n%s", tr)
	}
	e.llm.ForgetRequests()
	e.llm.Enqueue(fakellm.Reply{Content: "addressed"})
	n := e.turnsDone()
	e.lua(`vim.cmd('copen'); vim.api.nvim_feedkeys('gS', 'mx', false)`, nil)
	e.waitFor("the round", 10*time.Second, func() bool { return e.turnsDone() > n })
	reqs := e.llm.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want one round", len(reqs))
	}
	last := reqs[0].Messages[len(reqs[0].Messages)-1]
	for _, want := range []string{"Review comments on your changes (2)", "a.go:1-3", "+func A() int { return 1 }", "Comment: rename A to One", "b.go:1-5", "Comment: B needs a doc comment"} {
		if last.Role != llm.RoleUser || !strings.Contains(last.Content, want) {
			t.Errorf("the message lacks %q:\n%s", want, last.Content)
		}
	}
	e.waitFor("the marks cleared", 5*time.Second, func() bool {
		var n int
		e.lua(`return require('coder.comments').count()`, &n)
		return n == 0
	})
}

// TestReviewCommentInApprovalFloat: gc in the approval float's diff
// review comments on the current hunk; the comment waits past the
// approval and goes with gS.
func TestReviewCommentInApprovalFloat(t *testing.T) {
	e := newEditor(t, editorOpts{})
	e.llm.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("w1", "write", map[string]string{"path": "new.txt", "content": "one\ntwo\n"})}},
		fakellm.Reply{Content: "written"},
	)
	e.lua(`vim.ui.input = function(opts, cb) cb('say why two') end`, nil)
	e.start()
	e.cmd("Coder write it")
	e.waitApproval()
	e.input("gc")
	e.waitFor("the comment kept", 5*time.Second, func() bool {
		var n int
		e.lua(`return require('coder.comments').count()`, &n)
		return n == 1
	})
	e.input("y")
	e.waitIdle(10 * time.Second)
	e.llm.ForgetRequests()
	e.llm.Enqueue(fakellm.Reply{Content: "explained"})
	n := e.turnsDone()
	e.cmd("Coder review send")
	e.waitFor("the round", 10*time.Second, func() bool { return e.turnsDone() > n })
	reqs := e.llm.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	last := reqs[0].Messages[len(reqs[0].Messages)-1].Content
	for _, want := range []string{"new.txt:1-2", "+two", "Comment: say why two"} {
		if !strings.Contains(last, want) {
			t.Errorf("the message lacks %q:\n%s", want, last)
		}
	}
}
