package nvimhost

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
)

// TestPromptArea (seed 001 §2): above the input, the first line shows the
// context in tokens and the model; the input's prompt, on the second,
// shows the working directory; the todos appear in the conversation flow
// as a Todos block. What is checked is what the windows show.
func TestPromptArea(t *testing.T) {
	e := newEditor(t, editorOpts{config: `{"model": "prompt-area-model"}`})
	e.llm.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("t", "todo", map[string]any{"todos": []map[string]string{
			{"content": "write the parser", "status": "in_progress"}, {"content": "test it", "status": "pending"}}})}},
		fakellm.Reply{Content: "working on it"},
	)
	e.lua(`vim.o.columns = 200`, nil) // a chat wide enough for all of it
	e.start()
	e.run("Coder plan the parser")
	tr := e.transcript()
	if !strings.Contains(tr, "Todos:\n  [~] write the parser\n  [ ] test it") {
		t.Errorf("no Todos block in the transcript:\n%s", tr)
	}
	if i, j := strings.Index(tr, "Todos:"), strings.Index(tr, "working on it"); i < 0 || j < i {
		t.Errorf("the Todos block is not in the flow before the answer:\n%s", tr)
	}
	var shown struct {
		Status string `msgpack:"status"`
		Prompt string `msgpack:"prompt"`
		Above  bool   `msgpack:"above"`
	}
	e.waitFor("the context size", 5*time.Second, func() bool {
		e.lua(`local ui = require('coder.ui').state
			local function eval(s, w) return vim.api.nvim_eval_statusline(s, {winid = w, maxwidth = 200}).str end
			local prompt = vim.fn.has('nvim-0.8') == 1 and vim.wo[ui.iwin].winbar or vim.wo[ui.iwin].statusline
			local tpos, ipos = vim.api.nvim_win_get_position(ui.twin), vim.api.nvim_win_get_position(ui.iwin)
			return {status = eval(vim.wo[ui.twin].statusline, ui.twin), prompt = eval(prompt, ui.iwin), above = tpos[1] < ipos[1]}`, &shown)
		return strings.Contains(shown.Status, "ctx ") && !strings.Contains(shown.Status, "ctx 0 ")
	})
	if !strings.Contains(shown.Status, "prompt-area-model") || !strings.Contains(shown.Status, "ctx ") {
		t.Errorf("status above the input %q: want the context tokens and the model", shown.Status)
	}
	if !shown.Above {
		t.Error("the status line (the transcript's) is not above the input")
	}
	if name := filepath.Base(e.dir); !strings.Contains(shown.Prompt, name) || !strings.Contains(shown.Prompt, "❯") {
		t.Errorf("input prompt %q: want the working directory (%s)", shown.Prompt, e.dir)
	}
}
