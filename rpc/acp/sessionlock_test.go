package acp_test

import (
	"errors"
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
	if !errors.As(err, &re) || !strings.Contains(re.Message, "in use by another coder-nvim process") {
		t.Fatalf("session/load of a session in use: %v", err)
	}

	first.proc.stop()
	if err := load(); err != nil {
		t.Fatalf("session/load after the other process ended: %v\nstderr:\n%s", err, second.proc.stderr.String())
	}
	llmSrv.Enqueue(fakellm.Reply{Content: "continued"})
	second.mustPrompt(sid, "go on", sdk.StopReasonEndTurn)
}
