//go:build !windows

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

// TestReviewRejectNeverFollowsSwappedLink: `gr` in turn review, with the
// file's directory d swapped for a link to an outside directory holding a
// file of the same content after the host resolved the path, just before
// it writes: the outside file is not written, and the refusal is shown,
// saying why.
func TestReviewRejectNeverFollowsSwappedLink(t *testing.T) {
	e := newEditor(t, editorOpts{config: `{"mode": "auto-edit"}`})
	const ten = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n"
	writeFile(t, filepath.Join(e.dir, ".gitignore"), ".coder\n*.swap\n")
	writeFile(t, filepath.Join(e.dir, "d", "n.txt"), ten)
	outside := t.TempDir()
	changed := strings.Replace(ten, "2\n", "two\n", 1)
	writeFile(t, filepath.Join(outside, "n.txt"), changed) // as the turn left d/n.txt
	e.llm.SetScript(func(req fakellm.Request) fakellm.Reply {
		if last := req.Messages[len(req.Messages)-1]; last.Role == llm.RoleUser && strings.HasPrefix(last.Content, "change") {
			return fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("e", "edit", map[string]any{"path": "d/n.txt", "old_string": "2\n", "new_string": "two\n"})}}
		}
		return fakellm.Reply{Content: "done"}
	})
	e.lua(`vim.ui.input = function(opts, on_confirm) on_confirm('') end`, nil)
	e.start()
	e.run("Coder change d/n.txt")
	e.cmd("Coder review")
	e.lua(`vim.cmd('copen'); vim.api.nvim_win_set_cursor(0, {1, 0})`, nil)
	// The editor's check for unsaved edits is the host's last step before
	// it writes: a process swapping d for a link out at that moment is
	// played by the check itself.
	e.lua(`local d, outside = ...
		local bridge = require('coder.bridge')
		local modified = bridge.buffer_modified
		bridge.buffer_modified = function(abs)
			if not _G.swapped and abs:find('n.txt', 1, true) then
				_G.swapped = assert(vim.loop.fs_rename(d, d .. '.real')) and assert(vim.loop.fs_symlink(outside, d))
			end
			return modified(abs)
		end`, nil, filepath.Join(e.dir, "d"), outside)
	e.lua(`vim.api.nvim_feedkeys('gr', 'mx', false)`, nil)
	e.waitFor("the answer to gr", 10*time.Second, func() bool {
		return strings.Contains(e.notes(), "coder:") || e.boolLua(`return (vim.fn.getqflist()[1] or {text = ''}).text:find('[rejected]', 1, true) ~= nil`)
	})
	if !e.boolLua(`return _G.swapped == true`) {
		t.Fatal("the host never checked d/n.txt for unsaved edits; the test proves nothing")
	}
	if data, _ := os.ReadFile(filepath.Join(outside, "n.txt")); string(data) != changed {
		t.Errorf("gr wrote outside the workspace: %q", data)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 1 {
		t.Errorf("gr left files outside: %v", ents)
	}
	if notes := e.notes(); !strings.Contains(notes, "out of the workspace") {
		t.Errorf("the refusal does not say why: %s", notes)
	}
}

// TestResumeRefusesLinkedSessionsDir: after the workspace's
// .coder/sessions was made a link to a directory outside it (holding the
// session saved before), a restarted host does not resume from it, and a
// bare /resume lists nothing and says why.
func TestResumeRefusesLinkedSessionsDir(t *testing.T) {
	e := newEditor(t, editorOpts{config: `{"mode": "auto-edit"}`})
	e.llm.SetScript(func(fakellm.Request) fakellm.Reply { return fakellm.Reply{Content: "first"} })
	e.start()
	e.run("Coder hello")
	e.lua(`require('coder.host').stop()`, nil)
	e.waitFor("the host to stop", 10*time.Second, func() bool { return !e.boolLua(`return require('coder.host').running()`) })
	sessions := filepath.Join(e.dir, ".coder", "sessions")
	moved := filepath.Join(t.TempDir(), "sessions")
	if err := os.Rename(sessions, moved); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(moved, sessions); err != nil {
		t.Fatal(err)
	}
	e.cmd("Coder open")
	e.waitFor("the refused resume said", 10*time.Second, func() bool {
		return strings.Contains(e.transcript()+e.notes(), "leads out of the workspace")
	})
	e.lua(`vim.ui.select = function(items) _G.picked = #items end`, nil)
	e.cmd("Coder /resume")
	e.waitFor("/resume refused", 10*time.Second, func() bool {
		return strings.Count(e.transcript()+e.notes(), "leads out of the workspace") >= 2
	})
	if strings.Contains(e.transcript(), "resumed session") || e.boolLua(`return _G.picked ~= nil`) {
		t.Errorf("a session was resumed or offered through the link:\n%s", e.transcript())
	}
}
