package nvimhost

import (
	"fmt"
	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTrustFloat: a repository's untrusted .coder/config.json asking for an
// MCP server, a hook and yolo is held back; the float lists what it asks
// for, and only the user's `t` applies it.
func TestTrustFloat(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "mcp-ran")
	hookMarker := filepath.Join(t.TempDir(), "hook-ran")
	e := newEditor(t, editorOpts{untrusted: true,
		config: `{"mcpServers": {"helper": {"command": "sh", "args": ["mcp.sh"]}}, "mode": "yolo",
			"hooks": {"session_start": [{"command": "touch ` + hookMarker + `"}]}}`})
	writeFile(t, filepath.Join(e.dir, "mcp.sh"), "#!/bin/sh\ntouch "+marker+"\n")
	e.start()
	e.waitFor("the trust float", 10*time.Second, func() bool { return e.boolLua(`return require('coder.trust').pending()`) })
	float := e.floatText()
	for _, want := range []string{"is not trusted", `mcpServers.helper: runs "sh mcp.sh"`, `mode: "yolo"`, "t trust",
		`hooks.session_start[0]: runs "touch ` + hookMarker} {
		if !strings.Contains(float, want) {
			t.Errorf("float lacks %q:\n%s", want, float)
		}
	}
	var mode string
	e.lua(`return require('coder').state().mode`, &mode)
	if mode != "default" {
		t.Errorf("mode before trust = %q, want default", mode)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the repository's MCP server ran before the user trusted it")
	}
	if _, err := os.Stat(hookMarker); err == nil {
		t.Fatal("the repository's hook ran before the user trusted it")
	}

	e.trustAndWaitMode("yolo")
	e.waitFor("the trusted MCP server to start", 10*time.Second, func() bool {
		_, err := os.Stat(marker)
		return err == nil
	})
	e.waitFor("the trusted session_start hook to run", 10*time.Second, func() bool {
		_, err := os.Stat(hookMarker)
		return err == nil
	})
	// :checkhealth lists the hooks now in force.
	e.cmd("checkhealth coder")
	var report string
	e.lua(`return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')`, &report)
	if !strings.Contains(report, `session_start[0]: runs "touch `+hookMarker) {
		t.Errorf("health report lacks the hook:\n%s", report)
	}
}

// TestTrustMidSession: trusting the project's config after turns ran
// reopens the session under its settings: /status shows the mode it asks
// for, not the narrower one the session was saved with (issue 39,
// newcomer run 3). A setting the file does not make keeps what the
// session had.
func TestTrustMidSession(t *testing.T) {
	e := newEditor(t, editorOpts{untrusted: true, config: `{"mode": "auto-edit"}`})
	e.llm.Enqueue(fakellm.Reply{Content: "first answer"})
	e.start()
	e.waitFor("the trust float", 10*time.Second, func() bool { return e.boolLua(`return require('coder.trust').pending()`) })
	e.input("q")
	e.run("Coder hello")
	e.run("Coder /permissions strict")
	e.run("Coder /status")
	if tr := e.transcript(); !strings.Contains(tr, "mode: default, permissions: strict") {
		t.Fatalf("before trust /status lacks mode default, permissions strict:\n%s", tr)
	}
	e.cmd("Coder trust")
	e.waitFor("the trust float", 10*time.Second, func() bool { return e.boolLua(`return require('coder.trust').pending()`) })
	e.trustAndWaitMode("auto-edit")
	e.run("Coder /status")
	tr := e.transcript()
	if i := strings.LastIndex(tr, "mode: "); i < 0 || !strings.HasPrefix(tr[i:], "mode: auto-edit, permissions: strict") {
		t.Errorf("/status after trust does not show mode auto-edit with the session's strict permissions:\n%s", tr)
	}
	if !strings.Contains(tr, "first answer") {
		t.Errorf("the reopened session lost the transcript:\n%s", tr)
	}
}

// TestResumeNoticeShown: a session resumed at the host's start (here: one
// this machine has no record of creating) says in the transcript that it
// runs in plan mode.
func TestResumeNoticeShown(t *testing.T) {
	e := newEditor(t, editorOpts{config: `{"mode": "auto-edit"}`})
	e.llm.Enqueue(fakellm.Reply{Content: "first"})
	e.start()
	e.run("Coder hello")
	// Forget that this machine created it, then restart the host.
	state := filepath.Join(filepath.Dir(e.dir), "state", "coder-nvim", "sessions")
	if err := os.RemoveAll(state); err != nil {
		t.Fatal(err)
	}
	e.lua(`require('coder.host').stop()`, nil)
	e.waitFor("the host to stop", 10*time.Second, func() bool { return !e.boolLua(`return require('coder.host').running()`) })
	e.cmd("Coder open")
	e.waitFor("the resume notice", 10*time.Second, func() bool {
		return strings.Contains(e.transcript(), "not created on this machine")
	})
	var mode string
	e.lua(`local s = require('coder').state(); return s and s.mode or ''`, &mode)
	if mode != "plan" {
		t.Errorf("mode after resume = %q, want plan", mode)
	}
}

// trustAndWaitMode trusts the file in the open float (t, then Enter) and
// waits for the session to reopen in mode.
func (e *editor) trustAndWaitMode(mode string) {
	e.t.Helper()
	e.input("t")
	e.waitFor("the confirmation", 10*time.Second, func() bool { return strings.Contains(e.floatText(), "Enter: trust it as shown") })
	e.input("<CR>")
	e.waitFor("the session reopened under the trusted file", 10*time.Second, func() bool {
		var m string
		_ = e.v.ExecLua(`local s = require('coder').state(); return s and s.mode or ''`, &m)
		return m == mode
	})
}

// floatText is the text of the current window (the trust float).
func (e *editor) floatText() string {
	var text string
	e.lua(`return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')`, &text)
	return text
}

// TestTrustFloatBindsShownBytes: the float shows everything that applies
// on trust (an MCP server's env and cwd, lsp settings), sized so that its
// key line stays in view; keys typed for another window (t,) trust
// nothing; a file changed after it was shown is not trusted at the
// keypress but shown again; only the content shown, confirmed, is
// trusted.
func TestTrustFloatBindsShownBytes(t *testing.T) {
	long := strings.Repeat("x", 300)
	shown := `{"mcpServers": {"helper": {"command": "npx", "args": ["-y", "` + long + `"], "env": {"BASH_ENV": "tools/env.sh"}, "cwd": "tools"}},
		"lsp": {"timeout": "9s"}}`
	e := newEditor(t, editorOpts{untrusted: true, config: shown})
	e.start()
	e.waitFor("the trust float", 10*time.Second, func() bool { return e.boolLua(`return require('coder.trust').pending()`) })
	float := e.floatText()
	for _, want := range []string{`with env {"BASH_ENV":"tools/env.sh"}`, `in "tools"`, `lsp: {"settle":`, `"timeout":"9s"`} {
		if !strings.Contains(float, want) {
			t.Errorf("float lacks %q:\n%s", want, float)
		}
	}
	var fits bool
	e.lua(`local w = vim.api.nvim_get_current_win()
		local rows = vim.api.nvim_win_text_height and vim.api.nvim_win_text_height(w, {}).all or vim.fn.line('$')
		return rows <= vim.api.nvim_win_get_height(w)`, &fits)
	if !fits {
		t.Errorf("the float is shorter than its wrapped rows:\n%s", float)
	}
	state := filepath.Join(filepath.Dir(e.dir), "state", "coder-nvim", "trusted-workspaces.json")
	trustedNow := func() bool {
		data, _ := os.ReadFile(state)
		return strings.Contains(string(data), e.dir)
	}

	// Type-ahead: t then a motion's character trusts nothing.
	e.input("t,")
	e.waitFor("the confirmation", 10*time.Second, func() bool { return strings.Contains(e.floatText(), "Enter: trust it as shown") })
	if trustedNow() {
		t.Fatal("t, trusted the file")
	}

	// The file changes while shown: Enter trusts nothing and the float
	// shows the new content.
	writeFile(t, filepath.Join(e.dir, ".coder", "config.json"), `{"mode": "yolo"}`)
	e.input("<CR>")
	e.waitFor("the float showing the changed file", 10*time.Second, func() bool {
		return e.boolLua(`return require('coder.trust').pending()`) && strings.Contains(e.floatText(), `mode: "yolo"`)
	})
	if trustedNow() {
		t.Fatal("a file changed since it was shown was trusted")
	}
	e.input("t")
	e.waitFor("the confirmation", 10*time.Second, func() bool { return strings.Contains(e.floatText(), "Enter: trust it as shown") })
	e.input("<CR>")
	e.waitFor("the trust record", 10*time.Second, trustedNow)
	e.waitFor("the session reopened under the trusted file", 10*time.Second, func() bool {
		var m string
		_ = e.v.ExecLua(`local s = require('coder').state(); return s and s.mode or ''`, &m)
		return m == "yolo"
	})
}

// TestTrustRefusedWhileTurnRuns: trusting while a turn runs is refused
// with a clear message, and nothing is recorded (the record would apply at
// the next start while this session goes on untrusted).
func TestTrustRefusedWhileTurnRuns(t *testing.T) {
	e := newEditor(t, editorOpts{untrusted: true, config: `{"mode": "yolo"}`})
	e.llm.Enqueue(fakellm.Reply{Hang: true})
	e.start()
	e.waitFor("the trust float", 10*time.Second, func() bool { return e.boolLua(`return require('coder.trust').pending()`) })
	e.input("r")
	e.cmd("Coder hello")
	e.waitFor("the turn to run", 10*time.Second, func() bool {
		return e.boolLua(`local s = require('coder').state(); return s ~= nil and s.busy == true`)
	})
	var msg string
	e.lua(`local res, err = require('coder.host').request('coder_trust', require('coder.trust').last.hash)
		return tostring(err)`, &msg)
	if !strings.Contains(msg, "a turn is running") {
		t.Errorf("trust during a turn: %q", msg)
	}
	state := filepath.Join(filepath.Dir(e.dir), "state", "coder-nvim", "trusted-workspaces.json")
	if data, _ := os.ReadFile(state); strings.Contains(string(data), e.dir) {
		t.Errorf("trust recorded while a turn ran:\n%s", data)
	}
}

// TestTrustFloatLongList: on a 24-row screen, a 1,200-character value is
// cut ("… (N more characters)") and a list longer than the float says
// how many lines are below; `t` is refused until the last line (an MCP
// server's command) has been on screen, then asks as usual.
func TestTrustFloatLongList(t *testing.T) {
	var servers []string
	for i := range 20 {
		servers = append(servers, fmt.Sprintf(`"a%02d": {"command": "true"}`, i))
	}
	servers = append(servers, `"zz": {"command": "sh", "args": ["evil.sh"]}`)
	cfg := `{"model": "` + strings.Repeat(" ", 1200) + `", "mcpServers": {` + strings.Join(servers, ", ") + `}}`
	e := newEditor(t, editorOpts{untrusted: true, config: cfg})
	e.start()
	e.waitFor("the trust float", 10*time.Second, func() bool { return e.boolLua(`return require('coder.trust').pending()`) })
	var rows, height int
	e.lua(`return vim.o.lines`, &rows)
	if rows != 24 {
		t.Fatalf("the screen has %d rows, want 24", rows)
	}
	if f := e.floatText(); !strings.Contains(f, "(1140 more characters)") {
		t.Errorf("the long model value is not cut:\n%s", f)
	}
	// botline: the last line wholly on screen; zz's is the float's last.
	view := func() (bot, last int, more string) {
		var r []any
		e.lua(`local w = vim.api.nvim_get_current_win()
			local info = vim.fn.getwininfo(w)[1]
			local more = ''
			for _, win in ipairs(vim.api.nvim_list_wins()) do
				local l = vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(win), 0, 1, false)[1] or ''
				if l:find('more lines?: scroll with j/k') then more = l end
			end
			return { info.botline, vim.fn.line('$'), more, info.height }`, &r)
		height = int(r[3].(int64))
		return int(r[0].(int64)), int(r[1].(int64)), r[2].(string)
	}
	e.waitFor("the float drawn", 10*time.Second, func() bool { b, _, _ := view(); return b > 0 })
	bot, last, more := view()
	if !strings.Contains(e.floatText(), `mcpServers.zz: runs "sh evil.sh"`) {
		t.Fatalf("the MCP line is not in the float:\n%s", e.floatText())
	}
	if bot >= last {
		t.Fatalf("the list fits (%d of %d lines, height %d): the test needs a longer one", bot, last, height)
	}
	if want := fmt.Sprintf(" %d more lines: scroll with j/k ", last-bot); more != want {
		t.Errorf("the note below the float = %q, want %q", more, want)
	}
	e.input("t")
	e.waitFor("the refusal", 10*time.Second, func() bool {
		return strings.Contains(e.notes(), "read the whole list before trusting it")
	})
	if strings.Contains(e.floatText(), "Enter: trust it as shown") {
		t.Fatal("t asked to trust before the MCP line was on screen")
	}
	// Scrolling to the bottom shows it, the note goes, and t asks.
	for range last {
		e.input("j")
	}
	e.waitFor("the last line on screen", 10*time.Second, func() bool { b, l, m := view(); return b == l && m == "" })
	e.input("t")
	e.waitFor("the confirmation", 10*time.Second, func() bool { return strings.Contains(e.floatText(), "Enter: trust it as shown") })
	e.input("r")
}
