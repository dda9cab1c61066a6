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

type planView struct {
	ID       string `msgpack:"id"`
	Ft       string `msgpack:"ft"`
	Focus    bool   `msgpack:"focus"`
	Floating bool   `msgpack:"floating"`
	Text     string `msgpack:"text"`
}

func (e *editor) waitPlan(not string) planView {
	e.t.Helper()
	var v planView
	e.waitFor("the plan buffer", 10*time.Second, func() bool {
		e.lua(`local c = require('coder.plan').current()
			if not c then return {id = ''} end
			return {id = c.id, ft = vim.bo[c.buf].filetype, focus = vim.api.nvim_get_current_win() == c.win,
				floating = vim.api.nvim_win_get_config(c.win).relative ~= '',
				text = table.concat(vim.api.nvim_buf_get_lines(c.buf, 0, -1, false), '\n')}`, &v)
		return v.ID != "" && v.ID != not
	})
	return v
}

// TestPlanBufferApproveAutoEdit: the plan opens in an editable Markdown
// buffer (float or split per the layout); the user's edit reaches the
// model; approve→auto-edit switches the mode and the next write runs
// unasked.
func TestPlanBufferApproveAutoEdit(t *testing.T) {
	for _, layout := range []string{"float", "right"} {
		t.Run(layout, func(t *testing.T) {
			e := newEditor(t, editorOpts{config: `{"mode": "plan"}`, setup: `{layout = '` + layout + `'}`})
			e.llm.Enqueue(
				fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("p1", "propose_plan", map[string]string{"plan": "1. Write a.txt\n2. Check it", "summary": "write a"})}},
				fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("w1", "write", map[string]string{"path": "a.txt", "content": "a\n"})}},
				fakellm.Reply{Content: "done"},
			)
			e.start()
			e.cmd("Coder plan it")
			v := e.waitPlan("")
			if v.Ft != "markdown" || !v.Focus || v.Floating != (layout == "float") {
				t.Fatalf("plan window: filetype %q, focused %v, floating %v", v.Ft, v.Focus, v.Floating)
			}
			for _, want := range []string{"ga approve", "gA approve, auto-edit", "gr keep planning", "gR cancel", "1. Write a.txt"} {
				if !strings.Contains(v.Text, want) {
					t.Errorf("plan buffer lacks %q:\n%s", want, v.Text)
				}
			}
			e.input("Go3. Also note it<Esc>")
			e.input("gA")
			e.waitIdle(10 * time.Second)
			if e.boolLua(`return require('coder.plan').current() ~= nil`) {
				t.Fatal("the plan buffer is still open after the answer")
			}
			res, _ := toolResult(e.llm.Requests(), "p1")
			if !strings.Contains(res, "auto-edit mode") || !strings.Contains(res, "1. Write a.txt\n2. Check it\n3. Also note it") || strings.Contains(res, "<!--") {
				t.Errorf("the model got %q, want the edited plan without the header", res)
			}
			if _, err := os.Stat(filepath.Join(e.dir, "a.txt")); err != nil {
				t.Errorf("the write after approval did not run: %v", err)
			}
			var approvals int
			var mode string
			e.lua(`return _G.approvals`, &approvals)
			e.lua(`return require('coder').state().mode`, &mode)
			if approvals != 1 || mode != "auto-edit" {
				t.Errorf("%d approval requests (want the plan's only), mode %q (want auto-edit)", approvals, mode)
			}
		})
	}
}

// TestPlanBufferKeepPlanning: "keep planning" sends the comment and stays
// in plan mode; the revised plan shows what changed.
func TestPlanBufferKeepPlanning(t *testing.T) {
	e := newEditor(t, editorOpts{config: `{"mode": "plan"}`})
	e.llm.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("p1", "propose_plan", map[string]string{"plan": "1. Write a.txt\n2. Check it"})}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("p2", "propose_plan", map[string]string{"plan": "1. Write b.txt\n2. Check it"})}},
	)
	e.start()
	e.cmd("Coder plan it")
	first := e.waitPlan("")
	e.lua(`vim.ui.input = function(_, cb) cb('use b.txt') end`, nil)
	e.input("gr")
	second := e.waitPlan(first.ID)
	for _, want := range []string{"Revised plan", "-1. Write a.txt", "+1. Write b.txt"} {
		if !strings.Contains(second.Text, want) {
			t.Errorf("revised plan buffer lacks %q:\n%s", want, second.Text)
		}
	}
	if res, _ := toolResult(e.llm.Requests(), "p1"); !strings.HasPrefix(res, "keep planning: use b.txt") {
		t.Errorf("the model got %q", res)
	}
	e.input("gR")
	e.waitIdle(10 * time.Second)
	var mode string
	e.lua(`return require('coder').state().mode`, &mode)
	if mode != "plan" {
		t.Errorf("mode %q after keep planning and cancel, want plan", mode)
	}
	if n := len(e.llm.Requests()); n != 2 {
		t.Errorf("%d model calls, want 2: cancel ends the turn", n)
	}
}

// TestPlanBufferLeavesInsertModeAlone: a plan arriving while the user
// types does not take the cursor, so typed text never lands in the plan.
func TestPlanBufferLeavesInsertModeAlone(t *testing.T) {
	e := newEditor(t, editorOpts{config: `{"mode": "plan"}`})
	e.llm.Enqueue(fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("p1", "propose_plan", map[string]string{"plan": "1. Write a.txt"})}})
	e.start()
	e.input("i")
	e.waitFor("Insert mode", 5*time.Second, func() bool { return e.boolLua(`return vim.api.nvim_get_mode().mode == 'i'`) })
	e.cmd("Coder plan it")
	v := e.waitPlan("")
	if v.Focus {
		t.Fatal("the plan took the cursor in Insert mode")
	}
	e.input("typed ahead")
	e.waitFor("the typed text", 5*time.Second, func() bool {
		return e.boolLua(`return vim.api.nvim_get_current_line():find('typed ahead', 1, true) ~= nil`)
	})
	if v = e.waitPlan("-"); strings.Contains(v.Text, "typed ahead") {
		t.Errorf("typed text landed in the plan:\n%s", v.Text)
	}
	e.input("<Esc>")
	e.lua(`require('coder.plan').answer('deny')`, nil)
	e.waitIdle(10 * time.Second)
}
