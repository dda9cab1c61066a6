package acp_test

import (
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/mcptest"
	sdk "github.com/coder/acp-go-sdk"
)

// An MCP server given in session/new: its prompts join the available
// commands once it is up, with their arguments as the input hint, and a
// prompt run sends its messages as the user's turn.
func TestMCPPromptsAsAvailableCommands(t *testing.T) {
	url := mcptest.HTTP(t, mcptest.Server(mcptest.Options{Tools: 1, Prompts: true, Resources: true}))
	e := newEnv(t, envOptions{})
	resp, err := e.conn.NewSession(ctxT(t), sdk.NewSessionRequest{Cwd: e.root, McpServers: []sdk.McpServer{{Http: &sdk.McpServerHttpInline{Name: "docs", Type: "http", Url: url, Headers: []sdk.HttpHeader{}}}}})
	if err != nil {
		t.Fatalf("session/new: %v", err)
	}
	sid := resp.SessionId
	var hint string
	e.client.waitFor(t, "docs:review among the available commands", func() bool {
		for _, u := range e.client.snapshot() {
			if a := u.Update.AvailableCommandsUpdate; a != nil {
				for _, c := range a.AvailableCommands {
					if c.Name == "docs:review" && c.Input != nil && c.Input.Unstructured != nil {
						hint = c.Input.Unstructured.Hint
						return true
					}
				}
			}
		}
		return false
	})
	if hint != "lang=… [focus=…]" {
		t.Errorf("hint %q", hint)
	}
	e.llm.Enqueue(fakellm.Reply{Content: "reviewed"})
	e.mustPrompt(sid, "/docs:review lang=c", sdk.StopReasonEndTurn)
	msgs := e.llm.Requests()[0].Messages
	if last := msgs[len(msgs)-1].Content; !strings.HasPrefix(last, "Review the c code.") {
		t.Errorf("the user's turn is %q", last)
	}
}
