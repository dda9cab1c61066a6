package acp_test

import (
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	sdk "github.com/coder/acp-go-sdk"
)

// TestSmallProtocolAnswers: authenticate with a method id never advertised
// is an error; session/set_model switches the model as the config option
// does; session/list refuses a cursor it never gave and takes its own.
func TestSmallProtocolAnswers(t *testing.T) {
	llmSrv := fakellm.New()
	t.Cleanup(llmSrv.Close)
	llmSrv.SetModels([]string{"model-a", "model-b"})
	e := newEnv(t, envOptions{llm: llmSrv})
	if _, err := e.conn.Authenticate(ctxT(t), sdk.AuthenticateRequest{MethodId: "oauth"}); requestCode(err) != -32602 || !strings.Contains(err.Error(), "oauth") {
		t.Errorf("authenticate oauth: %v, want -32602 naming the method", err)
	}
	sid, _ := e.newSession()
	if _, err := e.conn.UnstableSetSessionModel(ctxT(t), sdk.UnstableSetSessionModelRequest{SessionId: sid, ModelId: "model-b"}); err != nil {
		t.Fatalf("session/set_model: %v", err)
	}
	e.client.waitFor(t, "the model option at model-b", func() bool {
		ups := configUpdates(e.client.snapshot())
		return len(ups) > 0 && selectOf(ups[len(ups)-1], sdk.SessionConfigId("model")).CurrentValue == "model-b"
	})
	if _, err := e.conn.UnstableSetSessionModel(ctxT(t), sdk.UnstableSetSessionModelRequest{SessionId: sid, ModelId: "nope"}); requestCode(err) != -32602 {
		t.Errorf("session/set_model nope: %v, want -32602", err)
	}
	llmSrv.Enqueue(fakellm.Reply{Content: "hi"})
	e.mustPrompt(sid, "hello", sdk.StopReasonEndTurn)
	if _, err := e.conn.ListSessions(ctxT(t), sdk.ListSessionsRequest{Cwd: sdk.Ptr(e.root), Cursor: sdk.Ptr("garbage")}); requestCode(err) != -32602 || !strings.Contains(err.Error(), "cursor") {
		t.Errorf("session/list with a foreign cursor: %v, want -32602 naming the cursor", err)
	}
	resp, err := e.conn.ListSessions(ctxT(t), sdk.ListSessionsRequest{Cwd: sdk.Ptr(e.root)})
	if err != nil || len(resp.Sessions) != 1 || resp.NextCursor != nil {
		t.Errorf("session/list: %+v %v, want one session and no next page", resp, err)
	}
}

// TestLoadEmptySession: a saved session that holds no messages (its only
// turn rewound) is not listed,
// and loading it is an error, not a success that replays nothing (a
// client shows that as an empty chat "resumed").
func TestLoadEmptySession(t *testing.T) {
	llmSrv := fakellm.New()
	t.Cleanup(llmSrv.Close)
	first := newEnv(t, envOptions{llm: llmSrv})
	sid, _ := first.newSession()
	llmSrv.Enqueue(fakellm.Reply{Content: "hi"})
	first.mustPrompt(sid, "hello", sdk.StopReasonEndTurn)
	first.mustPrompt(sid, "/rewind 1", sdk.StopReasonEndTurn) // saved, and empty
	first.proc.stop()
	second := newEnv(t, envOptions{llm: llmSrv, root: first.root})
	list, err := second.conn.ListSessions(ctxT(t), sdk.ListSessionsRequest{Cwd: sdk.Ptr(first.root)})
	if err != nil || len(list.Sessions) != 0 {
		t.Errorf("session/list: %+v %v, want no session", list, err)
	}
	_, err = second.conn.LoadSession(ctxT(t), sdk.LoadSessionRequest{SessionId: sid, Cwd: first.root, McpServers: []sdk.McpServer{}})
	if requestCode(err) != -32002 {
		t.Errorf("session/load of an empty session: %v, want -32002", err)
	}
	// The session can still be started afresh.
	sid2, _ := second.newSession()
	llmSrv.Enqueue(fakellm.Reply{Content: "hi"})
	second.mustPrompt(sid2, "hello", sdk.StopReasonEndTurn)
}
