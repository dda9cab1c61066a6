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

// TestUndoAsksAboutOthers: /undo leaves a file someone else changed during
// the turn alone and asks; only the user's "revert them too" reverts it.
func TestUndoAsksAboutOthers(t *testing.T) {
	e := newEditor(t, editorOpts{config: `{"mode": "auto-edit"}`})
	other := filepath.Join(e.dir, "theirs.txt")
	e.llm.SetScript(func(req fakellm.Request) fakellm.Reply {
		if last := req.Messages[len(req.Messages)-1]; last.Role == llm.RoleUser {
			return fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("w", "write", map[string]any{"path": "mine.txt", "content": "mine\n"})}}
		}
		// Someone else writes while the turn runs.
		_ = os.WriteFile(other, []byte("theirs\n"), 0o644)
		return fakellm.Reply{Content: "done"}
	})
	e.lua(`_G.asked = nil
		vim.ui.select = function(items, opts, on_choice)
			_G.asked = opts.prompt
			on_choice(items[2])
		end`, nil)
	e.start()
	e.run("Coder write mine")
	if _, err := os.Stat(other); err != nil {
		t.Fatal("the other file was not written during the turn")
	}
	e.run("Coder /undo")
	e.waitFor("the question about the others' files", 10*time.Second, func() bool {
		return e.boolLua(`return _G.asked ~= nil`)
	})
	var prompt string
	e.lua(`return _G.asked`, &prompt)
	if !strings.Contains(prompt, "theirs.txt") {
		t.Errorf("prompt = %q", prompt)
	}
	e.waitFor("theirs.txt reverted on the user's word", 10*time.Second, func() bool {
		_, err := os.Stat(other)
		return os.IsNotExist(err)
	})
	if _, err := os.Stat(filepath.Join(e.dir, "mine.txt")); !os.IsNotExist(err) {
		t.Errorf("mine.txt survived /undo")
	}
}
