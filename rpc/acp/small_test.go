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
