//go:build unix

package nvimhost

import (
	"strings"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
)

// In the chat: a blocked input says why and keeps the text; a refused
// call shows the hook's reason; the chat is ready for the next input.
func TestHooksInChat(t *testing.T) {
	e := newEditor(t, editorOpts{config: `{"hooks": {
		"user_prompt_submit": [{"command": "grep -q password && { echo 'no passwords in prompts' >&2; exit 2; }; exit 0"}],
		"pre_tool_use": [{"matcher": "bash", "command": "echo 'bash is off here' >&2; exit 2"}]}}`})
	e.start()
	e.run("Coder my password is hunter2")
	e.waitFor("the blocked input's reason", 10*time.Second, func() bool {
		tr := e.transcript()
		return strings.Contains(tr, "no passwords in prompts") && strings.Contains(tr, "my password is hunter2")
	})
	if n := len(e.llm.Requests()); n != 0 {
		t.Fatalf("%d requests sent", n)
	}

	e.llm.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("c1", "bash", map[string]any{"command": "ls"})}},
		fakellm.Reply{Content: "fine"},
	)
	e.run("Coder list files")
	e.waitFor("the refused call", 10*time.Second, func() bool {
		return strings.Contains(e.transcript(), "bash is off here")
	})
	e.waitIdle(10 * time.Second)
	if e.approvalOpen() {
		t.Error("an approval was asked for a refused call")
	}
}
