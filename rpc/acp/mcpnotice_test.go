package acp_test

import (
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	sdk "github.com/coder/acp-go-sdk"
)

// TestMCPFailureToldOnceInTurn: an MCP server that cannot start is told
// once, inside the next turn, not once per attempt outside any turn.
func TestMCPFailureToldOnceInTurn(t *testing.T) {
	e := newEnv(t, envOptions{})
	resp, err := e.conn.NewSession(ctxT(t), sdk.NewSessionRequest{Cwd: e.root, McpServers: []sdk.McpServer{
		{Stdio: &sdk.McpServerStdio{Name: "broken", Command: "/nonexistent/mcp-server", Args: []string{}, Env: []sdk.EnvVariable{}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	e.client.waitFor(t, "the failure in the agent's log", func() bool {
		return strings.Contains(e.proc.stderr.String(), "mcp broken")
	})
	outside := agentText(e.client.snapshot())
	e.llm.Enqueue(fakellm.Reply{Content: "hi"})
	before := len(e.client.snapshot())
	e.mustPrompt(resp.SessionId, "hello", sdk.StopReasonEndTurn)
	inside := agentText(e.client.snapshot()[before:])
	if strings.Contains(outside, "MCP server broken") {
		t.Errorf("the failure was told outside a turn: %q", outside)
	}
	if n := strings.Count(inside, "MCP server broken"); n != 1 {
		t.Errorf("the failure was told %d times in the turn, want once: %q", n, inside)
	}
}
