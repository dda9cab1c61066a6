package nvimhost

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
)

// attachFakeLS makes *.fake files filetype "fake" and starts the test's
// scripted language server (testdata/fakels.py) for them from a FileType
// autocmd, the way users attach servers. env is added to the server's
// environment (FAKELS_FLOOD, FAKELS_DELAY, FAKELS_SILENT).
func (e *editor) attachFakeLS(env map[string]string) {
	e.t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		e.t.Skip("python3 not installed: the scripted language server needs it")
	}
	script := filepath.Join(repoRoot(), "rpc", "nvim", "testdata", "fakels.py")
	if env == nil {
		env = map[string]string{}
	}
	e.lua(`
		local py, script, root, env = ...
		vim.api.nvim_create_autocmd({'BufRead', 'BufNewFile'}, {pattern = '*.fake', callback = function(a)
			vim.bo[a.buf].filetype = 'fake'
		end})
		vim.api.nvim_create_autocmd('FileType', {pattern = 'fake', callback = function(a)
			local cfg = {name = 'fakels', cmd = {py, script}, root_dir = root, cmd_cwd = root, cmd_env = env}
			if vim.fn.has('nvim-0.8') == 1 then
				vim.lsp.start(cfg, {bufnr = a.buf})
			else
				_G.fakels = _G.fakels or vim.lsp.start_client(cfg)
				vim.lsp.buf_attach_client(a.buf, _G.fakels)
			end
		end})
	`, nil, py, script, e.dir, env)
}

// hasTool reports whether a request offered the tool.
func hasTool(r fakellm.Request, name string) bool {
	for _, tl := range r.Tools {
		if tl.Function.Name == name {
			return true
		}
	}
	return false
}

// The done-when of issue 23 for the agent's side: without a server the
// lsp tool is not offered; with one, a file the model writes is loaded
// hidden, the server's diagnostic for it comes back in the write's result
// (so the next request carries it), `lsp definition` finds the other
// file's line, and the hidden buffer is gone again afterwards.
func TestLSPFeedbackAndTool(t *testing.T) {
	// A settle time longer than the test's deadlines: the waits must end
	// on the servers' publishes, not on the timer.
	e := newEditor(t, editorOpts{config: `{"mode": "auto-edit", "lsp": {"settle": "300s"}}`})
	writeFile(t, filepath.Join(e.dir, "a.fake"), "ERROR old\nfunc helper\n")
	e.attachFakeLS(nil)
	e.start()

	e.llm.Enqueue(fakellm.Reply{Content: "no server yet"})
	e.run("Coder hello")
	if r := e.llm.Requests()[0]; hasTool(r, "lsp") {
		t.Fatal("lsp offered without a language server attached")
	}

	// The user opens a file: the FileType autocmd attaches the server.
	e.cmd("edit " + filepath.Join(e.dir, "a.fake"))
	e.waitFor("the server to attach and publish", 10*time.Second, func() bool {
		return e.boolLua(`return require('coder.lsp').has_lsp(...) and #vim.diagnostic.get(0) == 1`, e.dir)
	})

	e.llm.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("w1", "write", map[string]any{"path": "b.fake", "content": "call helper\nERROR here\n"})}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{
			toolCall("d1", "lsp", map[string]any{"operation": "definition", "path": "b.fake", "line": 1, "symbol": "helper"}),
			toolCall("d2", "lsp", map[string]any{"operation": "definition", "symbol": "helper"}),
			toolCall("r1", "lsp", map[string]any{"operation": "references", "path": "a.fake", "line": 2, "column": 6}),
			toolCall("h1", "lsp", map[string]any{"operation": "hover", "path": "b.fake", "line": 1, "column": 6}),
			toolCall("s1", "lsp", map[string]any{"operation": "symbols", "path": "a.fake"}),
			toolCall("x1", "lsp", map[string]any{"operation": "hover", "path": "../outside.fake", "line": 1}),
			toolCall("g1", "lsp", map[string]any{"operation": "diagnostics", "path": "a.fake"}),
			toolCall("g2", "lsp", map[string]any{"operation": "diagnostics", "path": "b.fake"}),
		}},
		fakellm.Reply{Content: "done"},
	)
	e.run("Coder write b")
	reqs := e.llm.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4", len(reqs))
	}
	if !hasTool(reqs[1], "lsp") {
		t.Error("lsp not offered with a server attached")
	}
	res, _ := toolResult(reqs[2:3], "w1")
	if !strings.Contains(res, "New language-server diagnostics in the changed files:\nerror b.fake:2:1 [fakels] ERROR is not allowed here") {
		t.Errorf("the request after the write does not carry the server's diagnostic:\n%s", res)
	}
	for id, want := range map[string]string{
		"d1": "a.fake:2: func helper",
		"d2": "a.fake:2 function helper: func helper",
		"r1": "a.fake:2: func helper\nb.fake:1: call helper",
		"h1": "```fake\nfunc helper()\n```",
		"s1": "a.fake:2 function helper: func helper",
		"x1": "error: ",
		"g1": "error a.fake:1:1 [fakels] ERROR is not allowed here",
		"g2": "error b.fake:2:1 [fakels] ERROR is not allowed here",
	} {
		if got, _ := toolResult(reqs[3:4], id); got != want && !(id == "x1" && strings.HasPrefix(got, want)) {
			t.Errorf("lsp call %s = %q, want %q", id, got, want)
		}
	}
	if e.boolLua(`return vim.fn.bufloaded(...) == 1`, filepath.Join(e.dir, "b.fake")) {
		t.Error("b.fake stays loaded after its diagnostics were read")
	}

	// The file open in the editor is reloaded; its old error is not new.
	e.llm.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{
			toolCall("r2", "read", map[string]any{"path": "a.fake"}),
			toolCall("e2", "edit", map[string]any{"path": "a.fake", "old_string": "func helper\n", "new_string": "func helper\nERROR new\n"}),
		}},
		fakellm.Reply{Content: "done"},
	)
	e.run("Coder change a")
	reqs = e.llm.Requests()
	res, _ = toolResult(reqs[len(reqs)-1:], "e2")
	if !strings.HasSuffix(res, "New language-server diagnostics in the changed files:\nerror a.fake:3:1 [fakels] ERROR is not allowed here") {
		t.Errorf("edit result does not end with the one new error:\n%s", res)
	}
	if got := e.boolLua(`return vim.api.nvim_buf_get_lines(0, 2, 3, false)[1] == 'ERROR new' and #vim.diagnostic.get(0) == 2`); !got {
		t.Error("the open buffer was not reloaded, or its diagnostics not updated")
	}
	if n := e.notes(); strings.Contains(n, "deprecat") || strings.Contains(n, "rror") {
		t.Errorf("messages: %s", n)
	}
}

// The buffer is reloaded again (the engine's files-changed event and the
// wait's own reload reach Neovim in either order) after the server spoke
// for the new text and before the answer is collected: the reload clears
// the buffer's diagnostics, so the wait takes the publish that follows it,
// not the one before (the answer was empty: no new error reported).
func TestLSPFeedbackReloadedWhileWaiting(t *testing.T) {
	e := newEditor(t, editorOpts{config: `{"mode": "auto-edit", "lsp": {"settle": "300s"}}`})
	a := filepath.Join(e.dir, "a.fake")
	writeFile(t, a, "ERROR old\nfunc helper\n")
	e.attachFakeLS(nil)
	e.start()
	e.cmd("edit " + a)
	e.waitFor("the server to attach and publish", 10*time.Second, func() bool {
		return e.boolLua(`return require('coder.lsp').has_lsp(...) and #vim.diagnostic.get(0) == 1`, e.dir)
	})
	// Once the new text's two errors are in, a reload is queued: it runs
	// between the publish and the collection of the answer.
	e.lua(`
		local path = ...
		local buf = vim.api.nvim_get_current_buf()
		vim.api.nvim_create_autocmd('DiagnosticChanged', { buffer = buf, callback = function()
			if #vim.diagnostic.get(buf) ~= 2 then return end
			vim.schedule(function() require('coder.bridge').reload({ path }) end)
			return true
		end })`, nil, a)
	e.llm.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("e1", "edit", map[string]any{"path": "a.fake", "old_string": "func helper\n", "new_string": "func helper\nERROR new\n"})}},
		fakellm.Reply{Content: "done"},
	)
	e.run("Coder change a")
	reqs := e.llm.Requests()
	res, _ := toolResult(reqs[len(reqs)-1:], "e1")
	if !strings.HasSuffix(res, "New language-server diagnostics in the changed files:\nerror a.fake:3:1 [fakels] ERROR is not allowed here") {
		t.Errorf("edit result does not end with the one new error:\n%s", res)
	}
}

// A server that never publishes holds a write no longer than the settle
// time; one that floods diagnostics gives a short, capped list.
func TestLSPHostileServers(t *testing.T) {
	for _, tc := range []struct {
		name   string
		settle string
		env    map[string]string
		want   func(string) bool
	}{
		// Were the wait not bounded by the settle time, the turn would
		// outlast the test's deadline.
		{"silent", "500ms", map[string]string{"FAKELS_SILENT": "1"}, func(res string) bool {
			return !strings.Contains(res, "diagnostics")
		}},
		{"flood", "300s", map[string]string{"FAKELS_FLOOD": "10000"}, func(res string) bool {
			return strings.Count(res, "\nwarning b.fake:1:1 [fakels] flood") == 19 && strings.Contains(res, "\nerror b.fake:2:1 [fakels]") &&
				strings.Contains(res, "… and ") && len(res) < 4000
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEditor(t, editorOpts{config: `{"mode": "auto-edit", "lsp": {"settle": "` + tc.settle + `"}}`})
			writeFile(t, filepath.Join(e.dir, "a.fake"), "func helper\n")
			e.attachFakeLS(tc.env)
			e.start()
			e.cmd("edit " + filepath.Join(e.dir, "a.fake"))
			e.waitFor("the server to attach", 10*time.Second, func() bool {
				return e.boolLua(`return require('coder.lsp').has_lsp(...)`, e.dir)
			})
			e.llm.Enqueue(
				fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("w1", "write", map[string]any{"path": "b.fake", "content": "call helper\nERROR here\n"})}},
				fakellm.Reply{Content: "done"},
			)
			e.run("Coder write b")
			reqs := e.llm.Requests()
			res, ok := toolResult(reqs[len(reqs)-1:], "w1")
			if !ok || !tc.want(res) {
				t.Errorf("write result (%d bytes):\n%.1500s", len(res), res)
			}
			// The editor still answers at once.
			if !e.boolLua(`return true`) {
				t.Error("editor stalled")
			}
		})
	}
}

// No file of the language is open: loading the written file hidden starts
// its server (the FileType autocmd), and its first publish still comes
// back with the write.
func TestLSPServerStartedByTheHiddenLoad(t *testing.T) {
	e := newEditor(t, editorOpts{config: `{"mode": "auto-edit", "lsp": {"settle": "300s"}}`})
	e.attachFakeLS(nil)
	e.start()
	e.llm.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("w1", "write", map[string]any{"path": "b.fake", "content": "ERROR here\n"})}},
		fakellm.Reply{Content: "done"},
	)
	e.run("Coder write b")
	reqs := e.llm.Requests()
	if res, _ := toolResult(reqs[len(reqs)-1:], "w1"); !strings.Contains(res, "error b.fake:1:1 [fakels] ERROR is not allowed here") {
		t.Errorf("write result:\n%s", res)
	}
	if e.boolLua(`return vim.fn.bufloaded(...) == 1`, filepath.Join(e.dir, "b.fake")) {
		t.Error("b.fake stays loaded")
	}
}

// The review of a new file shows it in a buffer of its own, still empty:
// no language server attaches to it (it would report errors against the
// empty file, gopls's "E:1"). Once written, the file's buffer gets its
// server as any file does.
func TestReviewOfNewFileKeepsServersOff(t *testing.T) {
	e := newEditor(t, editorOpts{})
	e.attachFakeLS(nil)
	e.lua(`_G.ft_fired = {}
		vim.api.nvim_create_autocmd('FileType', {pattern = 'fake', callback = function(a)
			_G.ft_fired[vim.api.nvim_buf_get_name(a.buf)] = true
		end})`, nil)
	abs := filepath.Join(e.dir, "new.fake")
	e.llm.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("w", "write", map[string]string{"path": "new.fake", "content": "hello\nERROR here\n"})}},
		fakellm.Reply{Content: "written"},
	)
	e.start()
	e.cmd("Coder make new.fake")
	e.waitApproval()
	if !e.boolLua(`return vim.fn.bufloaded(...) == 1`, abs) {
		t.Fatal("the review did not load a buffer for the new file")
	}
	if e.boolLua(`return _G.ft_fired[...] == true`, abs) {
		t.Error("the new file's review buffer got its filetype: a language server attaches to the empty file")
	}
	e.input("y")
	e.waitFor("the answer", 10*time.Second, func() bool { return strings.Contains(e.transcript(), "written") })
	e.waitFor("the server's diagnostic on the written file", 10*time.Second, func() bool {
		return e.boolLua(`local b = vim.fn.bufnr(...)
			for _, d in ipairs(b > 0 and vim.diagnostic.get(b) or {}) do
				if d.message:find('ERROR is not allowed', 1, true) then return true end
			end
			return false`, abs)
	})
}
