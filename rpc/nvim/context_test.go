package nvimhost

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
)

// onePNG is a 1x1 PNG.
const onePNG = "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\x00\x01\x00\x00\x05\x00\x01\r\n-\xb4\x00\x00\x00\x00IEND\xaeB`\x82"

func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(cmd.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@e", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@e")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v %s", args, err, out)
	}
}

// lastUser is the last user message of the last request the model got.
func lastUser(e *editor) (string, int) {
	reqs := e.llm.Requests()
	if len(reqs) == 0 {
		return "", 0
	}
	msgs := reqs[len(reqs)-1].Messages
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "user" {
			return msgs[i].Content, len(msgs[i].Images)
		}
	}
	return "", 0
}

// TestContextMentions: every mention reaches the model's request, typed
// in the chat input: #buffer the unsaved text of the buffer the chat was
// opened from, #selection, #diagnostics, #quickfix (with line texts),
// #diff, @path, @path:range, @image.png (an image part), and a missing
// file is one line in the transcript while the message goes anyway.
func TestContextMentions(t *testing.T) {
	e := newEditor(t, editorOpts{})
	writeFile(t, filepath.Join(e.dir, "main.go"), "package main\n\nfunc main() {}\n")
	writeFile(t, filepath.Join(e.dir, "notes.txt"), "alpha\nbeta\ngamma\n")
	gitIn(t, e.dir, "add", "main.go", "notes.txt")
	gitIn(t, e.dir, "commit", "-qm", "init")
	writeFile(t, filepath.Join(e.dir, "notes.txt"), "alpha\nbeta\nGAMMA-CHANGED\n")
	writeFile(t, filepath.Join(e.dir, "shot.png"), onePNG)
	e.cmd("filetype on")
	e.cmd("edit main.go")
	e.lua(`
		local buf = vim.api.nvim_get_current_buf()
		vim.api.nvim_buf_set_lines(buf, 2, 3, false, {'func main() { println("UNSAVED-EDIT") }'})
		vim.cmd('normal! 1GVj')
		vim.cmd('exe "normal! \\<Esc>"')
		local ns = vim.api.nvim_create_namespace('test')
		vim.diagnostic.set(ns, buf, {{lnum = 2, col = 0, severity = vim.diagnostic.severity.ERROR, message = 'DIAG-MSG undefined: x', source = 'gopls'}})
		vim.fn.setqflist({{bufnr = buf, lnum = 3, col = 1, text = 'QF-ENTRY here'}})
	`, nil)
	e.llm.Enqueue(fakellm.Reply{Content: "seen"})
	e.start()
	n := e.turnsDone()
	e.lua(`local ui = require('coder.ui')
		vim.api.nvim_buf_set_lines(ui.input_buf(), 0, -1, false, {'explain #buffer #selection #diagnostics #quickfix', '#diff @notes.txt @notes.txt:2-3 @shot.png @missing.txt #1 #include'})
		ui.send_input()`, nil)
	e.waitFor("the turn's end", 10*time.Second, func() bool { return e.turnsDone() > n })
	user, images := lastUser(e)
	for _, want := range []string{
		"explain #buffer #selection #diagnostics #quickfix\n#diff @notes.txt @notes.txt:2-3 @shot.png @missing.txt #1 #include\n\n",
		"[context #buffer main.go · go · 3 lines · unsaved edits included]\n```go\npackage main\n\nfunc main() { println(\"UNSAVED-EDIT\") }\n```",
		"[context #selection main.go:1-2 · go · 2 lines · unsaved edits included]\n```go\npackage main\n\n```",
		"ERROR line 3:1 [gopls]: DIAG-MSG undefined: x\n    | func main() { println(\"UNSAVED-EDIT\") }",
		"main.go:3:1: QF-ENTRY here\n    | func main()",
		"[context #diff · diff",
		"+GAMMA-CHANGED",
		"[context @notes.txt · txt · 3 lines]",
		"[context @notes.txt:2-3 · txt · 2 lines]\n```txt\nbeta\nGAMMA-CHANGED\n```",
		"[context @shot.png · image, 67 B · attached as image 1]",
		"[context @missing.txt · not attached: no such file or directory in the workspace]",
	} {
		if !strings.Contains(user, want) {
			t.Errorf("%s: the request lacks %q:\n%s", nvimVersion(), want, user)
		}
	}
	if images != 1 {
		t.Errorf("%d image parts, want 1", images)
	}
	tr := e.transcript()
	for _, want := range []string{
		"▸ #buffer main.go (go, 3 lines, unsaved edits included)",
		"▸ #quickfix (2 lines, 1 entry)",
		"✗ @missing.txt — not attached: no such file or directory in the workspace",
	} {
		if !strings.Contains(tr, want) {
			t.Errorf("the transcript lacks %q:\n%s", want, tr)
		}
	}
	if strings.Contains(tr, "UNSAVED-EDIT") {
		t.Errorf("the transcript shows the attached text itself:\n%s", tr)
	}
	// gO on an item's line opens what was attached.
	e.lua(`local ui = require('coder.ui')
		vim.api.nvim_set_current_win(vim.fn.bufwinid(ui.transcript_buf()))
		local lines = vim.api.nvim_buf_get_lines(0, 0, -1, false)
		for i, l in ipairs(lines) do if l:find('▸ #buffer', 1, true) then vim.api.nvim_win_set_cursor(0, {i, 0}) end end
		ui.open_full()`, nil)
	var opened string
	e.lua(`return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')`, &opened)
	if !strings.Contains(opened, "UNSAVED-EDIT") {
		t.Errorf("gO on the #buffer line opened:\n%s", opened)
	}
}

// TestContextCapsAndErrors: a 10 MB buffer is sent capped with a note
// saying how much; #buffer:NAME of no buffer and #terminal without one are
// each one line, and the message still goes.
func TestContextCapsAndErrors(t *testing.T) {
	e := newEditor(t, editorOpts{})
	e.cmd("enew")
	e.lua(`local lines = {}
		for i = 1, 100000 do lines[i] = string.rep('x', 99) end
		vim.api.nvim_buf_set_lines(0, 0, -1, false, lines)
		vim.api.nvim_buf_set_name(0, 'big.txt')`, nil)
	e.llm.Enqueue(fakellm.Reply{Content: "ok"})
	e.start()
	e.run("Coder look #buffer #buffer:nope #terminal")
	user, _ := lastUser(e)
	for _, want := range []string{
		"[context #buffer big.txt · 655 lines · unsaved edits included · cut: the first 655 lines, 64 KiB of 9.5 MiB sent (per-item cap 64 KiB)]",
		"[context #buffer nope · not attached: no listed buffer is named nope]",
		"[context #terminal · not attached: no terminal buffer]",
	} {
		if !strings.Contains(user, want) {
			t.Errorf("%s: the request lacks %q:\n%.2000s", nvimVersion(), want, user)
		}
	}
	if len(user) > 70<<10 {
		t.Errorf("the request carries %d bytes", len(user))
	}
}

// TestInputOmnifunc: the input's omnifunc completes @ paths (from the
// host, asynchronously: the first call returns what is ready), # mention
// names and / commands.
func TestInputOmnifunc(t *testing.T) {
	e := newEditor(t, editorOpts{})
	writeFile(t, filepath.Join(e.dir, "notes.txt"), "n\n")
	writeFile(t, filepath.Join(e.dir, "src", "other.go"), "package src\n")
	e.llm.SetModels([]string{"test-large", "test-small", "other"})
	e.start()
	var omni string
	e.lua(`return vim.bo[require('coder.ui').input_buf()].omnifunc`, &omni)
	if omni == "" {
		t.Fatal("the input has no omnifunc")
	}
	complete := func(line string) []string {
		var words []string
		e.lua(`local line = ...
			local ui = require('coder.ui')
			vim.api.nvim_set_current_win(vim.fn.bufwinid(ui.input_buf()))
			vim.api.nvim_buf_set_lines(0, 0, -1, false, {line})
			vim.api.nvim_win_set_cursor(0, {1, #line})
			local c = require('coder.complete')
			local start = c.omnifunc(1, '')
			if start < 0 then return {} end
			local out = {}
			for _, it in ipairs(c.omnifunc(0, line:sub(start + 1))) do table.insert(out, it.word) end
			return out`, &words, line)
		return words
	}
	has := func(list []string, w string) bool {
		for _, x := range list {
			if x == w {
				return true
			}
		}
		return false
	}
	first := complete("see @not")
	e.waitFor("the host's @ answer", 10*time.Second, func() bool { return has(complete("see @not"), "@notes.txt") })
	t.Logf("first call (what was ready): %q", first)
	if got := complete("see @not"); got[0] != "@notes.txt" {
		t.Errorf("@not: %q", got)
	}
	if got := complete("#dia"); len(got) != 1 || got[0] != "#diagnostics" {
		t.Errorf("#dia: %q", got)
	}
	if got := complete("/mo"); !has(got, "/model") {
		t.Errorf("/mo: %q", got)
	}
	if got := complete("word"); len(got) != 0 {
		t.Errorf("a plain word: %q", got)
	}
	e.waitFor("the model names", 10*time.Second, func() bool { return has(complete("/model tes"), "test-small") })
	// <C-x><C-o> in Insert mode: no E764, and the host's answer shows the menu.
	e.lua(`vim.api.nvim_buf_set_lines(0, 0, -1, false, {''})`, nil)
	e.input("i@oth<C-x><C-o>")
	e.waitFor("the completion menu", 10*time.Second, func() bool {
		return e.boolLua(`return vim.fn.pumvisible() == 1 or vim.api.nvim_get_current_line() == '@src/other.go'`)
	})
	e.input("<Esc>")
	if strings.Contains(e.notes(), "E764") {
		t.Errorf("notes: %s", e.notes())
	}
}

// TestCodeBlockKeys: gy yanks the code block under the cursor, ]] and [[
// move between blocks.
func TestCodeBlockKeys(t *testing.T) {
	e := newEditor(t, editorOpts{})
	e.llm.Enqueue(fakellm.Reply{Content: "First:\n\n```go\nfunc a() {}\n```\n\nSecond:\n\n```sh\necho b\necho c\n```\n"})
	e.start()
	e.run("Coder show code")
	e.lua(`vim.api.nvim_set_current_win(vim.fn.bufwinid(require('coder.ui').transcript_buf()))
		vim.api.nvim_win_set_cursor(0, {1, 0})`, nil)
	e.input("]]")
	var line string
	e.lua(`return vim.api.nvim_get_current_line()`, &line)
	if strings.TrimSpace(line) != "func a() {}" {
		t.Errorf("]] went to %q", line)
	}
	e.input("]]gy")
	var reg string
	e.lua(`return vim.fn.getreg('"')`, &reg)
	if reg != "echo b\necho c\n" {
		t.Errorf("gy yanked %q", reg)
	}
	e.input("[[")
	e.lua(`return vim.api.nvim_get_current_line()`, &line)
	if strings.TrimSpace(line) != "func a() {}" {
		t.Errorf("[[ went to %q", line)
	}
}

// TestDiagnosticsAllWithholdsOutside: #diagnostics:all sends the
// diagnostics of the workspace's buffers, while a buffer outside the
// workspace gives away neither its path, its messages nor its line text;
// the model is told something was withheld.
func TestDiagnosticsAllWithholdsOutside(t *testing.T) {
	e := newEditor(t, editorOpts{})
	writeFile(t, filepath.Join(e.dir, "main.go"), "package main\n\nfunc main() {}\n")
	outside := filepath.Join(t.TempDir(), "secret-dir", "creds.txt")
	writeFile(t, outside, "OUTSIDE-LINE-TEXT\n")
	e.lua(`local ns = vim.api.nvim_create_namespace('test')
		vim.cmd('edit ' .. vim.fn.fnameescape(...))
		vim.diagnostic.set(ns, 0, {{lnum = 0, col = 0, severity = vim.diagnostic.severity.WARN, message = 'OUTSIDE-MSG'}})
		vim.cmd('edit main.go')
		vim.diagnostic.set(ns, 0, {{lnum = 2, col = 0, severity = vim.diagnostic.severity.ERROR, message = 'INSIDE-MSG'}})`, nil, outside)
	e.llm.Enqueue(fakellm.Reply{Content: "seen"})
	e.start()
	n := e.turnsDone()
	e.lua(`local ui = require('coder.ui')
		vim.api.nvim_buf_set_lines(ui.input_buf(), 0, -1, false, {'fix #diagnostics:all'})
		ui.send_input()`, nil)
	e.waitFor("the turn's end", 10*time.Second, func() bool { return e.turnsDone() > n })
	user, _ := lastUser(e)
	if !strings.Contains(user, "INSIDE-MSG") || !strings.Contains(user, "withheld") {
		t.Errorf("%s: the request lacks the workspace's diagnostics or the withheld note:\n%s", nvimVersion(), user)
	}
	for _, leak := range []string{"OUTSIDE-MSG", "OUTSIDE-LINE-TEXT", "secret-dir", "creds.txt"} {
		if strings.Contains(user, leak) {
			t.Errorf("%s: the request holds %q from outside the workspace:\n%s", nvimVersion(), leak, user)
		}
	}
}
