package nvimhost

// The chat window as the terminal and the user move: its width on resize,
// the cue for output below a window the user moved up in.

import (
	"strings"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
)

// The side chat keeps its share of the terminal when it is resized
// (200→100 columns used to leave the code window 19 columns wide).
func TestChatWidthFollowsResize(t *testing.T) {
	e := newEditor(t, editorOpts{})
	if err := e.v.AttachUI(200, 40, map[string]any{"ext_linegrid": true}); err != nil {
		t.Fatalf("attach ui: %v", err)
	}
	e.start()
	chatWidth := func() int {
		var w int
		e.lua(`return vim.api.nvim_win_get_width(require('coder.ui').state.twin)`, &w)
		return w
	}
	if w := chatWidth(); w != 80 {
		t.Fatalf("chat width %d at 200 columns, want 80 (0.4)", w)
	}
	if err := e.v.TryResizeUI(100, 40); err != nil {
		t.Fatal(err)
	}
	e.waitFor("the chat at 0.4 of 100 columns", 5*time.Second, func() bool { return chatWidth() == 40 })
}

// A transcript window the user moved up in stays where it is, and its
// status line says how many lines arrived below; back on the last line,
// the cue goes.
func TestUnseenOutputCue(t *testing.T) {
	e := newEditor(t, editorOpts{})
	e.start()
	e.llm.Enqueue(fakellm.Reply{Content: strings.Repeat("filler line\n", 30) + "first done"})
	e.run("Coder first")
	statusline := func() string {
		var s string
		e.lua(`return vim.wo[require('coder.ui').state.twin].statusline`, &s)
		return s
	}
	if strings.Contains(statusline(), "↓") {
		t.Fatalf("a cue while following: %q", statusline())
	}
	e.lua(`vim.api.nvim_set_current_win(require('coder.ui').state.twin)`, nil)
	e.input("gg")
	e.waitFor("the cursor on the first line", 5*time.Second, func() bool {
		return e.boolLua(`return vim.api.nvim_win_get_cursor(require('coder.ui').state.twin)[1] == 1`)
	})
	e.llm.Enqueue(fakellm.Reply{Content: "more one\nmore two\nmore three"})
	e.run("Coder second")
	if !strings.Contains(e.transcript(), "more three") {
		t.Fatalf("the second answer is missing:\n%s", e.transcript())
	}
	if !e.boolLua(`return vim.api.nvim_win_get_cursor(require('coder.ui').state.twin)[1] == 1`) {
		t.Error("the transcript window was pulled to the end")
	}
	e.waitFor("the new-lines cue", 5*time.Second, func() bool {
		s := statusline()
		return strings.Contains(s, "↓ ") && strings.Contains(s, " new lines")
	})
	e.lua(`vim.api.nvim_set_current_win(require('coder.ui').state.twin)`, nil)
	e.input("G")
	e.waitFor("the cue to go at the end", 5*time.Second, func() bool { return !strings.Contains(statusline(), "↓") })
}
