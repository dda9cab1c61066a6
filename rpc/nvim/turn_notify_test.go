package nvimhost

import (
	"strings"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
)

// TestTurnNoticeOutOfSight: a turn that ends while the chat is in
// another tab page calls vim.notify once, naming the session by its first
// message; one that ends in sight says nothing.
func TestTurnNoticeOutOfSight(t *testing.T) {
	e := newEditor(t, editorOpts{})
	count := func() int {
		var n int
		e.lua(`local n = 0
			for _, m in ipairs(_G.notes) do if m.msg:find('the turn is done', 1, true) then n = n + 1 end end
			return n`, &n)
		return n
	}
	e.llm.Enqueue(fakellm.Reply{Content: "first"})
	e.start()
	e.run("Coder fix the parser")
	if n := count(); n != 0 {
		t.Fatalf("%d notices for a turn that ended in sight", n)
	}
	e.llm.Enqueue(fakellm.Reply{Content: "second"})
	e.cmd("tabnew")
	e.run("Coder and the lexer")
	e.waitFor("the notice", 5*time.Second, func() bool { return count() > 0 })
	var msg string
	e.lua(`for _, m in ipairs(_G.notes) do if m.msg:find('the turn is done', 1, true) then return m.msg end end`, &msg)
	if !strings.Contains(msg, "fix the parser") {
		t.Errorf("the notice %q does not name the session", msg)
	}
	e.waitIdle(5 * time.Second)
	if n := count(); n != 1 {
		t.Errorf("%d notices, want 1", n)
	}
}
