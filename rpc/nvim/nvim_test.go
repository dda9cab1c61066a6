package nvimhost

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
)

// numbered returns n deltas "t0000 " ... with a newline after every tenth,
// and their concatenation.
func numbered(n int) ([]string, string) {
	deltas := make([]string, n)
	var b strings.Builder
	for i := range deltas {
		d := fmt.Sprintf("t%05d ", i)
		if i%10 == 9 {
			d = fmt.Sprintf("t%05d\n", i)
		}
		deltas[i] = d
		b.WriteString(d)
	}
	return deltas, b.String()
}

// assertExactlyOnce checks the transcript holds the streamed text once,
// in order.
func assertExactlyOnce(t testing.TB, transcript, want string, n int) {
	t.Helper()
	if c := strings.Count(transcript, want); c != 1 {
		t.Fatalf("streamed text appears %d times in the transcript, want 1", c)
	}
	for i := 0; i < n; i += max(1, n/50) {
		tok := fmt.Sprintf("t%05d", i)
		if c := strings.Count(transcript, tok); c != 1 {
			t.Fatalf("token %s appears %d times, want 1", tok, c)
		}
	}
}

func TestStreamedAnswerInOrder(t *testing.T) {
	e := newEditor(t, editorOpts{})
	deltas, full := numbered(1500)
	e.llm.Enqueue(fakellm.Reply{Deltas: deltas, Interval: 300 * time.Microsecond, Reasoning: "thinking about it"})
	e.start()
	var demo bool
	e.lua(`return require('coder').state().demo`, &demo)
	if demo {
		t.Fatal("status says DEMO although OPENAI_BASE_URL is set")
	}
	// Typed in the input and sent with <C-s> from Insert mode.
	e.lua(`vim.api.nvim_set_current_win(require('coder.ui').state.iwin)`, nil)
	e.input("ihello there<C-s>")
	e.waitFor("the answer", 20*time.Second, func() bool { return strings.Contains(e.transcript(), "t01499\n") })
	e.waitIdle(10 * time.Second)
	tr := e.transcript()
	assertExactlyOnce(t, tr, full, len(deltas))
	for _, want := range []string{"## You\nhello there\n", "## Agent\n", "thinking about it"} {
		if !strings.Contains(tr, want) {
			t.Errorf("transcript lacks %q", want)
		}
	}
	var input []string
	e.lua(`return vim.api.nvim_buf_get_lines(require('coder.ui').state.ibuf, 0, -1, false)`, &input)
	if len(input) != 1 || input[0] != "" {
		t.Errorf("input not cleared after sending: %q", input)
	}
	if strings.Index(tr, "thinking about it") > strings.Index(tr, "t00000") {
		t.Error("reasoning should come before the answer")
	}
	var turns []string
	e.lua(`return _G.turns`, &turns)
	if strings.Join(turns, ",") != "CoderTurnStart:hello there,CoderTurnDone:end_turn" {
		t.Errorf("User autocmds: %q", turns)
	}
	var st string
	e.lua(`return require('coder').status()`, &st)
	if !strings.Contains(st, "ctx ") || !strings.Contains(st, "default") {
		t.Errorf("status() = %q, want context tokens and mode", st)
	}
	reqs := e.llm.Requests()
	if len(reqs) != 1 || reqs[0].Messages[len(reqs[0].Messages)-1].Content != "hello there" {
		t.Fatalf("the model got %d requests; last user message wrong", len(reqs))
	}
}

func TestApprovalFloat(t *testing.T) {
	for _, tc := range []struct {
		key     string
		created bool
		result  string // substring of the tool result the model sees
	}{
		{"y", true, ""},
		{"n", false, "denied by the user"},
		{"<Esc>", false, "denied by the user"},
		{"a", true, ""},
	} {
		t.Run(tc.key, func(t *testing.T) {
			e := newEditor(t, editorOpts{})
			cmd := "touch made.txt"
			e.llm.Enqueue(
				fakellm.Reply{Content: "running it", ToolCalls: []llm.ToolCall{toolCall("call_1", "bash", map[string]string{"command": cmd})}},
				fakellm.Reply{Content: "first done"},
			)
			e.start()
			e.cmd("Coder make the file")
			e.waitApproval()
			var info struct {
				Ft    string `msgpack:"ft"`
				Focus bool   `msgpack:"focus"`
				Text  string `msgpack:"text"`
			}
			e.lua(`local c = require('coder.approval').current()
				return {ft = vim.bo[c.buf].filetype, focus = vim.api.nvim_get_current_win() == c.win,
					text = table.concat(vim.api.nvim_buf_get_lines(c.buf, 0, -1, false), '\n')}`, &info)
			if info.Ft != "coder-approval" || !info.Focus {
				t.Fatalf("approval float: filetype %q, focused %v", info.Ft, info.Focus)
			}
			for _, want := range []string{"bash", cmd, "why:", "always: "} {
				if !strings.Contains(info.Text, want) {
					t.Errorf("approval float lacks %q:\n%s", want, info.Text)
				}
			}
			// The editor stays usable while the float is open.
			var two int
			e.lua(`return 1 + 1`, &two)
			e.input(tc.key)
			e.waitIdle(10 * time.Second)
			if e.approvalOpen() {
				t.Fatal("the float is still open after the answer")
			}
			_, err := os.Stat(filepath.Join(e.dir, "made.txt"))
			if created := err == nil; created != tc.created {
				t.Fatalf("made.txt created = %v, want %v", created, tc.created)
			}
			res, ok := toolResult(e.llm.Requests(), "call_1")
			if !ok {
				t.Fatal("the model never got the tool result")
			}
			if tc.result != "" && !strings.Contains(res, tc.result) {
				t.Fatalf("tool result %q lacks %q", res, tc.result)
			}
			if tc.result == "" && strings.Contains(res, "denied") {
				t.Fatalf("tool result %q says denied", res)
			}
			if tc.key != "a" {
				return
			}
			// "always": the same command runs again without asking.
			os.Remove(filepath.Join(e.dir, "made.txt"))
			e.llm.Enqueue(
				fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("call_2", "bash", map[string]string{"command": cmd})}},
				fakellm.Reply{Content: "second done"},
			)
			e.cmd("Coder again")
			e.waitFor("the second answer", 10*time.Second, func() bool { return strings.Contains(e.transcript(), "second done") })
			e.waitIdle(5 * time.Second)
			var n int
			e.lua(`return _G.approvals`, &n)
			if n != 1 {
				t.Fatalf("%d approval requests, want 1 (always should cover the repeat)", n)
			}
			if _, err := os.Stat(filepath.Join(e.dir, "made.txt")); err != nil {
				t.Fatal("the repeated command did not run")
			}
		})
	}
}

func TestApprovalsQueue(t *testing.T) {
	e := newEditor(t, editorOpts{})
	e.llm.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{
			toolCall("call_a", "bash", map[string]string{"command": "touch a.txt"}),
			toolCall("call_b", "bash", map[string]string{"command": "touch b.txt"}),
		}},
		fakellm.Reply{Content: "both handled"},
	)
	e.start()
	e.cmd("Coder two files")
	e.waitApproval()
	// A request the plugin receives while one is open waits behind it.
	e.lua(`require('coder.approval').push({id = 'fake', tool = 'bash', title = 'queued', reason = 'test', scope = '', diffs = {}})`, nil)
	var queued int
	e.lua(`return require('coder.approval').current().queued`, &queued)
	if queued != 1 {
		t.Fatalf("queued = %d, want 1", queued)
	}
	e.lua(`require('coder.approval').closed('fake')`, nil)
	e.input("y")
	e.waitFor("the second approval", 10*time.Second, func() bool {
		var id string
		e.lua(`local c = require('coder.approval').current(); return c and c.id or ''`, &id)
		return id != ""
	})
	e.input("n")
	e.waitIdle(10 * time.Second)
	if _, err := os.Stat(filepath.Join(e.dir, "a.txt")); err != nil {
		t.Error("a.txt was allowed but not created")
	}
	if _, err := os.Stat(filepath.Join(e.dir, "b.txt")); err == nil {
		t.Error("b.txt was denied but created")
	}
}

func TestInterruptMidStream(t *testing.T) {
	e := newEditor(t, editorOpts{})
	// 3000 deltas 5 ms apart: 15 s of streaming, far longer than an
	// interrupt may take even on a loaded machine.
	deltas, _ := numbered(3000)
	e.llm.Enqueue(fakellm.Reply{Deltas: deltas, Interval: 5 * time.Millisecond})
	e.start()
	e.cmd("Coder talk a lot")
	e.waitFor("streaming to start", 10*time.Second, func() bool { return strings.Contains(e.transcript(), "t00050") })
	// Input sent with <CR> while the turn runs is queued (the input is
	// cleared and the status line counts it; the transcript says so under
	// the answer); the interrupt drops it.
	e.lua(`local ui = require('coder.ui')
		vim.api.nvim_set_current_win(ui.state.iwin)
		vim.api.nvim_buf_set_lines(ui.state.ibuf, 0, -1, false, {'queued question'})`, nil)
	e.input("<CR>")
	e.waitFor("the busy input to be queued", 5*time.Second, func() bool {
		return strings.Contains(e.statusLine(), "⧗ 1 queued") &&
			e.boolLua(`local l = vim.api.nvim_buf_get_lines(require('coder.ui').state.ibuf, 0, -1, false)
				return #l == 1 and l[1] == ''`)
	})
	start := time.Now()
	e.input("<C-c>")
	e.waitFor("the turn to stop", 5*time.Second, func() bool { return strings.Contains(e.transcript(), "⏹ interrupted") })
	if !strings.Contains(e.transcript(), "1 queued input(s) dropped") {
		t.Errorf("the interrupt did not drop the queue:\n%s", e.transcript())
	}
	e.waitIdle(5 * time.Second)
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("interrupt took %v", d)
	}
	if strings.Contains(e.transcript(), "t02999") {
		t.Fatal("the whole stream arrived; nothing was interrupted")
	}
	// Nothing of the interrupted stream may arrive later: run one more turn
	// and check that no streamed token follows the interrupt line.
	e.lua(`vim.api.nvim_buf_set_lines(require('coder.ui').state.ibuf, 0, -1, false, {})`, nil)
	e.llm.Enqueue(fakellm.Reply{Content: "the next answer"})
	e.cmd("Coder next question")
	e.waitFor("the next answer", 10*time.Second, func() bool { return strings.Contains(e.transcript(), "the next answer") })
	e.waitIdle(5 * time.Second)
	tr := e.transcript()
	if after := tr[strings.Index(tr, "⏹ interrupted"):]; strings.Contains(after, "t0") {
		t.Fatalf("text kept arriving after the interrupt:\n%s", after)
	}
}

// killHost kills the running host as a crash would and returns its pid.
func (e *editor) killHost() int {
	e.t.Helper()
	var pid int
	e.lua(`return require('coder.host').pid()`, &pid)
	if pid <= 0 {
		e.t.Fatalf("host pid %d", pid)
	}
	proc, err := os.FindProcess(pid)
	if err != nil {
		e.t.Fatal(err)
	}
	if err := proc.Kill(); err != nil {
		e.t.Fatal(err)
	}
	return pid
}

func TestHostRestartsAfterDeath(t *testing.T) {
	e := newEditor(t, editorOpts{})
	e.start()
	e.llm.Enqueue(fakellm.Reply{Content: "first answer"})
	e.cmd("Coder remember the word walrus")
	e.waitFor("the first answer", 10*time.Second, func() bool { return strings.Contains(e.transcript(), "first answer") })
	e.waitIdle(5 * time.Second)
	pid := e.killHost()
	exited := func() int {
		var n int
		e.lua(`local n = 0
			for _, m in ipairs(_G.notes) do if m.msg:find('host exited', 1, true) then n = n + 1 end end
			return n`, &n)
		return n
	}
	e.waitFor("the host-exited message", 5*time.Second, func() bool { return exited() > 0 })
	if e.boolLua(`return require('coder.host').running()`) {
		t.Fatal("the plugin still thinks the host runs")
	}
	e.llm.Enqueue(fakellm.Reply{Content: "pong after restart"})
	e.cmd("Coder ping")
	e.waitFor("the answer from the new host", 10*time.Second, func() bool { return strings.Contains(e.transcript(), "pong after restart") })
	var pid2 int
	e.lua(`return require('coder.host').pid()`, &pid2)
	if pid2 == pid || pid2 <= 0 {
		t.Fatalf("new host pid %d, old %d", pid2, pid)
	}
	// The new host resumed the saved session: the model sees the old turn.
	reqs := e.llm.Requests()
	var history []string
	for _, m := range reqs[len(reqs)-1].Messages {
		history = append(history, m.Content)
	}
	if h := strings.Join(history, "\n"); !strings.Contains(h, "walrus") || !strings.Contains(h, "first answer") {
		t.Errorf("the restarted host lost the session: %q", h)
	}
	if n := exited(); n != 1 {
		t.Fatalf("%d host-exited messages, want exactly 1", n)
	}
}

func TestCommandsAndSelection(t *testing.T) {
	e := newEditor(t, editorOpts{})
	e.start()
	var comp []string
	e.lua(`return vim.fn.getcompletion('Coder /he', 'cmdline')`, &comp)
	if len(comp) != 1 || comp[0] != "/help" {
		t.Fatalf("completion of /he = %q", comp)
	}
	e.lua(`return vim.fn.getcompletion('Coder ', 'cmdline')`, &comp)
	for _, want := range []string{"open", "close", "stop", "/model"} {
		found := false
		for _, c := range comp {
			found = found || c == want
		}
		if !found {
			t.Errorf("completion lacks %q: %q", want, comp)
		}
	}
	e.cmd("Coder /help")
	e.waitFor("/help output", 10*time.Second, func() bool { return strings.Contains(e.transcript(), "Commands:") })
	e.waitIdle(5 * time.Second)
	if !strings.Contains(e.transcript(), "/resume [ID]") {
		t.Errorf("/help does not show /resume [ID]:\n%s", e.transcript())
	}

	// :'<,'>Coder text sends the selection with path and line numbers.
	path := filepath.Join(e.dir, "src.go")
	writeFile(t, path, "package main\n\nfunc main() {\n\tprintln(1)\n}\n")
	e.cmd("edit " + path)
	e.llm.Enqueue(fakellm.Reply{Content: "looks fine"})
	e.cmd("3,4Coder explain")
	e.waitFor("the answer", 10*time.Second, func() bool { return strings.Contains(e.transcript(), "looks fine") })
	reqs := e.llm.Requests()
	last := reqs[len(reqs)-1].Messages
	msg := last[len(last)-1].Content
	for _, want := range []string{"explain", "src.go:3-4", "func main() {\n\tprintln(1)"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	// :Coder closes and reopens the window.
	e.cmd("Coder close")
	if e.boolLua(`return require('coder.ui').is_open()`) {
		t.Fatal("still open after :Coder close")
	}
	e.cmd("Coder")
	if !e.boolLua(`return require('coder.ui').is_open()`) {
		t.Fatal(":Coder did not toggle the window open")
	}
}

func TestSetupValidation(t *testing.T) {
	e := newEditor(t, editorOpts{})
	for _, tc := range []struct{ opts, name string }{
		{`{layout = 3}`, `"layout"`},
		{`{layout = 'sideways'}`, `"layout"`},
		{`{width = 'wide'}`, `"width"`},
		{`{keys = {send = 1}}`, `"keys.send"`},
		{`{keys = {bogus = 'x'}}`, `"keys.bogus"`},
		{`{input_height = 0}`, `"input_height"`},
		{`{host_nice = 20}`, `"host_nice"`},
		{`{host_nice = 2.5}`, `"host_nice"`},
		{`{host_nice = 'low'}`, `"host_nice"`},
		{`{nope = true}`, `"nope"`},
	} {
		var res struct {
			OK     bool     `msgpack:"ok"`
			Notes  []string `msgpack:"notes"`
			Layout string   `msgpack:"layout"`
			Send   string   `msgpack:"send"`
		}
		e.lua(`_G.notes = {}
			local ok = require('coder').setup(`+tc.opts+`)
			local msgs = {}
			for _, n in ipairs(_G.notes) do table.insert(msgs, n.msg) end
			local cur = require('coder.config').current
			return {ok = ok, notes = msgs, layout = cur.layout, send = cur.keys.send}`, &res)
		if res.OK || len(res.Notes) != 1 || !strings.Contains(res.Notes[0], tc.name) {
			t.Errorf("setup(%s): ok=%v notes=%q; want one error naming %s", tc.opts, res.OK, res.Notes, tc.name)
		}
		if res.Layout != "right" || res.Send != "<CR>" {
			t.Errorf("setup(%s) half-applied: layout=%q send=%q", tc.opts, res.Layout, res.Send)
		}
	}
}

func TestPluginLoadStartsNothing(t *testing.T) {
	e := newEditor(t, editorOpts{})
	if e.boolLua(`return require('coder.host').running()`) {
		t.Fatal("loading the plugin started the host")
	}
	var loaded bool
	if err := e.v.ExecLua(`return package.loaded['coder.ui'] ~= nil`, &loaded); err != nil {
		t.Fatal(err)
	}
	// setup() (called by the harness) needs only config; the UI stays unloaded.
	if loaded {
		t.Error("setup loaded the UI module eagerly")
	}
	// Sourcing plugin/coder.lua must cost well under 1 ms (best of 5).
	var us float64
	e.lua(`local best = math.huge
		for _ = 1, 5 do
			vim.g.loaded_coder = nil
			pcall(vim.api.nvim_del_user_command, 'Coder')
			local t0 = vim.loop.hrtime()
			vim.cmd('runtime plugin/coder.lua')
			best = math.min(best, (vim.loop.hrtime() - t0) / 1000)
		end
		return best`, &us)
	t.Logf("plugin/coder.lua loads in %.0f µs", us)
	if us >= 1000 {
		t.Errorf("loading the plugin took %.0f µs, want < 1 ms", us)
	}
	if e.boolLua(`return require('coder.host').running()`) {
		t.Fatal("sourcing the plugin started the host")
	}
}

func TestLayouts(t *testing.T) {
	e := newEditor(t, editorOpts{})
	for _, layout := range []string{"left", "float", "tab", "right"} {
		e.lua(`assert(require('coder').setup({cmd = ..., layout = '`+layout+`'}))`, nil, hostBinary)
		e.cmd("Coder open")
		var info struct {
			Open   bool   `msgpack:"open"`
			Input  bool   `msgpack:"input"`
			Status string `msgpack:"status"`
		}
		e.waitFor("the status line", 10*time.Second, func() bool {
			e.lua(`local ui = require('coder.ui')
				return {open = ui.is_open(), input = vim.api.nvim_get_current_win() == ui.state.iwin,
					status = vim.wo[ui.state.twin].statusline}`, &info)
			return strings.Contains(info.Status, "ctx ")
		})
		if !info.Open || !info.Input {
			t.Errorf("%s: open=%v, cursor in input=%v", layout, info.Open, info.Input)
		}
		e.cmd("Coder close")
		if e.boolLua(`return require('coder.ui').is_open()`) {
			t.Errorf("%s: still open after close", layout)
		}
	}
}

func TestHighlightsAndHealth(t *testing.T) {
	e := newEditor(t, editorOpts{})
	// A user's definition made before the plugin defines its groups wins.
	e.cmd("highlight CoderUser guifg=#123456")
	e.start()
	var hl struct {
		User      int  `msgpack:"user"`
		Reasoning bool `msgpack:"reasoning"`
	}
	// nvim_get_hl_by_name is deprecated since 0.9.
	e.lua(`local fg
		if vim.fn.has('nvim-0.9') == 1 then
			fg = vim.api.nvim_get_hl(0, {name = 'CoderUser'}).fg
		else
			fg = vim.api.nvim_get_hl_by_name('CoderUser', true).foreground
		end
		return {user = fg or -1,
		reasoning = vim.fn.synIDtrans(vim.fn.hlID('CoderReasoning')) == vim.fn.hlID('Comment')}`, &hl)
	if hl.User != 0x123456 {
		t.Errorf("CoderUser was overridden: %x", hl.User)
	}
	if !hl.Reasoning {
		t.Error("CoderReasoning does not link to Comment")
	}

	e.cmd("checkhealth coder")
	var report string
	e.lua(`return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')`, &report)
	// 0.7 prints "- OK: Neovim 0.7.2", 0.10+ "- ✅ OK Neovim 0.11.0".
	if !regexp.MustCompile(`OK:? +Neovim \d`).MatchString(report) {
		t.Errorf("health report lacks an OK line for Neovim:\n%s", report)
	}
	var sections []string
	e.lua(`local out = {}
		local s = require('coder.health').section
		for _, n in ipairs({'Neovim', 'provider'}) do table.insert(out, s(n)) end
		return out`, &sections)
	if e.boolLua(`return vim.fn.has('nvim-0.10') == 1`) == strings.HasPrefix(sections[0], "coder: ") {
		t.Errorf("health sections %q: the coder: prefix is wrong for this Neovim", sections)
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"host " + hostBinary, "git version", "ripgrep (rg) ", "provider openai at " + e.llm.URL(), "reachable",
		"host built for " + runtime.GOOS + "/" + runtime.GOARCH, "bash: " + bash, "sandbox: "} {
		if !strings.Contains(report, want) {
			t.Errorf("health report lacks %q:\n%s", want, report)
		}
	}
	if strings.Contains(report, "ERROR") {
		t.Errorf("health report has errors:\n%s", report)
	}
}

func TestDemoWithoutProvider(t *testing.T) {
	e := newEditor(t, editorOpts{demo: true})
	e.start()
	if !e.boolLua(`return require('coder').state().demo == true`) {
		t.Fatal("status does not say demo")
	}
	if tr := e.transcript(); !strings.Contains(tr, "DEMO") {
		t.Fatalf("transcript header lacks DEMO:\n%s", tr)
	}
	var st string
	e.lua(`return require('coder').status()`, &st)
	if !strings.Contains(st, "DEMO") {
		t.Errorf("status() = %q, want DEMO", st)
	}
	e.cmd("Coder show me")
	e.waitApproval()
	e.input("y")
	e.waitFor("the end of the demo", 20*time.Second, func() bool { return strings.Contains(e.transcript(), "That was the offline demo") })
	e.waitIdle(5 * time.Second)
	if _, err := os.Stat(filepath.Join(e.dir, fakellm.DemoFile)); err != nil {
		t.Fatalf("the demo did not write %s: %v", fakellm.DemoFile, err)
	}
}

func TestStopWhileApprovalOpen(t *testing.T) {
	e := newEditor(t, editorOpts{})
	e.llm.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("call_1", "bash", map[string]string{"command": "touch never.txt"})}},
	)
	e.start()
	e.cmd("Coder do it")
	e.waitApproval()
	e.cmd("Coder stop")
	e.waitFor("the float to close", 5*time.Second, func() bool { return !e.approvalOpen() })
	e.waitIdle(5 * time.Second)
	tr := e.transcript()
	for _, want := range []string{"→ cancelled", "⏹ interrupted"} {
		if !strings.Contains(tr, want) {
			t.Errorf("transcript lacks %q:\n%s", want, tr)
		}
	}
	if _, err := os.Stat(filepath.Join(e.dir, "never.txt")); err == nil {
		t.Fatal("the command ran although the turn was stopped")
	}
}

// A host restarted after its death resumes the session; a transcript that
// no longer shows it (wiped) gets the session's turns replayed, one that
// still shows it is not written twice.
func TestRestartedHostReplaysIntoWipedTranscript(t *testing.T) {
	for _, tc := range []struct {
		name string
		wipe bool
	}{{"wiped", true}, {"kept", false}} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEditor(t, editorOpts{})
			e.start()
			e.llm.Enqueue(fakellm.Reply{Content: "first answer"})
			e.run("Coder remember the word walrus")
			e.killHost()
			e.waitFor("the host to be gone", 5*time.Second, func() bool { return !e.boolLua(`return require('coder.host').running()`) })
			if tc.wipe {
				e.lua(`require('coder.ui').close()
					vim.cmd('bwipeout! ' .. require('coder.ui').state.tbuf)`, nil)
			}
			e.llm.Enqueue(fakellm.Reply{Content: "pong after restart"})
			e.run("Coder ping")
			tr := e.transcript()
			for _, want := range []string{"remember the word walrus", "first answer"} {
				if n := strings.Count(tr, want); n != 1 {
					t.Errorf("%q is %d times in the transcript, want once:\n%s", want, n, tr)
				}
			}
			if strings.Index(tr, "first answer") > strings.Index(tr, "pong after restart") {
				t.Errorf("the replayed turn comes after the new one:\n%s", tr)
			}
		})
	}
}
