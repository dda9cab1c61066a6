package acp_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
	sdk "github.com/coder/acp-go-sdk"
)

// A cancel that lands while a change set is half written through the
// client must still stop the turn: the rollback writes through the client
// too, and its answers must not wait behind the session/cancel being
// handled.
func TestCancelDuringClientWrite(t *testing.T) {
	e := newEnv(t, envOptions{fs: true})
	sid, _ := e.newSession()
	e.setMode(sid, "yolo")
	a, b := filepath.Join(e.root, "a.txt"), filepath.Join(e.root, "b.txt")
	for path, text := range map[string]string{a: "one\n", b: "two\n"} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writingB := make(chan struct{})
	e.client.mu.Lock()
	e.client.beforeWrite = func(ctx context.Context, req sdk.WriteTextFileRequest) error {
		if req.Path != b {
			return nil
		}
		close(writingB)
		<-ctx.Done() // withdrawn by the agent when the turn is cancelled
		return ctx.Err()
	}
	e.client.mu.Unlock()
	patch := "*** Begin Patch\n*** Update File: a.txt\n-one\n+ONE\n*** Update File: b.txt\n-two\n+TWO\n*** End Patch\n"
	e.llm.Enqueue(fakellm.Reply{ToolCalls: []llm.ToolCall{call("call_p", "patch", map[string]string{"patch": patch})}})

	done := make(chan error, 1)
	var resp sdk.PromptResponse
	go func() {
		var err error
		resp, err = e.prompt(sid, "patch both")
		done <- err
	}()
	select {
	case <-writingB:
	case <-time.After(10 * time.Second):
		t.Fatalf("b.txt was never written through the client; stderr:\n%s", e.proc.stderr.String())
	}
	start := time.Now()
	if err := e.conn.Cancel(ctxT(t), sdk.CancelNotification{SessionId: sid}); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil || resp.StopReason != sdk.StopReasonCancelled {
			t.Fatalf("cancelled prompt: %+v, %v; want stop reason cancelled", resp, err)
		}
		t.Logf("the turn stopped %v after session/cancel", time.Since(start))
	case <-time.After(minWait):
		t.Fatal("the prompt did not return after session/cancel (deadlock between the cancel and the rollback's client write)")
	}
	if data, _ := os.ReadFile(a); string(data) != "one\n" {
		t.Errorf("a.txt = %q after the rolled-back patch, want %q", data, "one\n")
	}
	e.llm.Enqueue(fakellm.Reply{Content: "Still here."})
	e.mustPrompt(sid, "are you there?", sdk.StopReasonEndTurn)
}

// A client names files under the cwd it gave, even when that cwd is a
// symlink: fs requests must use its paths, or its unsaved buffers are
// missed and edits land beside them.
func TestFSDelegationSymlinkedCwd(t *testing.T) {
	real, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, envOptions{fs: true, root: real})
	resp, err := e.conn.NewSession(ctxT(t), sdk.NewSessionRequest{Cwd: link, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	sid := resp.SessionId
	if err := os.WriteFile(filepath.Join(real, "buf.txt"), []byte("on disk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.client.buffers[filepath.Join(link, "buf.txt")] = "unsaved edit\n"
	e.llm.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("call_r", "read", map[string]string{"path": "buf.txt"})}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("call_w", "write", map[string]string{"path": "new.txt", "content": "hi\n"})}},
		fakellm.Reply{Content: "Done."},
	)
	e.client.permit = nil // allow once
	e.mustPrompt(sid, "read buf.txt, write new.txt", sdk.StopReasonEndTurn)

	reqs := e.llm.Requests()
	if msg, _ := toolMessage(reqs[1], "call_r"); !strings.Contains(msg, "unsaved edit") {
		t.Errorf("read result %q, want the editor's unsaved buffer", msg)
	}
	e.client.mu.Lock()
	reads := append([]string(nil), e.client.reads...)
	writes := append([]sdk.WriteTextFileRequest(nil), e.client.writes...)
	e.client.mu.Unlock()
	for _, p := range reads {
		if !strings.HasPrefix(p, link+string(filepath.Separator)) {
			t.Errorf("fs/read_text_file for %s, want a path under the session cwd %s", p, link)
		}
	}
	if len(writes) != 1 || writes[0].Path != filepath.Join(link, "new.txt") {
		t.Errorf("fs/write_text_file calls %+v, want one for %s", writes, filepath.Join(link, "new.txt"))
	}
}

// The client owns the session list: /new and /resume ID typed into a
// prompt must not swap the engine's session behind the ACP session id, or
// later turns are saved under an id the client never sees.
func TestSessionSwapCommandsRefused(t *testing.T) {
	e := newEnv(t, envOptions{})
	sid, _ := e.newSession()
	e.llm.Enqueue(fakellm.Reply{Content: "First."})
	e.mustPrompt(sid, "first", sdk.StopReasonEndTurn)
	other, _ := e.newSession()
	e.llm.Enqueue(fakellm.Reply{Content: "Other."})
	e.mustPrompt(other, "other", sdk.StopReasonEndTurn)

	for _, input := range []string{"/new", " /resume " + string(other)} {
		before := len(e.client.snapshot())
		e.mustPrompt(sid, input, sdk.StopReasonEndTurn)
		var text string
		for _, u := range e.client.snapshot()[before:] {
			if u.SessionId == sid {
				text += agentText([]sdk.SessionNotification{u})
			}
		}
		if !strings.Contains(text, "not available") {
			t.Errorf("%q answered %q, want a refusal", input, text)
		}
	}
	e.llm.Enqueue(fakellm.Reply{Content: "Second."})
	e.mustPrompt(sid, "second", sdk.StopReasonEndTurn)

	list, err := e.conn.ListSessions(ctxT(t), sdk.ListSessionsRequest{Cwd: sdk.Ptr(e.root)})
	if err != nil {
		t.Fatal(err)
	}
	var ids []sdk.SessionId
	for _, s := range list.Sessions {
		ids = append(ids, s.SessionId)
	}
	if len(ids) != 2 {
		t.Errorf("saved sessions %v, want only %s and %s", ids, sid, other)
	}
	// The last request of sid carries its own history, not the other's.
	reqs := e.llm.Requests()
	last := reqs[len(reqs)-1]
	var users []string
	for _, m := range last.Messages {
		if m.Role == llm.RoleUser {
			users = append(users, m.Content)
		}
	}
	if len(users) < 2 || users[0] != "first" || users[len(users)-1] != "second" {
		t.Errorf("user messages of the last request %q, want first ... second", users)
	}
}

// A request sent without an id is a notification to the SDK, handled in
// line with session/cancel and ahead of every response to the agent's own
// requests: a session/prompt sent that way would run its turn there, and
// its permission request could never be answered nor the turn cancelled.
// It is refused instead.
func TestRequestSentAsNotification(t *testing.T) {
	e := newEnv(t, envOptions{})
	sid, _ := e.newSession()
	e.llm.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("call_w", "write", map[string]string{"path": "x.txt", "content": "x\n"})}},
		fakellm.Reply{Content: "Done."},
	)
	line := fmt.Sprintf(`{"jsonrpc":"2.0","method":"session/prompt","params":{"sessionId":%q,"prompt":[{"type":"text","text":"write x.txt"}]}}`+"\n", sid)
	if _, err := io.WriteString(e.proc.stdin, line); err != nil {
		t.Fatal(err)
	}
	// The refusal is logged when the line has been handled.
	e.client.waitFor(t, "the refusal on stderr", func() bool { return strings.Contains(e.proc.stderr.String(), "needs an id") })
	if n := len(e.llm.Requests()); n != 0 {
		t.Fatalf("a session/prompt without an id ran a turn (%d model requests)", n)
	}
	e.mustPrompt(sid, "write x.txt", sdk.StopReasonEndTurn)
	// A turn started by the notification would have taken model replies.
	if n := len(e.llm.Requests()); n != 2 {
		t.Fatalf("%d model requests, want the 2 of the real prompt", n)
	}
	if data, err := os.ReadFile(filepath.Join(e.root, "x.txt")); err != nil || string(data) != "x\n" {
		t.Errorf("x.txt = %q, %v", data, err)
	}
}

// Closing a session with a tool call running still reports the call as
// ended before the cancelled prompt returns.
func TestCloseReportsRunningCalls(t *testing.T) {
	e := newEnv(t, envOptions{})
	for i := range 4 {
		sid, _ := e.newSession()
		if _, err := e.conn.SetSessionMode(ctxT(t), sdk.SetSessionModeRequest{SessionId: sid, ModeId: "yolo"}); err != nil {
			t.Fatal(err)
		}
		id := fmt.Sprintf("call_s%d", i)
		marker := fmt.Sprintf("started%d", i)
		e.llm.Enqueue(fakellm.Reply{ToolCalls: []llm.ToolCall{call(id, "bash", map[string]string{"command": "touch " + marker + " && sleep 20"})}})
		done := make(chan error, 1)
		var resp sdk.PromptResponse
		go func() {
			var err error
			resp, err = e.prompt(sid, "wait")
			done <- err
		}()
		e.client.waitFor(t, "the running shell call", func() bool {
			for _, c := range toolCalls(e.client.snapshot()) {
				if string(c.ToolCallId) == id {
					return true
				}
			}
			return false
		})
		waitFile(t, filepath.Join(e.root, marker)) // the command runs
		if _, err := e.conn.CloseSession(ctxT(t), sdk.CloseSessionRequest{SessionId: sid}); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-done:
			if err != nil || resp.StopReason != sdk.StopReasonCancelled {
				t.Fatalf("prompt of a closed session: %+v, %v; want cancelled", resp, err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("the prompt did not return after session/close")
		}
		if end := lastToolUpdate(e.client.snapshot(), sdk.ToolCallId(id)); end == nil || *end.Status != sdk.ToolCallStatusFailed {
			t.Fatalf("%s: final update %+v, want failed (cancelled)", id, end)
		}
	}
}
