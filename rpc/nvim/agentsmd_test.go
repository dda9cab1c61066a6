package nvimhost

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
)

// :Coder shows a line naming the AGENTS.md files the session was given;
// /init completes and runs a turn asking the model for AGENTS.md.
func TestAgentsMDInEditor(t *testing.T) {
	e := newEditor(t, editorOpts{})
	writeFile(t, filepath.Join(e.dir, "AGENTS.md"), "use tabs\n")
	e.start()
	e.waitFor("the AGENTS.md line", 10*time.Second, func() bool {
		return strings.Contains(e.transcript(), "project instructions: AGENTS.md (9 B)")
	})

	var comp []string
	e.lua(`return vim.fn.getcompletion('Coder /in', 'cmdline')`, &comp)
	if len(comp) != 1 || comp[0] != "/init" {
		t.Errorf("completion of /in = %v", comp)
	}

	e.llm.Enqueue(fakellm.Reply{Content: "AGENTS.md looks complete"})
	e.cmd("Coder /init")
	e.waitFor("the answer", 10*time.Second, func() bool { return strings.Contains(e.transcript(), "AGENTS.md looks complete") })
	reqs := e.llm.Requests()
	msgs := reqs[len(reqs)-1].Messages
	if !strings.Contains(msgs[1].Content, "use tabs") || !strings.Contains(msgs[len(msgs)-1].Content, "write AGENTS.md") {
		t.Errorf("request = %+v", msgs)
	}
}
