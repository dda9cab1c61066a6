package nvimhost

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
)

// inputLines returns the input buffer's lines.
func (e *editor) inputLines() []string {
	e.t.Helper()
	var lines []string
	e.lua(`return vim.api.nvim_buf_get_lines(require('coder.ui').input_buf(), 0, -1, false)`, &lines)
	return lines
}

// askForBash queues a turn whose one tool call needs approval.
func (e *editor) askForBash(file string) {
	e.t.Helper()
	e.llm.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("call_1", "bash", map[string]string{"command": "touch " + file})}},
		fakellm.Reply{Content: "handled"},
	)
}

// Keys typed ahead in Insert mode must never answer an approval: the float
// takes the cursor only once the user is back in Normal mode.
func TestApprovalWaitsForNormalMode(t *testing.T) {
	e := newEditor(t, editorOpts{})
	e.askForBash("typed.txt")
	e.start()
	e.input("iI w")
	e.waitFor("Insert mode", 5*time.Second, func() bool {
		return e.boolLua(`return vim.api.nvim_get_mode().mode == 'i'`) && strings.Join(e.inputLines(), "\n") == "I w"
	})
	e.lua(`require('coder').send('make it')`, nil)
	e.waitApproval()
	// "a" is the always key of the float.
	e.input("a")
	e.waitFor("the typed text in the input", 5*time.Second, func() bool {
		return strings.Join(e.inputLines(), "\n") == "I wa" || !e.approvalOpen()
	})
	if !e.approvalOpen() {
		t.Fatal("typing answered the approval")
	}
	if e.boolLua(`return vim.api.nvim_get_current_win() == require('coder.approval').current().win`) {
		t.Fatal("the float took the cursor while the user was typing")
	}
	floatText := `local c = require('coder.approval').current()
		return table.concat(vim.api.nvim_buf_get_lines(c.buf, 0, -1, false), "\n")`
	var text string
	e.lua(floatText, &text)
	if !strings.Contains(text, "you are typing") {
		t.Errorf("the float does not say how to reach it:\n%s", text)
	}
	e.input("<Esc>")
	e.waitFor("the float to take the cursor", 5*time.Second, func() bool {
		return e.boolLua(`local c = require('coder.approval').current()
			return c ~= nil and vim.api.nvim_get_current_win() == c.win and vim.api.nvim_get_mode().mode == 'n'`)
	})
	e.lua(floatText, &text)
	if strings.Contains(text, "you are typing") {
		t.Errorf("the hint stays after the float took the cursor:\n%s", text)
	}
	e.input("n")
	e.waitIdle(10 * time.Second)
	if _, err := os.Stat(filepath.Join(e.dir, "typed.txt")); err == nil {
		t.Fatal("the command ran although it was denied")
	}
	if tr := e.transcript(); !strings.Contains(tr, "→ denied") {
		t.Fatalf("transcript lacks the denial:\n%s", tr)
	}
}

// Closing the float by hand answers like <Esc> instead of leaving the
// agent waiting on a request nobody can see.
func TestClosingApprovalFloatDenies(t *testing.T) {
	e := newEditor(t, editorOpts{})
	e.askForBash("closed.txt")
	e.start()
	e.cmd("Coder make it")
	e.waitApproval()
	e.cmd("close")
	e.waitFor("the request to be denied", 5*time.Second, func() bool { return !e.approvalOpen() })
	e.waitIdle(10 * time.Second)
	if _, err := os.Stat(filepath.Join(e.dir, "closed.txt")); err == nil {
		t.Fatal("the command ran although the float was closed")
	}
	res, _ := toolResult(e.llm.Requests(), "call_1")
	if !strings.Contains(res, "denied") {
		t.Fatalf("tool result %q, want a denial", res)
	}
}

// Rejecting every hunk writes nothing, so a buffer made only to review a
// new file goes away as after a denial.
func TestDiffReviewAllRejectedLeavesNoBuffer(t *testing.T) {
	e := newEditor(t, editorOpts{})
	keep := filepath.Join(e.dir, "keep.txt")
	writeFile(t, keep, "mine\n")
	e.cmd("edit " + keep)
	e.llm.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("call_w", "write", map[string]string{"path": "new.txt", "content": "a\nb\n"})}},
		fakellm.Reply{Content: "nothing written"},
	)
	e.start()
	e.cmd("Coder make new.txt")
	e.waitApproval()
	e.input("gr")
	e.input("y")
	e.waitIdle(10 * time.Second)
	if _, err := os.Stat(filepath.Join(e.dir, "new.txt")); err == nil {
		t.Fatal("new.txt was written although its only hunk was rejected")
	}
	if !e.boolLua(`return vim.fn.bufnr(...) == -1`, filepath.Join(e.dir, "new.txt")) {
		t.Error("the review buffer of the unwritten new file is still there")
	}
	if !e.boolLua(`local b = vim.fn.bufnr(...); return b > 0 and #vim.fn.win_findbuf(b) > 0`, keep) {
		t.Error("the window did not get its buffer back")
	}
}

// The input is an ordinary buffer: undo works.
func TestInputKeepsUndo(t *testing.T) {
	e := newEditor(t, editorOpts{})
	e.cmd("Coder open")
	e.input("ifirst<Esc>")
	e.input("osecond<Esc>")
	e.waitFor("the typed text", 5*time.Second, func() bool { return strings.Join(e.inputLines(), "\n") == "first\nsecond" })
	e.input("u")
	e.waitFor("u to undo the second line", 2*time.Second, func() bool { return strings.Join(e.inputLines(), "\n") == "first" })
}

// Text that could not be sent (the host cannot start) stays in the input.
func TestInputKeepsUnsentText(t *testing.T) {
	e := newEditor(t, editorOpts{})
	e.lua(`assert(require('coder').setup({cmd = '/nonexistent/coder-nvim'}))`, nil)
	e.lua(`require('coder.ui').open(true)`, nil)
	e.input("ifirst<Esc>")
	e.waitFor("the typed text", 5*time.Second, func() bool { return strings.Join(e.inputLines(), "\n") == "first" })
	e.lua(`_G.notes = {}`, nil)
	e.input("<CR>")
	e.waitFor("the missing-host message", 5*time.Second, func() bool { return strings.Contains(e.notes(), "not found") })
	if got := strings.Join(e.inputLines(), "\n"); got != "first" {
		t.Fatalf("input after a failed send = %q, want it kept", got)
	}
}

// A new setup() takes back the keys the old one mapped.
func TestSetupRemapsKeys(t *testing.T) {
	e := newEditor(t, editorOpts{})
	e.cmd("Coder open")
	mapped := func(mode, lhs string) bool {
		return e.boolLua(`local m, lhs = ...
			for _, k in ipairs(vim.api.nvim_buf_get_keymap(require('coder.ui').input_buf(), m)) do
				if k.lhs == lhs then return true end
			end
			return false`, mode, lhs)
	}
	if !mapped("n", "q") || !mapped("n", "<CR>") {
		t.Fatal("default keys not mapped in the input")
	}
	e.lua(`assert(require('coder').setup({cmd = ..., keys = {close = false, send = '<C-G>'}}))`, nil, hostBinary)
	if mapped("n", "q") {
		t.Error("q still closes the chat after keys.close = false")
	}
	if mapped("n", "<CR>") || !mapped("n", "<C-G>") {
		t.Error("send still on <CR> or not on <C-G>")
	}
}

// The picker of a bare /resume opens after the batch is applied, so the
// host never waits on the user inside its call into Neovim.
func TestSessionPickerDoesNotHoldTheBatch(t *testing.T) {
	e := newEditor(t, editorOpts{})
	var seen int
	e.lua(`
		_G.notes = {}
		_G.seen = -1
		vim.ui.select = function(items, opts, on_choice) _G.seen = #_G.notes end
		require('coder.bridge').apply({
			{t = 'pick_session', items = {{id = 'x', label = 'x'}}},
			{t = 'notify', level = 'info', msg = 'after the picker'},
		})
	`, nil)
	e.waitFor("the picker", 5*time.Second, func() bool {
		e.lua(`return _G.seen`, &seen)
		return seen >= 0
	})
	if seen != 1 {
		t.Fatalf("the picker opened before the rest of its batch was applied")
	}
}

// :checkhealth right after start-up (the host not yet running) waits for
// the session instead of reporting it missing.
func TestHealthStartsTheHost(t *testing.T) {
	e := newEditor(t, editorOpts{})
	e.cmd("checkhealth coder")
	var report string
	e.lua(`return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')`, &report)
	if strings.Contains(report, "ERROR") || !strings.Contains(report, "provider openai at "+e.llm.URL()) {
		t.Fatalf("health report:\n%s", report)
	}
	// The host's own programs, with the paths it runs.
	if git, err := exec.LookPath("git"); err == nil && !strings.Contains(report, "host program git: "+git) {
		t.Errorf("the report does not name the host's git (%s):\n%s", git, report)
	}
	if !strings.Contains(report, "host program sandbox launcher: /") {
		t.Errorf("the report does not name the sandbox launcher:\n%s", report)
	}
}

// A request that overtakes coder_start (requests run concurrently with
// notifications) waits for the session instead of reporting it missing.
func TestHealthRequestWaitsForStart(t *testing.T) {
	h := &host{ctx: context.Background(), opened: make(chan struct{})}
	go func() {
		time.Sleep(50 * time.Millisecond)
		h.mu.Lock()
		h.cfgErr = errors.New("configuration: bad")
		h.mu.Unlock()
		close(h.opened)
	}()
	out, err := h.healthRequest()
	if err != nil || out["error"] != "configuration: bad" {
		t.Fatalf("healthRequest = %v, %v; want the start error", out, err)
	}
}

// A review never puts the reviewed file into the window the user is typing
// in: the keys typed ahead must land where the user put them.
func TestReviewLeavesTheTypingWindowAlone(t *testing.T) {
	e := newEditor(t, editorOpts{})
	mine := filepath.Join(e.dir, "mine.txt")
	target := filepath.Join(e.dir, "target.txt")
	writeFile(t, mine, "mine\n")
	writeFile(t, target, "old\n")
	e.cmd("edit " + mine)
	e.llm.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("call_r", "read", map[string]string{"path": "target.txt"})}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("call_w", "write", map[string]string{"path": "target.txt", "content": "new\n"})}},
		fakellm.Reply{Content: "done"},
	)
	e.start()
	e.lua(`vim.api.nvim_set_current_win(vim.fn.win_findbuf(vim.fn.bufnr(...))[1])`, nil, mine)
	e.input("Otyped ")
	e.waitFor("Insert mode", 5*time.Second, func() bool { return e.boolLua(`return vim.api.nvim_get_mode().mode == 'i'`) })
	e.lua(`require('coder').send('change target')`, nil)
	e.waitApproval()
	e.input("ahead")
	e.waitFor("the typed text", 5*time.Second, func() bool {
		return e.boolLua(`return vim.fn.getbufline(vim.fn.bufnr(...), 1)[1] == 'typed ahead'`, mine)
	})
	if e.boolLua(`return vim.bo[vim.fn.bufnr(...)].modified`, target) {
		t.Fatal("the keys typed ahead went into the reviewed file")
	}
	if !e.boolLua(`local b = vim.fn.bufnr(...); return b > 0 and #vim.fn.win_findbuf(b) > 0`, target) {
		t.Fatal("the reviewed file is not shown")
	}
	e.input("<Esc>")
	e.waitFor("the float to take the cursor", 5*time.Second, func() bool {
		return e.boolLua(`local c = require('coder.approval').current(); return c ~= nil and vim.api.nvim_get_current_win() == c.win`)
	})
	e.input("y")
	e.waitIdle(10 * time.Second)
	if data, _ := os.ReadFile(target); string(data) != "new\n" {
		t.Fatalf("target.txt = %q", data)
	}
}

// :help coder works from a checkout without doc/tags (make run before any
// :helptags, a plugin manager that does not generate tags).
func TestHelpWithoutTags(t *testing.T) {
	needNvim(t)
	plugin := t.TempDir()
	for _, dir := range []string{"plugin", "lua/coder", "doc"} {
		copyDir(t, filepath.Join(repoRoot(), dir), filepath.Join(plugin, dir))
	}
	os.Remove(filepath.Join(plugin, "doc", "tags"))
	e := newEditor(t, editorOpts{rtp: plugin})
	e.cmd("help coder")
	var name string
	e.lua(`return vim.api.nvim_buf_get_name(0)`, &name)
	if filepath.Base(name) != "coder.txt" {
		t.Fatalf(":help coder opened %q", name)
	}
	e.cmd("help coder-options")
}

// copyDir copies the regular files of src (not recursively) into dst.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, ent := range entries {
		if !ent.Type().IsRegular() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(src, ent.Name()))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dst, ent.Name()), string(data))
	}
}

// The chat's status lines and the approval float fit the screen, at 80×24
// as at 200×50, and the input hint follows the mode.
func TestChatFitsTheScreen(t *testing.T) {
	for _, size := range []struct{ cols, lines int }{{80, 24}, {200, 50}} {
		for _, layout := range []string{"right", "float"} {
			t.Run(fmt.Sprintf("%dx%d %s", size.cols, size.lines, layout), func(t *testing.T) {
				e := newEditor(t, editorOpts{setup: `{layout = '` + layout + `'}`})
				e.cmd(fmt.Sprintf("set columns=%d lines=%d", size.cols, size.lines))
				e.llm.Enqueue(
					fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("call_w", "write", map[string]string{"path": "calc.go", "content": "package calc\n\nfunc Add(a, b int) int {\n\treturn a + b\n}\n"})}},
					fakellm.Reply{Content: "done"},
				)
				e.start()
				e.cmd("Coder write calc.go please, with a long enough request to matter")
				e.waitApproval()
				var info struct {
					Lines     []string `msgpack:"lines"`
					Width     int      `msgpack:"width"`
					Right     int      `msgpack:"right"`
					Status    string   `msgpack:"status"`
					StatusW   int      `msgpack:"status_w"`
					TwinW     int      `msgpack:"twin_w"`
					Hints     string   `msgpack:"hints"`
					HintsW    int      `msgpack:"hints_w"`
					IwinW     int      `msgpack:"iwin_w"`
					Zindex    int      `msgpack:"z"`
					InputZ    int      `msgpack:"input_z"`
					Indent    bool     `msgpack:"indent"`
					Linebreak bool     `msgpack:"linebreak"`
				}
				e.lua(`local c = require('coder.approval').current()
					local ui = require('coder.ui').state
					local cfg = vim.api.nvim_win_get_config(c.win)
					local icfg = vim.api.nvim_win_get_config(ui.iwin)
					local pos = vim.api.nvim_win_get_position(c.win)
					local function eval(win)
						return vim.api.nvim_eval_statusline(vim.wo[win].statusline, {winid = win, maxwidth = vim.api.nvim_win_get_width(win)})
					end
					-- The width the text takes without padding or truncation.
					local function natural(win)
						local f = vim.wo[win].statusline:gsub('%%=', ''):gsub('%%<', '')
						return vim.api.nvim_eval_statusline(f, {winid = win, maxwidth = 1000}).str
					end
					local s, h = eval(ui.twin), eval(ui.iwin)
					return {lines = vim.api.nvim_buf_get_lines(c.buf, 0, -1, false), width = cfg.width,
						right = pos[2] + cfg.width + 2, status = s.str, status_w = vim.fn.strdisplaywidth(
						natural(ui.twin)),
						twin_w = vim.api.nvim_win_get_width(ui.twin), hints = h.str, hints_w = vim.fn.strdisplaywidth(
						natural(ui.iwin)),
						iwin_w = vim.api.nvim_win_get_width(ui.iwin), z = cfg.zindex or 50, input_z = icfg.zindex or 0,
						indent = vim.wo[ui.twin].breakindent, linebreak = vim.wo[ui.twin].linebreak}`, &info)
				if info.Lines[0] != " write calc.go" {
					t.Errorf("float title %q, want %q", info.Lines[0], " write calc.go")
				}
				for _, l := range info.Lines {
					if w := utf8.RuneCountInString(l); w > info.Width {
						t.Errorf("float line wider (%d) than the float (%d): %q", w, info.Width, l)
					}
				}
				if info.Right > size.cols {
					t.Errorf("the float ends at column %d of %d", info.Right, size.cols)
				}
				text := strings.Join(info.Lines, " ")
				for _, want := range []string{"why:", "deny", "always"} {
					if !strings.Contains(text, want) {
						t.Errorf("float lacks %q:\n%s", want, strings.Join(info.Lines, "\n"))
					}
				}
				if info.StatusW > info.TwinW || !strings.Contains(info.Status, "default") {
					t.Errorf("status line %q (%d cells) in a %d-column window", info.Status, info.StatusW, info.TwinW)
				}
				if info.HintsW > info.IwinW || !strings.Contains(info.Hints, "<CR> send") {
					t.Errorf("input status %q (%d cells) in a %d-column window", info.Hints, info.HintsW, info.IwinW)
				}
				if layout == "float" && info.Zindex <= info.InputZ {
					t.Errorf("approval float zindex %d, input float %d: drawn under the chat", info.Zindex, info.InputZ)
				}
				if !info.Indent || !info.Linebreak {
					t.Errorf("transcript breakindent=%v linebreak=%v", info.Indent, info.Linebreak)
				}
				e.input("n")
				e.waitIdle(10 * time.Second)
				// In Insert mode the hint names the Insert-mode send key.
				e.lua(`vim.api.nvim_set_current_win(require('coder.ui').state.iwin)`, nil)
				e.input("i")
				e.waitFor("the Insert-mode hint", 5*time.Second, func() bool {
					var s string
					e.lua(`local w = require('coder.ui').state.iwin
						return vim.api.nvim_eval_statusline(vim.wo[w].statusline, {winid = w}).str`, &s)
					return strings.Contains(s, "<C-s> send")
				})
				e.input("<Esc>")
			})
		}
	}
}

// Complex-task detection looks at what the user typed, not at the
// selection sent with it.
func TestSelectionIsNotAComplexTask(t *testing.T) {
	e := newEditor(t, editorOpts{})
	path := filepath.Join(e.dir, "big.go")
	writeFile(t, path, "package big\n\n"+strings.Repeat("// refactor, migrate, then test and document every step; also rename it\n", 40))
	e.cmd("edit " + path)
	e.llm.Enqueue(fakellm.Reply{Content: "it is comments"})
	e.start()
	e.lua(`vim.api.nvim_set_current_win(vim.fn.win_findbuf(vim.fn.bufnr(...))[1])`, nil, path)
	e.cmd("1,42Coder explain")
	e.waitFor("the answer", 10*time.Second, func() bool { return strings.Contains(e.transcript(), "it is comments") })
	e.waitIdle(5 * time.Second)
	if tr := e.transcript(); strings.Contains(tr, "complex task") {
		t.Fatalf("a short question with a long selection started a todo list:\n%s", tr)
	}
	// The same text typed is a complex task: the model gets its note, the
	// transcript stays quiet — the message as typed, no notice, no Todos
	// block before the model writes one (issue 39, newcomer run 6) —, and
	// so does the conversation's replay.
	const typed = "1. refactor the loader 2. migrate the tests 3. update the docs"
	e.llm.Enqueue(fakellm.Reply{Content: "planned"})
	e.run("Coder " + typed)
	reqs := e.llm.Requests()
	if m := reqs[len(reqs)-1].Messages; !strings.Contains(m[len(m)-1].Content, "complex, multi-step task") {
		t.Errorf("the model did not get the complex task's note: %q", m[len(m)-1].Content)
	}
	var replay string
	e.lua(`local chunks = assert(require('coder.host').request('coder_transcript', 'root'))
		local out = {}
		for _, c in ipairs(chunks) do table.insert(out, c[1]) end
		return table.concat(out)`, &replay)
	for name, text := range map[string]string{"transcript": e.transcript(), "replay": replay} {
		if !strings.Contains(text, typed+"\n") || strings.Contains(text, "[note]") || strings.Contains(text, "complex task") || strings.Contains(text, "Todos:") {
			t.Errorf("the %s is not quiet about the complex task:\n%s", name, text)
		}
	}
}

// Back from another tab (the /diff tab), the transcript shows its end, not
// a blank window.
func TestTranscriptAfterAnotherTab(t *testing.T) {
	e := newEditor(t, editorOpts{})
	if err := e.v.AttachUI(80, 24, map[string]any{"ext_linegrid": true}); err != nil {
		t.Fatalf("attach ui: %v", err)
	}
	writeFile(t, filepath.Join(e.dir, "a.txt"), "hi\n")
	e.start()
	e.cmd("Coder /help")
	e.waitFor("/help", 10*time.Second, func() bool { return strings.Contains(e.transcript(), "Commands:") })
	e.waitIdle(5 * time.Second)
	e.cmd("Coder /diff")
	e.waitFor("the diff tab", 10*time.Second, func() bool { return e.boolLua(`return #vim.api.nvim_list_tabpages() == 2`) })
	e.waitIdle(5 * time.Second)
	e.cmd("tabclose")
	var view struct {
		Top   int `msgpack:"top"`
		Bot   int `msgpack:"bot"`
		Lines int `msgpack:"lines"`
	}
	e.lua(`local w = require('coder.ui').state.twin
		vim.cmd('redraw')
		return vim.api.nvim_win_call(w, function()
			return {top = vim.fn.line('w0'), bot = vim.fn.line('w$'), lines = vim.fn.line('$')}
		end)`, &view)
	if view.Bot != view.Lines || view.Bot-view.Top < 5 {
		t.Fatalf("transcript window shows lines %d-%d of %d: not the end of the chat", view.Top, view.Bot, view.Lines)
	}
}

// The diff review's added lines keep their tab indentation.
func TestReviewVirtualLinesKeepTabs(t *testing.T) {
	e := newEditor(t, editorOpts{})
	path := filepath.Join(e.dir, "calc.go")
	writeFile(t, path, "package calc\n\nfunc Add(a, b int) int {\n\treturn a + b\n}\n")
	e.cmd("edit " + path)
	e.cmd("setlocal tabstop=4")
	e.llm.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("call_r", "read", map[string]string{"path": "calc.go"})}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("call_e", "edit", map[string]string{"path": "calc.go", "old_string": "\treturn a + b", "new_string": "\tsum := a + b\n\treturn sum"})}},
		fakellm.Reply{Content: "edited"},
	)
	e.start()
	e.cmd("Coder change calc.go")
	e.waitApproval()
	var virt []string
	e.lua(`local buf = vim.fn.bufnr(...)
		local ns = vim.api.nvim_create_namespace('coder_review')
		local out = {}
		for _, m in ipairs(vim.api.nvim_buf_get_extmarks(buf, ns, 0, -1, {details = true})) do
			for _, l in ipairs(m[4].virt_lines or {}) do
				local s = ''
				for _, c in ipairs(l) do s = s .. c[1] end
				table.insert(out, s)
			end
		end
		return out`, &virt, path)
	want := []string{"+     sum := a + b", "+     return sum"}
	if strings.Join(virt, "|") != strings.Join(want, "|") {
		t.Fatalf("virtual lines %q, want %q", virt, want)
	}
	e.input("n")
	e.waitIdle(10 * time.Second)
}

// TestBrokenUserConfig: a user config with an unknown key says why the
// session cannot open in the chat and the status line (not "starting…"
// for good); input sent meanwhile goes back to the input, and sent again
// once the file is fixed, it runs (issue 39, newcomer run 2).
func TestBrokenUserConfig(t *testing.T) {
	e := newEditor(t, editorOpts{})
	userFile := filepath.Join(filepath.Dir(e.dir), "config", "coder", "config.json")
	writeFile(t, userFile, `{"mood": "plan"}`)
	e.cmd("Coder open")
	e.waitFor("the error in the chat and the status", 10*time.Second, func() bool {
		return strings.Contains(e.transcript(), `unknown key "mood"`) && strings.Contains(e.statusLine(), `unknown key "mood"`)
	})
	send := func() {
		e.lua(`local ui = require('coder.ui')
			vim.api.nvim_set_current_win(ui.state.iwin)
			vim.cmd('stopinsert')`, nil)
		e.input("<CR>")
	}
	e.lua(`vim.api.nvim_buf_set_lines(require('coder.ui').input_buf(), 0, -1, false, {'my precious question'})`, nil)
	send()
	e.waitFor("the input given back", 10*time.Second, func() bool {
		return strings.Count(e.transcript(), `unknown key "mood"`) == 2 && strings.Join(e.inputLines(), "\n") == "my precious question"
	})
	if n := len(e.llm.Requests()); n != 0 {
		t.Fatalf("%d requests reached the model without a session", n)
	}

	writeFile(t, userFile, `{}`)
	e.llm.Enqueue(fakellm.Reply{Content: "answered at last"})
	send()
	e.waitFor("the input to run once the file is fixed", 10*time.Second, func() bool {
		return strings.Contains(e.transcript(), "answered at last")
	})
	reqs := e.llm.Requests()
	if m := reqs[len(reqs)-1].Messages; !strings.Contains(m[len(m)-1].Content, "my precious question") {
		t.Errorf("the model got %q, not the kept input", m[len(m)-1].Content)
	}
	if s := e.statusLine(); strings.Contains(s, "✗") || !strings.Contains(s, "gpt-4o-mini") {
		t.Errorf("status after the fix = %q", s)
	}
}
