package nvimhost

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
)

func (e *editor) bufText() string {
	var s string
	e.lua(`return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '|')`, &s)
	return s
}

// `:'<,'>Coder edit` on an unsaved, unnamed buffer: the model gets the
// selection outside the chat, the answer is reviewed in the buffer, and
// after ga only the selected lines are changed, nothing is written; gR
// rejects a second answer whole.
func TestInlineEdit(t *testing.T) {
	e := newEditor(t, editorOpts{})
	e.lua(`vim.cmd('enew')
		vim.api.nvim_buf_set_lines(0, 0, -1, false, {'one', 'two', 'three', 'four', 'five'})
		vim.api.nvim_win_set_cursor(0, {1, 0})`, nil)
	e.llm.Enqueue(fakellm.Reply{Content: "```\nTWO\nTHREE\n```"})
	e.cmd("2,3Coder edit upper-case these")
	e.waitApproval()
	if got := e.bufText(); got != "one|two|three|four|five" {
		t.Fatalf("buffer changed before the review: %s", got)
	}
	req := e.llm.Requests()[0]
	if len(req.Messages) != 2 || len(req.Tools) != 0 || !strings.Contains(req.Messages[1].Content, "Instruction: upper-case these") ||
		!strings.Contains(req.Messages[1].Content, "<selection lines=\"2-3\">\ntwo\nthree\n</selection>") ||
		!strings.Contains(req.Messages[1].Content, "<before>\none\n</before>") {
		t.Errorf("inline request: %+v", req.Messages)
	}
	// The cursor stays in the buffer, on the hunk.
	if !e.boolLua(`return vim.bo.buftype == '' and vim.api.nvim_win_get_cursor(0)[1] == 2`) {
		t.Error("the review took the cursor away from the hunk")
	}
	e.input("ga")
	e.waitFor("the accepted hunk in the buffer", 5*time.Second, func() bool { return e.bufText() == "one|TWO|THREE|four|five" })
	if e.approvalOpen() {
		t.Error("the review is still open after every hunk was decided")
	}
	if !e.boolLua(`return vim.bo.modified and vim.api.nvim_buf_get_name(0) == ''`) {
		t.Error("the buffer should be changed, unsaved and still unnamed")
	}
	if tr := e.transcript(); strings.Contains(tr, "upper-case") {
		t.Errorf("the inline edit went into the chat:\n%s", tr)
	}

	// gR rejects the whole answer.
	e.llm.Enqueue(fakellm.Reply{Content: "uno"})
	e.cmd("1Coder edit translate")
	e.waitApproval()
	e.input("gR")
	e.waitFor("the review to close", 5*time.Second, func() bool { return !e.approvalOpen() })
	if got := e.bufText(); got != "one|TWO|THREE|four|five" {
		t.Errorf("gR changed the buffer: %s", got)
	}
	// Without a range, a small buffer is taken whole.
	e.llm.Enqueue(fakellm.Reply{Content: "one\nTWO\nTHREE\nfour\nfive"})
	e.cmd("Coder edit nothing")
	e.waitFor("the answer", 5*time.Second, func() bool { return !e.boolLua(`return require('coder.inline').pending()`) })
	if reqs := e.llm.Requests(); !strings.Contains(reqs[len(reqs)-1].Messages[1].Content, "<selection lines=\"1-5\">") {
		t.Errorf("without a range: %s", reqs[len(reqs)-1].Messages[1].Content)
	}
	if !strings.Contains(e.notes(), "the model changed nothing") || e.approvalOpen() {
		t.Errorf("an unchanged answer: notes %s", e.notes())
	}
	// :Coder stop ends an edit still asking: no review, no error.
	e.llm.Enqueue(fakellm.Reply{Content: "never shown", Hang: true})
	e.cmd("2Coder edit slowly")
	e.waitFor("the model to be asked", 5*time.Second, func() bool { return len(e.llm.Requests()) == 4 })
	e.cmd("Coder stop")
	if e.boolLua(`return require('coder.inline').pending()`) || e.approvalOpen() {
		t.Error("the inline edit still pending after :Coder stop")
	}
	e.lua(`return vim.fn.rpcrequest(require('coder.host').state.chan, 'coder_status')`, nil) // the host handled the stop
	if n := e.notes(); strings.Contains(n, "rror") || strings.Contains(n, "deprecat") {
		t.Errorf("messages: %s", n)
	}
}

// Once the review opens, "asking the model…" is no longer shown in the
// message area.
func TestInlineEditClearsAskingMessage(t *testing.T) {
	e := newEditor(t, editorOpts{})
	if err := e.v.AttachUI(80, 24, map[string]any{"ext_linegrid": true}); err != nil {
		t.Fatalf("attach ui: %v", err)
	}
	// vim.notify as Neovim's own: the message area.
	e.lua(`vim.notify = function(msg) table.insert(_G.notes, {msg = msg}); vim.api.nvim_echo({{msg}}, true, {}) end
		vim.cmd('enew')
		vim.api.nvim_buf_set_lines(0, 0, -1, false, {'one', 'two'})`, nil)
	e.llm.Enqueue(fakellm.Reply{Content: "ONE"})
	e.cmd("1Coder edit upper-case it")
	e.waitApproval()
	if !strings.Contains(e.notes(), "asking the model") {
		t.Fatalf("the edit did not say it asks the model: %s", e.notes())
	}
	lastRow := func() string {
		var s string
		e.lua(`vim.cmd('redraw')
			local out = {}
			for c = 1, vim.o.columns do table.insert(out, vim.fn.screenstring(vim.o.lines, c)) end
			return table.concat(out)`, &s)
		return s
	}
	if row := lastRow(); strings.Contains(row, "asking the model") {
		t.Errorf("the message area still says %q with the review open", strings.TrimSpace(row))
	}
}

// TestInlineEditStreamsHunks: the review opens with the first hunk while
// the answer still streams (the fake model holds the rest back); a hunk
// decided then keeps its decision when the whole answer's hunks replace
// the preview, and the edit is applied once all of those are decided.
func TestInlineEditStreamsHunks(t *testing.T) {
	e := newEditor(t, editorOpts{})
	e.lua(`vim.cmd('enew')
		vim.api.nvim_buf_set_lines(0, 0, -1, false, {'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'})`, nil)
	gate := make(chan struct{})
	var once sync.Once
	release := func() { once.Do(func() { close(gate) }) }
	t.Cleanup(release)
	e.llm.Enqueue(fakellm.Reply{Deltas: []string{"a\nB\nc\nd\ne\n", "f\nG\nh\ni\nj\n"}, Gate: gate, GateAfter: 2})
	e.cmd("1,10Coder edit upper-case b and g")
	e.waitApproval()
	type view struct {
		Streaming bool   `msgpack:"streaming"`
		Hunks     []bool `msgpack:"hunks"`
		Text      string `msgpack:"text"`
	}
	state := func() view {
		var v view
		e.lua(`local c = require('coder.approval').current()
			if not c then return {streaming = false, hunks = {}, text = ''} end
			local acc = {}
			for _, h in ipairs(c.hunks) do table.insert(acc, h.accepted) end
			return {streaming = c.streaming, hunks = acc, text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '|')}`, &v)
		return v
	}
	if v := state(); !v.Streaming || len(v.Hunks) != 1 {
		t.Fatalf("before the answer ends: %+v, want one hunk shown while it streams", v)
	}
	// Rejected while the answer streams: the review stays (more may come).
	e.input("gr")
	if v := state(); !v.Streaming || len(v.Hunks) != 1 || v.Hunks[0] || !e.approvalOpen() {
		t.Fatalf("after gr while streaming: %+v", v)
	}
	release()
	e.waitFor("the whole answer's hunks", 10*time.Second, func() bool { v := state(); return !v.Streaming && len(v.Hunks) == 2 })
	if v := state(); v.Hunks[0] || !v.Hunks[1] || v.Text != "a|b|c|d|e|f|g|h|i|j" {
		t.Fatalf("after the answer: %+v, want the first hunk still rejected and the buffer unchanged", v)
	}
	e.lua(`require('coder.review').next_hunk(); require('coder.review').accept_hunk()`, nil)
	e.waitFor("the accepted hunk in the buffer", 5*time.Second, func() bool { return e.bufText() == "a|b|c|d|e|f|G|h|i|j" })
	if e.approvalOpen() {
		t.Error("the review is still open after every hunk was decided")
	}

	// gR while the answer streams stops the model call and drops the edit.
	gate2 := make(chan struct{})
	t.Cleanup(func() {
		select {
		case <-gate2:
		default:
			close(gate2)
		}
	})
	e.llm.Enqueue(fakellm.Reply{Deltas: []string{"A\nb\nc\nd\ne\n", "f\nG\nh\ni\nj\n"}, Gate: gate2, GateAfter: 2})
	e.cmd("1,10Coder edit upper-case a")
	e.waitApproval()
	e.input("gR")
	e.waitFor("the review to close", 5*time.Second, func() bool { return !e.approvalOpen() })
	if e.boolLua(`return require('coder.inline').pending()`) || e.bufText() != "a|b|c|d|e|f|G|h|i|j" {
		t.Errorf("after gR while streaming: pending or buffer changed: %s", e.bufText())
	}
	if n := e.notes(); strings.Contains(n, "rror") {
		t.Errorf("notes after gR while streaming: %s", n)
	}
}
