package acp_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	sdk "github.com/coder/acp-go-sdk"
	"github.com/google/uuid"
)

// TestSessionDelete: session/delete is advertised; it deletes a closed
// session's files (gone from session/list), succeeds again for it, and
// refuses a session open in this agent or in another process, an unknown
// id and a malformed one, each saying why.
func TestSessionDelete(t *testing.T) {
	llmSrv := fakellm.New()
	t.Cleanup(llmSrv.Close)
	e := newEnv(t, envOptions{llm: llmSrv})

	raw, err := e.call("initialize", sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber})
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	var init struct {
		AgentCapabilities struct {
			SessionCapabilities map[string]json.RawMessage `json:"sessionCapabilities"`
		} `json:"agentCapabilities"`
	}
	if err := json.Unmarshal(raw, &init); err != nil || string(init.AgentCapabilities.SessionCapabilities["delete"]) != "{}" {
		t.Fatalf("initialize does not advertise sessionCapabilities.delete: %s (%v)", raw, err)
	}

	closed, _ := e.newSession()
	llmSrv.Enqueue(fakellm.Reply{Content: "one"})
	e.mustPrompt(closed, "first", sdk.StopReasonEndTurn)
	if _, err := e.conn.CloseSession(ctxT(t), sdk.CloseSessionRequest{SessionId: closed}); err != nil {
		t.Fatal(err)
	}
	open, _ := e.newSession()
	llmSrv.Enqueue(fakellm.Reply{Content: "two"})
	e.mustPrompt(open, "second", sdk.StopReasonEndTurn)

	sessions := filepath.Join(e.root, ".coder", "sessions")
	files := func(id sdk.SessionId) []string {
		var out []string
		for _, ext := range []string{".json", ".journal", ".lock"} {
			if _, err := os.Lstat(filepath.Join(sessions, string(id)+ext)); err == nil {
				out = append(out, string(id)+ext)
			}
		}
		sum := sha256.Sum256([]byte(e.root + "\x00" + string(id)))
		if _, err := os.Lstat(filepath.Join(os.Getenv("XDG_STATE_HOME"), "coder-nvim", "sessions", hex.EncodeToString(sum[:]))); err == nil {
			out = append(out, "origin record")
		}
		return out
	}
	if f := files(closed); len(f) < 2 {
		t.Fatalf("the closed session's files before the delete: %v; want its snapshot and origin record", f)
	}
	del := func(env *env, id sdk.SessionId) error {
		raw, err := env.call("session/delete", map[string]any{"sessionId": id})
		if err == nil && string(raw) != "{}" {
			t.Errorf("session/delete answered %s, want {}", raw)
		}
		return err
	}

	if err := del(e, closed); err != nil {
		t.Fatalf("session/delete of a closed session: %v\nstderr:\n%s", err, e.proc.stderr.String())
	}
	if f := files(closed); len(f) > 0 {
		t.Errorf("left after session/delete: %v", f)
	}
	list, err := e.conn.ListSessions(ctxT(t), sdk.ListSessionsRequest{Cwd: &e.root})
	if err != nil || len(list.Sessions) != 1 || list.Sessions[0].SessionId != open {
		t.Errorf("session/list after the delete: %+v, %v; want only %s", list.Sessions, err, open)
	}
	if err := del(e, closed); err != nil {
		t.Errorf("session/delete of a session this agent deleted: %v; want success", err)
	}

	refused := func(what string, err error, code int, says string) {
		t.Helper()
		var re *sdk.RequestError
		if !errors.As(err, &re) || re.Code != code || !strings.Contains(fmt.Sprint(re.Message, re.Data), says) {
			t.Errorf("session/delete of %s: %v; want code %d saying %q", what, err, code, says)
		}
	}
	refused("a session open in this agent", del(e, open), -32603, "close it (session/close)")
	refused("an unknown session", del(e, sdk.SessionId(uuid.NewString())), -32002, e.root)
	refused("a malformed id", del(e, "../../x"), -32602, "not a session id")
	if f := files(open); len(f) < 2 {
		t.Errorf("the open session's files after the refused delete: %v", f)
	}

	other := newEnv(t, envOptions{root: e.root, llm: llmSrv})
	if _, err := other.conn.ListSessions(ctxT(t), sdk.ListSessionsRequest{Cwd: &e.root}); err != nil {
		t.Fatal(err)
	}
	refused("a session open in another process", del(other, open), -32603, fmt.Sprintf("process %d", e.proc.cmd.Process.Pid))
	if f := files(open); len(f) < 2 {
		t.Errorf("the session open elsewhere lost files: %v", f)
	}
}
