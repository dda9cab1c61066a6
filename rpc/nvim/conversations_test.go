package nvimhost

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
)

// A hand-over shows as an indented block under the call, folded once the
// target answered; the status names the running conversation meanwhile.
// `:Coder conversations` lists the sub-conversation, opens its transcript
// read-only and makes it the input's target; `root` goes back.
func TestConversationsInNeovim(t *testing.T) {
	e := newEditor(t, editorOpts{})
	e.start()
	// While the target streams, its answer waits on a gate: the status is
	// checked during the hand-over.
	gate := make(chan struct{})
	var once sync.Once
	open := func() { once.Do(func() { close(gate) }) }
	t.Cleanup(open)
	e.llm.Enqueue(fakellm.Reply{Content: "Delegating.", ToolCalls: []llm.ToolCall{toolCall("c1", "conv_create", map[string]any{"user_instruction": "review main.go"})}})
	e.llm.SetScript(func(r fakellm.Request) fakellm.Reply {
		if len(r.Messages) == 2 && r.Messages[1].Content == "review main.go" {
			<-gate
			return fakellm.Reply{Content: "LGTM\nsecond line, long enough to wrap"}
		}
		return fakellm.Reply{Content: "The reviewer says LGTM."}
	})
	n := e.turnsDone()
	e.cmd("Coder get main.go reviewed")
	var conv string
	e.waitFor("the status to name the sub-conversation", 10*time.Second, func() bool {
		e.lua(`local s = require('coder').state(); return s and s.conversation or ''`, &conv)
		return conv != ""
	})
	if st := e.statusLine(); !strings.Contains(st, "⇄ conversation "+conv) {
		t.Errorf("status line %q does not name conversation %s", st, conv)
	}
	open()
	e.waitFor("the turn to end", 10*time.Second, func() bool { return e.turnsDone() > n })
	var turns []string
	e.lua(`return _G.turns`, &turns)
	if got := strings.Join(turns, " "); got != "CoderTurnStart:get main.go reviewed CoderTurnDone:end_turn" {
		t.Errorf("one user turn expected, got %s", got)
	}

	want := "## Agent\nDelegating.\n" +
		"▸ conv.create → conversation " + conv + "\n" +
		"  │ » review main.go\n" +
		"  │ LGTM\n  │ second line, long enough to wrap\n" +
		"✓ conv.create → conversation " + strings.TrimSuffix(conv, "…") + ", then back\n" +
		"The reviewer says LGTM."
	tr := e.transcript()
	if !strings.Contains(tr, want) {
		t.Fatalf("transcript:\n%s\nwant it to contain:\n%s", tr, want)
	}
	checkHandOverFold(t, e)

	// The picker: root first, then the sub-conversation.
	e.lua(`_G.picks = {}
		vim.ui.select = function(items, opts, on_choice)
			table.insert(_G.picks, {prompt = opts.prompt, labels = vim.tbl_map(opts.format_item or tostring, items)})
			local want = _G.choose[#_G.picks]
			for i, it in ipairs(items) do
				local label = (opts.format_item or tostring)(it)
				if label:find(want, 1, true) then return on_choice(it, i) end
			end
			on_choice(nil, nil)
		end`, nil)
	e.lua(`_G.choose = {'review main.go', 'transcript'}`, nil)
	e.cmd("Coder conversations")
	e.waitFor("the transcript buffer", 5*time.Second, func() bool {
		return e.boolLua(`return vim.bo.filetype == 'coder' and vim.api.nvim_buf_get_name(0):find('coder://conversation/', 1, true) ~= nil`)
	})
	var labels []string
	e.lua(`return _G.picks[1].labels`, &labels)
	if len(labels) != 2 || !strings.HasPrefix(labels[0], "root") || !strings.Contains(labels[0], "get main.go reviewed") ||
		!strings.Contains(labels[1], "review main.go") || !strings.Contains(labels[1], "(2 messages, ") || !strings.Contains(labels[1], " out tokens, 1 model calls, 0 tool calls, active ") {
		t.Errorf("picker lines = %q", labels)
	}
	var text string
	var modifiable bool
	e.lua(`return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')`, &text)
	e.lua(`return vim.bo.modifiable`, &modifiable)
	if !strings.Contains(text, "## You\nreview main.go") || !strings.Contains(text, "LGTM\nsecond line") || strings.Contains(text, "get main.go reviewed") || modifiable {
		t.Errorf("conversation transcript (modifiable %v):\n%s", modifiable, text)
	}
	// q closes the view, as in every scratch view (it started a macro:
	// checked first, since a recording q would wait for its register).
	if !e.boolLua(`return vim.fn.maparg('q', 'n') ~= ''`) {
		t.Fatal("q is not mapped in the conversation view")
	}
	var tabs int
	e.lua(`return #vim.api.nvim_list_tabpages()`, &tabs)
	e.input("q")
	e.waitFor("q to close the conversation tab", 5*time.Second, func() bool {
		var n int
		e.lua(`return #vim.api.nvim_list_tabpages()`, &n)
		return n == tabs-1 && notRecording(e)
	})

	// Input to the sub-conversation, then back to the root.
	e.lua(`_G.picks, _G.choose = {}, {'review main.go', 'Send the input'}`, nil)
	e.cmd("Coder conversations")
	e.waitFor("the prompt to name the target", 5*time.Second, func() bool {
		return strings.Contains(e.promptText(), "[conversation "+conv+"]")
	})
	// In a narrow window too (64 columns beside the key hints): the path
	// gives way, the target never.
	e.lua(`vim.o.columns = 64; require('coder.ui').render_status()`, nil)
	var shown string
	e.lua(`local w = require('coder.ui').state.iwin
		return (vim.fn.has('nvim-0.8') == 1 and vim.wo[w].winbar or '') .. vim.wo[w].statusline`, &shown)
	if !strings.Contains(shown, "[conversation "+conv+"]") {
		t.Errorf("the input's target is not shown at 64 columns: %q", shown)
	}
	e.llm.Enqueue(fakellm.Reply{Content: "sub again"})
	e.run("Coder and main_test.go?")
	if tr := e.transcript(); !strings.Contains(tr, "## You → conversation "+conv+"\nand main_test.go?") || !strings.Contains(tr, "## Agent → conversation "+conv) {
		t.Errorf("the transcript does not mark the turn sent to the conversation:\n%s", tr)
	}
	reqs := e.llm.Requests()
	last := reqs[len(reqs)-1].Messages
	if len(last) != 4 || last[1].Content != "review main.go" || last[3].Content != "and main_test.go?" {
		t.Errorf("input did not go to the sub-conversation: %+v", last)
	}
	e.cmd("Coder conversations root")
	e.waitFor("the prompt to drop the target", 5*time.Second, func() bool {
		return !strings.Contains(e.promptText(), "[conversation")
	})
	e.llm.Enqueue(fakellm.Reply{Content: "root again"})
	e.run("Coder back at the root")
	reqs = e.llm.Requests()
	if m := reqs[len(reqs)-1].Messages; !strings.Contains(m[0].Content, "coding agent") || m[1].Content != "get main.go reviewed" {
		t.Errorf("input did not go to the root: %+v", m[:2])
	}
}

func (e *editor) statusLine() string {
	var s string
	e.lua(`return require('coder.ui').status_text(200)`, &s)
	return s
}

func (e *editor) promptText() string {
	var s string
	e.lua(`return require('coder.ui').prompt_text()`, &s)
	return s
}

// notRecording reports that no macro recording started.
func notRecording(e *editor) bool {
	return e.boolLua(`return vim.fn.reg_recording() == ''`)
}

// checkHandOverFold: the hand-over block is one closed fold, kept when
// the chat is reopened, and a wrapped line in it keeps the gutter.
func checkHandOverFold(t *testing.T, e *editor) {
	t.Helper()
	// The block is one closed fold starting at the hand-over line.
	var fold []int
	e.lua(`local b = require('coder.ui').transcript_buf()
		local w = vim.fn.bufwinid(b)
		local lines = vim.api.nvim_buf_get_lines(b, 0, -1, false)
		for i, l in ipairs(lines) do
			if l:find('^▸ conv.create') then
				return {i, vim.api.nvim_win_call(w, function() return vim.fn.foldclosed(i) end),
					vim.api.nvim_win_call(w, function() return vim.fn.foldclosedend(i) end)}
			end
		end
		return {}`, &fold)
	if len(fold) != 3 || fold[1] != fold[0] || fold[2] != fold[0]+3 {
		t.Errorf("fold of the hand-over block (line, foldclosed, foldclosedend) = %v, want a closed fold over 4 lines", fold)
	}
	// Closing and reopening the chat keeps the fold.
	e.cmd("Coder close")
	e.cmd("Coder open")
	var closed int
	e.lua(`local l, b = ..., require('coder.ui').transcript_buf()
		return vim.api.nvim_win_call(vim.fn.bufwinid(b), function() return vim.fn.foldclosed(l) end)`, &closed, fold[0])
	if closed != fold[0] {
		t.Errorf("after reopening the chat, foldclosed = %d, want %d", closed, fold[0])
	}
	if st := e.statusLine(); strings.Contains(st, "⇄") {
		t.Errorf("status still names a conversation after the hand-back: %q", st)
	}
	// A wrapped line in the block keeps the gutter: its continuation
	// starts under the text (0.10+ draws the │ again there).
	var wrapped []string
	e.lua(`local b = require('coder.ui').transcript_buf()
		local w = vim.fn.bufwinid(b)
		vim.api.nvim_win_set_width(w, 30)
		vim.api.nvim_win_call(w, function() vim.cmd('normal! zR') end)
		local row
		for i, l in ipairs(vim.api.nvim_buf_get_lines(b, 0, -1, false)) do
			if l:find('^  │ second line') then row = i end
		end
		vim.cmd('redraw!')
		local p = vim.fn.screenpos(w, row, 1)
		local function cells(r)
			local s = ''
			for c = p.col, p.col + 7 do s = s .. vim.fn.screenstring(r, c) end
			return s
		end
		return {cells(p.row), cells(p.row + 1)}`, &wrapped)
	wantCont := "  │ to w"
	if !e.boolLua(`return vim.fn.has('nvim-0.10') == 1`) {
		wantCont = "     to " // no repeated virtual text before 0.10; aligned within a cell
	}
	if len(wrapped) != 2 || wrapped[0] != "  │ seco" || wrapped[1] != wantCont {
		t.Errorf("wrapped hand-over line on screen = %q, want [\"  │ seco\" %q]", wrapped, wantCont)
	}
}
