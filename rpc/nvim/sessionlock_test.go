package nvimhost

import (
	"strings"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/store"
	"github.com/google/uuid"
)

// TestSessionInUseElsewhere: a session another process holds (another
// Neovim, an exec) is refused with a notification, never continued by two
// writers; it stays listed, and the editor keeps working in its own.
func TestSessionInUseElsewhere(t *testing.T) {
	e := newEditor(t, editorOpts{})
	id := uuid.NewString()
	snap := &store.Snapshot{ID: id, Model: "m", Mode: "default", UpdatedAt: time.Now(),
		Messages: []llm.Message{{Role: llm.RoleSystem, Content: "sys"}, {Role: llm.RoleUser, Content: "the other editor's work"},
			{Role: llm.RoleAssistant, Content: "done there"}}}
	if err := store.Save(store.Dir(e.dir), snap); err != nil {
		t.Fatal(err)
	}
	// This test process stands for the other editor's host.
	other, err := store.Acquire(store.Dir(e.dir), id)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Release()
	inUse := func() int {
		return strings.Count(e.notes(), "in use by another coder-nvim process")
	}

	// A host (re)started to continue that session says why it cannot.
	e.lua(`require('coder.host').state.session_id = ...`, nil, id)
	e.start()
	e.waitFor("the notification at start", 10*time.Second, func() bool { return inUse() == 1 })
	var current string
	e.lua(`return require('coder').state().session_id`, &current)
	if current == id || current == "" {
		t.Fatalf("session after a refused resume: %q", current)
	}

	// /resume ID is refused the same way.
	e.cmd("Coder /resume " + id)
	e.waitFor("the notification for /resume", 10*time.Second, func() bool { return inUse() == 2 })
	e.waitIdle(10 * time.Second)
	if !strings.Contains(e.transcript(), "in use by another coder-nvim process") {
		t.Errorf("transcript lacks the refusal:\n%s", e.transcript())
	}

	// Still listed in the picker.
	e.lua(`
		_G.picked = nil
		vim.ui.select = function(items, opts, on_choice)
			_G.picked = items
			on_choice(nil)
		end
	`, nil)
	e.cmd("Coder /resume")
	e.waitFor("the picker", 10*time.Second, func() bool { return e.boolLua(`return _G.picked ~= nil`) })
	var labels string
	e.lua(`local l = {} for _, it in ipairs(_G.picked) do table.insert(l, it.label) end return table.concat(l, '\n')`, &labels)
	if !strings.Contains(labels, "the other editor's work") {
		t.Errorf("picker items = %q", labels)
	}

	// The editor's own session still works.
	e.llm.Enqueue(fakellm.Reply{Content: "still here"})
	e.cmd("Coder ping")
	e.waitFor("the answer", 10*time.Second, func() bool { return strings.Contains(e.transcript(), "still here") })
	e.waitIdle(10 * time.Second)

	// Given up there, it can be continued here.
	other.Release()
	e.cmd("Coder /resume " + id)
	e.waitFor("the resumed session", 10*time.Second, func() bool { return strings.Contains(e.transcript(), "resumed session "+id) })
}
