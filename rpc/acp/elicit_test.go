package acp_test

import (
	"context"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/mcp/elicitserver"
	sdk "github.com/coder/acp-go-sdk"
)

// An MCP server's single-choice question reaches the client as a
// permission request on the call, answered as the user picked; a form of
// several fields is declined and the client told what was asked.
func TestElicitationOverACP(t *testing.T) {
	srv := elicitserver.New()
	t.Cleanup(srv.Close)
	tests := []struct {
		name, tool, pick string // pick: the option chosen for the question
		want             string
		asked            bool
	}{
		{"yes", "confirm", "allow_once", `action=accept content={"go":true}`, true},
		{"no", "confirm", "answer_no", `action=accept content={"go":false}`, true},
		{"decline", "confirm", "reject_once", "action=decline content=null", true},
		{"unknown option declines", "confirm", "allow", "action=decline content=null", true},
		{"form of several fields", "signup", "", "action=decline content=null", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, envOptions{})
			var asked []sdk.RequestPermissionRequest
			e.client.permit = func(_ context.Context, req sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
				if req.ToolCall.Title != nil && strings.Contains(*req.ToolCall.Title, "MCP server ask asks") {
					asked = append(asked, req)
					return selectOption(tc.pick), nil
				}
				return selectOption("allow_once"), nil // the call itself
			}
			resp, err := e.conn.NewSession(ctxT(t), sdk.NewSessionRequest{Cwd: e.root, McpServers: []sdk.McpServer{
				{Http: &sdk.McpServerHttpInline{Name: "ask", Type: "http", Url: srv.URL, Headers: []sdk.HttpHeader{}}},
			}})
			if err != nil {
				t.Fatalf("session/new: %v", err)
			}
			e.llm.Enqueue(fakellm.Reply{ToolCalls: []llm.ToolCall{{ID: "call_e", Type: "function", Function: llm.FunctionCall{Name: "ask__" + tc.tool, Arguments: "{}"}}}}, fakellm.Reply{Content: "ok"})
			e.mustPrompt(resp.SessionId, "go", sdk.StopReasonEndTurn)
			if got := toolResult(e.llm.Requests(), "call_e"); got != tc.want {
				t.Fatalf("tool result = %q, want %q", got, tc.want)
			}
			if !tc.asked {
				if len(asked) != 0 {
					t.Fatalf("asked %+v", asked)
				}
				if txt := agentText(e.client.snapshot()); !strings.Contains(txt, "Who are you?") || !strings.Contains(txt, "declined: this client can answer only a single choice") {
					t.Errorf("agent text = %q", txt)
				}
				return
			}
			if len(asked) != 1 || asked[0].ToolCall.ToolCallId != "call_e" || !strings.Contains(contentText(asked[0].ToolCall.Content), "Deploy now?") {
				t.Fatalf("asked = %+v", asked)
			}
		})
	}
}
