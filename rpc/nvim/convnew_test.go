package nvimhost

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
)

// `:Coder conversation new` asks its form, opens the conversation with
// those settings (a wider preset clamped, and said), sends the input to it
// and runs it on its first message; `:Coder conversation set` changes its
// instructions for the next turn; `:Coder conversations` shows its
// metrics in the picker line and in its view.
func TestConversationNewInNeovim(t *testing.T) {
	e := newEditor(t, editorOpts{})
	writeFile(t, filepath.Join(e.dir, "brief.md"), "You answer in haiku.")
	e.start()
	usage := &llm.Usage{PromptTokens: 1200, CompletionTokens: 30, TotalTokens: 1230}
	e.llm.Enqueue(fakellm.Reply{Content: "hi there", Usage: usage})
	e.lua(`_G.asked = {}
		local answers = {'@brief.md', 'say hi', '', 'cheap', 'headers_only', 'yolo'}
		vim.ui.input = function(opts, on_confirm)
			table.insert(_G.asked, opts.prompt)
			on_confirm(answers[#_G.asked])
		end`, nil)
	n := e.turnsDone()
	e.cmd("Coder conversation new")
	e.waitFor("the new conversation's first turn", 10*time.Second, func() bool { return e.turnsDone() > n })
	var asked []string
	e.lua(`return _G.asked`, &asked)
	if len(asked) != 6 || !strings.HasPrefix(asked[0], "Base instructions") || !strings.HasPrefix(asked[5], "Permission preset") {
		t.Errorf("form asked %q", asked)
	}
	reqs := e.llm.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	r := reqs[0]
	if r.Model != "cheap" || !strings.HasPrefix(r.Messages[0].Content, "You answer in haiku.") || len(r.Messages) != 2 || r.Messages[1].Content != "say hi" {
		t.Errorf("request: model %s, messages %+v", r.Model, r.Messages)
	}
	if notes := e.notes(); !strings.Contains(notes, "opened conversation") || !strings.Contains(notes, "preset yolo clamped to the session's balanced") {
		t.Errorf("notes: %s", notes)
	}
	e.waitFor("the prompt to name the new conversation", 5*time.Second, func() bool {
		return strings.Contains(e.promptText(), "[conversation ")
	})
	if tr := e.transcript(); !strings.Contains(tr, "say hi") || !strings.Contains(tr, "hi there") {
		t.Errorf("transcript lacks the first turn:\n%s", tr)
	}

	// set: later turns get the new instructions.
	e.cmd("Coder conversation set instructions be terse")
	if notes := e.notes(); !strings.Contains(notes, "instructions (from its next model call") {
		t.Errorf("set was not confirmed: %s", notes)
	}
	e.llm.Enqueue(fakellm.Reply{Content: "ok", Usage: usage})
	e.run("Coder more")
	reqs = e.llm.Requests()
	if last := reqs[len(reqs)-1]; !strings.HasPrefix(last.Messages[0].Content, "be terse") || last.Messages[1].Content != "say hi" || last.Messages[3].Content != "more" {
		t.Errorf("after set: %+v", last.Messages)
	}
	e.cmd("Coder conversation set colour blue")
	if notes := e.notes(); !strings.Contains(notes, "colour") {
		t.Errorf("a bad key was not refused: %s", notes)
	}

	// The picker line and the view show its metrics.
	e.lua(`_G.picks = {}
		vim.ui.select = function(items, opts, on_choice)
			table.insert(_G.picks, vim.tbl_map(opts.format_item or tostring, items))
			if #_G.picks == 1 then return on_choice(items[2], 2) end
			on_choice(items[1], 1)
		end`, nil)
	e.cmd("Coder conversations")
	e.waitFor("the conversation view", 5*time.Second, func() bool {
		return e.boolLua(`return vim.api.nvim_buf_get_name(0):find('coder://conversation/', 1, true) ~= nil`)
	})
	var labels []string
	e.lua(`return _G.picks[1]`, &labels)
	if len(labels) != 2 || !strings.Contains(labels[1], "(4 messages, 2.4k in / 60 out tokens, 2 model calls, 0 tool calls, active ") {
		t.Errorf("picker lines = %q", labels)
	}
	var view string
	e.lua(`return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')`, &view)
	if !strings.Contains(view, "tokens: 2400 in, 60 out") || !strings.Contains(view, "model calls: 2") || !strings.Contains(view, "tasks: 2 (0 cancelled, 0 failed)") {
		t.Errorf("conversation view:\n%s", view)
	}
}
