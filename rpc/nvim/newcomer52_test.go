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

// A file opened from the chat's input or transcript (:e) opens in the
// editing window; the chat windows keep their buffers (issue 52,
// newcomer 1).
func TestEditFromChatOpensInEditingWindow(t *testing.T) {
	for _, tc := range []struct{ layout, from string }{
		{"right", "iwin"}, {"right", "twin"}, {"tab", "iwin"}, {"float", "iwin"},
	} {
		t.Run(tc.layout+"/"+tc.from, func(t *testing.T) {
			e := newEditor(t, editorOpts{setup: `{layout = '` + tc.layout + `'}`})
			writeFile(t, filepath.Join(e.dir, "calc.go"), "package calc\n")
			e.cmd("Coder open")
			e.lua(`vim.api.nvim_set_current_win(require('coder.ui').state.`+tc.from+`)`, nil)
			e.cmd("edit calc.go")
			e.waitFor("calc.go in the editing window, the chat on its buffers", 5*time.Second, func() bool {
				return e.boolLua(`
					local st = require('coder.ui').state
					local cur = vim.api.nvim_get_current_win()
					return vim.api.nvim_win_get_buf(st.iwin) == st.ibuf and vim.api.nvim_win_get_buf(st.twin) == st.tbuf
						and cur ~= st.iwin and cur ~= st.twin
						and vim.fn.fnamemodify(vim.api.nvim_buf_get_name(0), ':t') == 'calc.go'
						and vim.api.nvim_win_get_config(cur).relative == ''`)
			})
		})
	}
}

// An inline edit's review: the float's y and n work in the buffer where
// the cursor stays; after a decision the cursor goes to the next
// undecided hunk and ]h/[h walk only those, so a decided hunk changes only
// when the user puts the cursor on it and says so, which is shown; the
// labels say what was decided (issue 52, newcomer 2 and 9).
func TestInlineReviewKeysWorkInTheBuffer(t *testing.T) {
	e := newEditor(t, editorOpts{})
	e.lua(`vim.cmd('enew')
		vim.api.nvim_buf_set_lines(0, 0, -1, false, {'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight'})
		vim.api.nvim_win_set_cursor(0, {1, 0})`, nil)
	e.llm.Enqueue(fakellm.Reply{Content: "```\nONE\ntwo\nthree\nfour\nfive\nsix\nseven\nEIGHT\n```"})
	e.cmd("Coder edit upper-case the ends")
	e.waitApproval()
	idx := func() int {
		var i int
		e.lua(`return require('coder.approval').current().idx`, &i)
		return i
	}
	if float := e.approvalText(); strings.Contains(float, "<Esc>") || !strings.Contains(float, "y apply") || !strings.Contains(float, "n deny") {
		t.Errorf("the inline float names keys that do not work in the buffer:\n%s", float)
	}
	e.input("]h")
	e.waitFor("hunk 2", 5*time.Second, func() bool { return idx() == 2 })
	e.input("gr")
	e.waitFor("the cursor on the undecided hunk 1", 5*time.Second, func() bool {
		return idx() == 1 && e.boolLua(`return vim.api.nvim_win_get_cursor(0)[1] == 1`)
	})
	if labels := e.hunkLabels(); !strings.Contains(labels, "hunk 2/2: rejected") || !strings.Contains(labels, "hunk 1/2: undecided") {
		t.Errorf("hunk labels = %q", labels)
	}
	e.input("[h")
	if idx() != 1 {
		t.Fatalf("[h went to the decided hunk %d", idx())
	}
	// Deciding a decided hunk again takes the cursor on it, and is said.
	e.input("8Gga")
	e.waitFor("the re-decision shown", 5*time.Second, func() bool { return strings.Contains(e.notes(), "hunk 2/2 accepted (was rejected)") })
	e.input("8Ggr")
	e.waitFor("the second re-decision shown", 5*time.Second, func() bool { return strings.Contains(e.notes(), "hunk 2/2 rejected (was accepted)") })
	e.input("y")
	e.waitFor("y to apply in the buffer", 5*time.Second, func() bool { return !e.approvalOpen() })
	if got := e.bufText(); got != "ONE|two|three|four|five|six|seven|eight" {
		t.Errorf("buffer after y = %s", got)
	}
	if reg := e.register(); reg != "" {
		t.Errorf("y yanked %q", reg)
	}
}

func (e *editor) approvalText() string {
	var s string
	e.lua(`local c = require('coder.approval').current()
		return c and table.concat(vim.api.nvim_buf_get_lines(c.buf, 0, -1, false), '\n') or ''`, &s)
	return s
}

// hunkLabels are the review's end-of-line labels in the current buffer.
func (e *editor) hunkLabels() string {
	var s string
	e.lua(`local ns = vim.api.nvim_create_namespace('coder_review')
		local out = {}
		for _, m in ipairs(vim.api.nvim_buf_get_extmarks(0, ns, 0, -1, {details = true})) do
			for _, c in ipairs(m[4].virt_text or {}) do table.insert(out, c[1]) end
		end
		return table.concat(out, '|')`, &s)
	return s
}

func (e *editor) register() string {
	var s string
	e.lua(`return vim.fn.getreg('"')`, &s)
	return s
}

// :Coder review names its keys on a hint line, g? lists them and q closes
// the quickfix list and the diff view (issue 52, newcomer 3).
func TestTurnReviewHintsAndClose(t *testing.T) {
	e := newEditor(t, editorOpts{config: `{"mode": "auto-edit"}`})
	e.llm.SetScript(func(req fakellm.Request) fakellm.Reply {
		if last := req.Messages[len(req.Messages)-1]; last.Role == llm.RoleUser {
			return fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("w", "write", map[string]any{"path": "a.txt", "content": "x\n"})}}
		}
		return fakellm.Reply{Content: "done"}
	})
	e.start()
	e.run("Coder write a.txt")
	e.cmd("Coder review")
	var diff string
	e.lua(`for _, w in ipairs(vim.api.nvim_list_wins()) do
			local b = vim.api.nvim_win_get_buf(w)
			if vim.bo[b].filetype == 'diff' then return table.concat(vim.api.nvim_buf_get_lines(b, 0, -1, false), '\n') end
		end
		return ''`, &diff)
	if !strings.Contains(diff, "ga keep") || !strings.Contains(diff, "q close") || !strings.Contains(diff, "+x") {
		t.Errorf("diff view without a hint line: %q", diff)
	}
	e.lua(`vim.cmd('copen'); vim.api.nvim_feedkeys('g?', 'mx', false)`, nil)
	var keys string
	e.lua(`return vim.bo.filetype == 'coder-keys' and table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n') or ''`, &keys)
	for _, w := range []string{"ga", "keep the hunk", "gr", "q", "close the review"} {
		if !strings.Contains(keys, w) {
			t.Errorf("g? in the review lacks %q:\n%s", w, keys)
		}
	}
	e.lua(`vim.api.nvim_feedkeys('q', 'mx', false)`, nil) // the key list
	e.lua(`vim.cmd('copen'); vim.api.nvim_feedkeys('q', 'mx', false)`, nil)
	e.waitFor("q to close the review", 5*time.Second, func() bool {
		return e.boolLua(`for _, w in ipairs(vim.api.nvim_list_wins()) do
				local b = vim.api.nvim_win_get_buf(w)
				if vim.bo[b].buftype == 'quickfix' or vim.bo[b].filetype == 'diff' then return false end
			end
			return vim.fn.reg_recording() == ''`)
	})
}

// A broken user config: a syntax error names its line, column and text,
// an unknown key near a known one suggests it, and a send while it is
// broken says so once, without a hit-enter prompt; the input is kept and
// runs once the file is fixed (issue 52, newcomer 5).
func TestBrokenUserConfigSaysWhereOnce(t *testing.T) {
	e := newEditor(t, editorOpts{})
	userFile := filepath.Join(filepath.Dir(e.dir), "config", "coder", "config.json")
	writeFile(t, userFile, "{\n  \"model\": \"gpt-4o-mini\",\n  \"mode\": \"default\",\n}\n")
	e.cmd("Coder open")
	want := `invalid JSON at line 4, column 1`
	e.waitFor("the error with its line", 10*time.Second, func() bool {
		return strings.Contains(e.transcript(), want) && strings.Contains(e.transcript(), "trailing comma")
	})
	e.lua(`_G.notes = {}
		vim.api.nvim_buf_set_lines(require('coder.ui').input_buf(), 0, -1, false, {'kept question'})
		vim.api.nvim_set_current_win(require('coder.ui').state.iwin)
		vim.cmd('stopinsert')`, nil)
	before := strings.Count(e.transcript(), want)
	e.input("<CR>")
	e.waitFor("the input given back", 10*time.Second, func() bool {
		return strings.Join(e.inputLines(), "\n") == "kept question" && strings.Count(e.transcript(), want) > before
	})
	if n := strings.Count(e.transcript(), want) + strings.Count(e.notes(), want); n != before+1 {
		t.Errorf("one send showed the error %d times:\ntranscript:\n%s\nnotes: %s", n-before, e.transcript(), e.notes())
	}
	if e.boolLua(`return vim.api.nvim_get_mode().mode ~= 'n'`) {
		t.Error("a hit-enter prompt after the send")
	}
	writeFile(t, userFile, `{"permisions": {}}`)
	e.lua(`vim.api.nvim_set_current_win(require('coder.ui').state.iwin)`, nil)
	e.input("<CR>")
	e.waitFor("did you mean", 10*time.Second, func() bool {
		return strings.Contains(e.transcript(), `unknown key "permisions" (did you mean "permissions"?)`)
	})
	writeFile(t, userFile, `{}`)
	e.llm.Enqueue(fakellm.Reply{Content: "answered at last"})
	e.input("<CR>")
	e.waitFor("the kept input to run", 10*time.Second, func() bool { return strings.Contains(e.transcript(), "answered at last") })
	if m := e.llm.Requests()[0].Messages; m[len(m)-1].Content != "kept question" {
		t.Errorf("the model got %q", m[len(m)-1].Content)
	}
}

// After approving a write to another file, the window the review showed
// it in goes back to the file the user was in, cursor and all (issue 52,
// newcomer 8).
func TestApprovedWriteGivesTheWindowBack(t *testing.T) {
	e := newEditor(t, editorOpts{})
	writeFile(t, filepath.Join(e.dir, "main.go"), "package main\n\nfunc main() {}\n")
	writeFile(t, filepath.Join(e.dir, "other.txt"), "old\n")
	e.llm.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("r", "read", map[string]string{"path": "other.txt"})}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("w", "write", map[string]string{"path": "other.txt", "content": "new\n"})}},
		fakellm.Reply{Content: "done"},
	)
	e.cmd("edit " + filepath.Join(e.dir, "main.go"))
	e.lua(`vim.api.nvim_win_set_cursor(0, {3, 5}); _G.editwin = vim.api.nvim_get_current_win()`, nil)
	e.start()
	e.cmd("Coder change other.txt")
	e.waitApproval()
	if !e.boolLua(`return vim.fn.fnamemodify(vim.api.nvim_buf_get_name(vim.api.nvim_win_get_buf(_G.editwin)), ':t') == 'other.txt'`) {
		t.Fatal("the review does not show other.txt in the editing window")
	}
	e.lua(`assert(require('coder.approval').focus())`, nil)
	e.input("y")
	e.waitIdle(10 * time.Second)
	if !e.boolLua(`local b = vim.api.nvim_win_get_buf(_G.editwin)
		local c = vim.api.nvim_win_get_cursor(_G.editwin)
		return vim.fn.fnamemodify(vim.api.nvim_buf_get_name(b), ':t') == 'main.go' and c[1] == 3 and c[2] == 5`) {
		var name string
		e.lua(`return vim.api.nvim_buf_get_name(vim.api.nvim_win_get_buf(_G.editwin))`, &name)
		t.Errorf("after the approval the editing window shows %s, not main.go where the user was", name)
	}
	if got := readFileT(t, filepath.Join(e.dir, "other.txt")); got != "new\n" {
		t.Errorf("other.txt = %q", got)
	}
}

func readFileT(t *testing.T, p string) string {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// :checkhealth coder's help references render as links, without a
// stray parenthesis inside them (issue 52, newcomer 9; 0.10+ turns
// ":help x" into ":help |x|").
func TestHealthHelpLinks(t *testing.T) {
	e := newEditor(t, editorOpts{demo: true})
	e.start()
	var report string
	e.waitFor("the demo's advice in :checkhealth", 30*time.Second, func() bool {
		e.cmd("checkhealth coder")
		e.lua(`return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')`, &report)
		e.cmd("bwipeout!")
		return strings.Contains(report, "coder-providers")
	})
	if strings.Contains(report, "coder-providers)") {
		t.Errorf("a help reference with a parenthesis inside:\n%s", report)
	}
}

// :qa with an approval open does not quit without a word: it is refused
// with what to do (answer, or :qa! and the call is recorded as aborted);
// once answered, :qa is free again (issue 52, newcomer 9).
func TestQuitWithApprovalOpenIsHeld(t *testing.T) {
	e := newEditor(t, editorOpts{})
	e.askForBash("x.txt")
	e.start()
	e.cmd("Coder make it")
	e.waitApproval()
	e.lua(`vim.fn.histadd(':', 'qa')`, nil) // as typed
	if err := e.v.Command("qa"); err == nil || !strings.Contains(err.Error(), "E37") {
		t.Fatalf(":qa with an approval open: %v", err)
	}
	if !e.approvalOpen() || !strings.Contains(e.notes(), "an approval is waiting") || !strings.Contains(e.notes(), ":qa!") {
		t.Errorf("no word on the held quit: %s", e.notes())
	}
	// The float is still there to answer, its keys working.
	e.lua(`assert(require('coder.approval').focus())`, nil)
	e.input("n")
	e.waitFor("the approval answered", 10*time.Second, func() bool { return !e.approvalOpen() })
	if !e.boolLua(`for _, b in ipairs(vim.fn.getbufinfo({bufmodified = 1})) do
			if vim.bo[b.bufnr].buftype ~= 'nofile' then return false end
		end
		return true`) {
		var names string
		e.lua(`local out = {}
			for _, b in ipairs(vim.fn.getbufinfo({bufmodified = 1})) do table.insert(out, b.name) end
			return table.concat(out, ',')`, &names)
		t.Errorf("a modified buffer still holds quitting after the answer: %s", names)
	}
}
