package nvimhost

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/mcp/elicitserver"
)

// An MCP server's form during a tool call opens a float: an incomplete
// form is not sent, the typed values go back typed, a decline goes back
// as decline, and a URL is opened only on the user's key.
func TestElicitationForm(t *testing.T) {
	srv := elicitserver.New()
	t.Cleanup(srv.Close)
	e := newEditor(t, editorOpts{setup: `{mcp_servers = {ask = {url = '` + srv.URL + `', trusted = true}}}`})
	e.llm.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("call_1", "ask__signup", map[string]any{})}},
		fakellm.Reply{Content: "signed up"},
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("call_2", "ask__signup", map[string]any{})}},
		fakellm.Reply{Content: "declined"},
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("call_3", "ask__visit", map[string]any{})}},
		fakellm.Reply{Content: "visited"},
	)
	e.start()
	open := func() bool {
		return e.boolLua(`local c = require('coder.elicit').current(); return c ~= nil and vim.api.nvim_get_current_win() == c.win`)
	}
	floatText := func() string {
		var s string
		e.lua(`local c = require('coder.elicit').current(); return c and table.concat(vim.api.nvim_buf_get_lines(c.buf, 0, -1, false), "\n") or ''`, &s)
		return s
	}
	e.lua(`require('coder').send('sign me up')`, nil)
	e.waitFor("the form float", 30*time.Second, open)
	if text := floatText(); !strings.Contains(text, "Who are you?") || !strings.Contains(text, "Name*") || !strings.Contains(text, "(red, green, blue)") {
		t.Fatalf("form float:\n%s", text)
	}
	e.input("a") // required fields empty: not sent
	e.waitFor("the form's complaint", 5*time.Second, func() bool { return strings.Contains(floatText(), "Name*: required") })
	if !open() {
		t.Fatal("an incomplete form was sent")
	}
	if e.boolLua(`return require('coder.elicit').set('age', 'old')`) {
		t.Error("age 'old' was taken")
	}
	e.lua(`local m = require('coder.elicit'); m.set('name', 'Ada'); m.set('age', '36'); m.set('color', 'green')`, nil)
	// The boolean toggles with <CR> on its line.
	e.lua(`local c = require('coder.elicit').current()
		for i, l in ipairs(vim.api.nvim_buf_get_lines(c.buf, 0, -1, false)) do
			if l:find('subscribe') then vim.api.nvim_win_set_cursor(c.win, {i, 0}) end
		end`, nil)
	e.input("<CR>")
	e.waitFor("subscribe on", 5*time.Second, func() bool {
		return e.boolLua(`return require('coder.elicit').current().values.subscribe == true`)
	})
	e.input("a")
	e.waitIdle(30 * time.Second)
	want := `action=accept content={"age":36,"color":"green","name":"Ada","subscribe":true}`
	if got, _ := toolResult(e.llm.Requests(), "call_1"); got != want {
		t.Fatalf("tool result = %q, want %q", got, want)
	}
	if tr := e.transcript(); !strings.Contains(tr, "MCP server ask asks: Who are you?") || !strings.Contains(tr, "→ answered") {
		t.Errorf("transcript:\n%s", tr)
	}

	e.lua(`require('coder').send('again')`, nil)
	e.waitFor("the second form", 30*time.Second, open)
	e.input("d")
	e.waitIdle(30 * time.Second)
	if got, _ := toolResult(e.llm.Requests(), "call_2"); got != "action=decline content=null" {
		t.Fatalf("declined tool result = %q", got)
	}

	// The URL is opened only by the user's key; vim.ui.open is replaced
	// to see it (printed where there is none).
	e.lua(`_G.opened = {}; if vim.ui.open then vim.ui.open = function(u) table.insert(_G.opened, u) end end`, nil)
	e.lua(`require('coder').send('visit')`, nil)
	e.waitFor("the URL float", 30*time.Second, open)
	if text := floatText(); !strings.Contains(text, "https://example.invalid/login") {
		t.Fatalf("url float:\n%s", text)
	}
	if e.boolLua(`return #_G.opened > 0`) {
		t.Fatal("the URL was opened before the user said so")
	}
	e.input("o")
	e.waitIdle(30 * time.Second)
	if got, _ := toolResult(e.llm.Requests(), "call_3"); got != "action=accept content=null" {
		t.Fatalf("url tool result = %q", got)
	}
	if e.boolLua(`return vim.fn.has('nvim-0.10') == 1`) && !e.boolLua(`return _G.opened[1] == 'https://example.invalid/login'`) {
		t.Error("vim.ui.open was not given the URL")
	}
}

// TestTaskFormRetryReachesTheTask: a task's MCP form, answered with values
// that do not fit (refused, the question stays open), then answered
// again: the retry reaches the task's session, not the chat's.
func TestTaskFormRetryReachesTheTask(t *testing.T) {
	srv := elicitserver.New()
	t.Cleanup(srv.Close)
	e := newEditor(t, editorOpts{setup: `{mcp_servers = {ask = {url = '` + srv.URL + `', trusted = true}}}`})
	writeFile(t, filepath.Join(e.dir, ".gitignore"), ".coder/\n")
	gitOut(t, e.dir, "add", "-A")
	gitOut(t, e.dir, "commit", "-qm", "start")
	e.llm.SetScript(func(r fakellm.Request) fakellm.Reply {
		task, tools := false, 0
		for _, m := range r.Messages {
			task = task || (m.Role == llm.RoleUser && strings.Contains(m.Content, "TASK-F"))
			if m.Role == llm.RoleTool {
				tools++
			}
		}
		switch {
		case !task:
			return fakellm.Reply{Content: "chat answer"}
		case tools == 0:
			return fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("call_f", "ask__signup", map[string]any{})}}
		}
		return fakellm.Reply{Content: "TASK-F done."}
	})
	e.start()
	e.lua(`require('coder').send('/task --mode auto-edit TASK-F form')`, nil)
	var id string
	e.allowUntil("the task's form", func() bool {
		e.lua(`local c = require('coder.elicit').current(); return c and c.id or ''`, &id)
		return id != ""
	})
	answer := func(values map[string]any) string {
		var why string
		e.lua(`local id, v = ...; return require('coder.host').request('coder_answer_elicit', id, 'accept', v)`, &why, id, values)
		return why
	}
	if why := answer(map[string]any{"name": "Ada", "age": "old", "color": "green"}); why == "" {
		t.Fatal("an age of 'old' was taken")
	}
	if why := answer(map[string]any{"name": "Ada", "age": "36", "color": "green"}); why != "" {
		t.Fatalf("the retry was refused: %s", why)
	}
	e.waitTask(1, "done")
	want := `action=accept content={"age":36,"color":"green","name":"Ada"`
	if got, _ := toolResult(e.llm.Requests(), "call_f"); !strings.HasPrefix(got, want) {
		t.Errorf("the task's tool result = %q, want it to start with %q", got, want)
	}
}
