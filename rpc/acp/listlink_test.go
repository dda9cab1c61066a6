package acp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	sdk "github.com/coder/acp-go-sdk"
)

// TestSessionListRefusesLinkedDir: session/list for a workspace whose
// .coder/sessions is a link to another workspace's sessions (as a
// repository can ship it) is refused with the reason, and lists nothing;
// the other workspace's own list still works.
func TestSessionListRefusesLinkedDir(t *testing.T) {
	llmSrv := fakellm.New()
	t.Cleanup(llmSrv.Close)
	e := newEnv(t, envOptions{llm: llmSrv})
	id, _ := e.newSession()
	llmSrv.Enqueue(fakellm.Reply{Content: "one"})
	e.mustPrompt(id, "first", sdk.StopReasonEndTurn)

	linked := t.TempDir()
	if err := os.Mkdir(filepath.Join(linked, ".coder"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(e.root, ".coder", "sessions"), filepath.Join(linked, ".coder", "sessions")); err != nil {
		t.Skip("no symlinks here:", err)
	}
	list, err := e.conn.ListSessions(ctxT(t), sdk.ListSessionsRequest{Cwd: &linked})
	if err == nil || !strings.Contains(err.Error(), "leads out of the workspace") || len(list.Sessions) != 0 {
		t.Errorf("session/list through a linked sessions directory: %+v, %v", list.Sessions, err)
	}
	if own, err := e.conn.ListSessions(ctxT(t), sdk.ListSessionsRequest{Cwd: &e.root}); err != nil || len(own.Sessions) != 1 {
		t.Errorf("the workspace's own session/list: %+v, %v", own.Sessions, err)
	}
}
