package acp_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	sdk "github.com/coder/acp-go-sdk"
)

// TestLoadSessionInUse: while one agent process has a session open,
// session/load of it in another is a JSON-RPC error that says so; once the
// first process ends, the load works.
func TestLoadSessionInUse(t *testing.T) {
	llmSrv := fakellm.New()
	t.Cleanup(llmSrv.Close)
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	first := newEnv(t, envOptions{root: root, llm: llmSrv})
	sid, _ := first.newSession()
	llmSrv.Enqueue(fakellm.Reply{Content: "saved"})
	first.mustPrompt(sid, "hello", sdk.StopReasonEndTurn)

	second := newEnv(t, envOptions{root: root, llm: llmSrv})
	load := func() error {
		_, err := second.conn.LoadSession(ctxT(t), sdk.LoadSessionRequest{SessionId: sid, Cwd: root, McpServers: []sdk.McpServer{}})
		return err
	}
	err = load()
	var re *sdk.RequestError
	holder := fmt.Sprintf("process %d", first.proc.cmd.Process.Pid)
	if !errors.As(err, &re) || !strings.Contains(re.Message, "in use by another coder-nvim process") || !strings.Contains(re.Message, holder) {
		t.Fatalf("session/load of a session in use: %v; want it to name %s", err, holder)
	}
	if re.Code != -32010 {
		t.Errorf("session/load of a session in use: code %d, want -32010 (locked), not a generic internal error", re.Code)
	}
	listed := func() sdk.SessionInfo {
		t.Helper()
		resp, err := second.conn.ListSessions(ctxT(t), sdk.ListSessionsRequest{Cwd: &root})
		if err != nil || len(resp.Sessions) != 1 {
			t.Fatalf("session/list: %+v, %v; want the one session", resp, err)
		}
		return resp.Sessions[0]
	}
	if info := listed(); info.Title == nil || !strings.Contains(*info.Title, "[open in "+holder+"]") || info.Meta == nil {
		t.Errorf("session/list offers the session held by %s unmarked: %+v", holder, info)
	}

	first.proc.stop()
	if info := listed(); info.Title == nil || strings.Contains(*info.Title, "[open in") || info.Meta != nil {
		t.Errorf("session/list still marks the session after its process ended: %+v", info)
	}
	if err := load(); err != nil {
		t.Fatalf("session/load after the other process ended: %v\nstderr:\n%s", err, second.proc.stderr.String())
	}
	llmSrv.Enqueue(fakellm.Reply{Content: "continued"})
	second.mustPrompt(sid, "go on", sdk.StopReasonEndTurn)
}
