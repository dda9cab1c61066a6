package acp_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
	sdk "github.com/coder/acp-go-sdk"
)

// toolResult is the content of the tool message answering call id in the
// model's requests.
func toolResult(reqs []fakellm.Request, id string) string {
	for _, r := range reqs {
		for _, m := range r.Messages {
			if m.Role == "tool" && m.ToolCallID == id {
				return m.Content
			}
		}
	}
	return ""
}

// fsSession is a session of a client that offers fs reads and writes, in
// mode, with a.txt ("one\n") in its workspace (returned: its path).
func fsSession(t *testing.T, mode string, extraEnv ...string) (*env, sdk.SessionId, string) {
	t.Helper()
	e := newEnv(t, envOptions{fs: true, env: extraEnv})
	sid, _ := e.newSession()
	if _, err := e.conn.SetSessionMode(ctxT(t), sdk.SetSessionModeRequest{SessionId: sid, ModeId: sdk.SessionModeId(mode)}); err != nil {
		t.Fatal(err)
	}
	a := filepath.Join(e.root, "a.txt")
	if err := os.WriteFile(a, []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return e, sid, a
}

// TestClientWriteNeverAnswered: an editor that writes the file yet never
// answers fs/write_text_file (avante on a modified buffer) must not hang
// the turn, and the result must say the file changed, not "no files were
// changed" — also when what the editor wrote is not the content sent
// (codecompanion writes a loaded buffer with an extra blank line at the end).
func TestClientWriteNeverAnswered(t *testing.T) {
	patch := "*** Begin Patch\n*** Update File: a.txt\n-one\n+ONE\n*** End Patch\n"
	tests := []struct {
		name  string
		call  llm.ToolCall
		wrote func(sent string) string // what the editor puts on disk
		want  []string
	}{
		{"as sent", call("call_p", "patch", map[string]string{"patch": patch}),
			func(sent string) string { return sent },
			[]string{"the editor did not answer within 1s", "a.txt now holds the new content"}},
		{"not as sent", call("call_p", "edit", map[string]string{"path": "a.txt", "old_string": "one", "new_string": "ONE"}),
			func(sent string) string { return sent + "\n" },
			[]string{"the editor did not answer within 1s", "a.txt changed on disk during the write, though not to the content sent"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, sid, _ := fsSession(t, "yolo", "CODER_NVIM_ACP_CLIENT_TIMEOUT=1s")
			release := make(chan struct{})
			t.Cleanup(func() { close(release) })
			e.client.mu.Lock()
			e.client.beforeWrite = func(ctx context.Context, req sdk.WriteTextFileRequest) error {
				if err := os.WriteFile(req.Path, []byte(tt.wrote(req.Content)), 0o644); err != nil {
					return err
				}
				<-release // the answer never comes while the turn runs
				return nil
			}
			e.client.mu.Unlock()
			e.llm.Enqueue(fakellm.Reply{ToolCalls: []llm.ToolCall{tt.call}}, fakellm.Reply{Content: "Done."})
			e.mustPrompt(sid, "change a", sdk.StopReasonEndTurn)
			got := toolResult(e.llm.Requests(), "call_p")
			for _, want := range tt.want {
				if !strings.Contains(got, want) {
					t.Errorf("the result is %q, want it to contain %q", got, want)
				}
			}
			if strings.Contains(got, "no files were changed") {
				t.Errorf("the result says nothing changed, yet a.txt did: %q", got)
			}
		})
	}
}

// TestClientReadErrorSaid: a read the editor fails is the tool's error,
// never the disk copy in silence.
func TestClientReadErrorSaid(t *testing.T) {
	e := newEnv(t, envOptions{fs: true})
	sid, _ := e.newSession()
	a := filepath.Join(e.root, "a.txt")
	if err := os.WriteFile(a, []byte("DISK-COPY\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.client.mu.Lock()
	e.client.readErr = map[string]error{a: errors.New("buffer is being edited")}
	e.client.mu.Unlock()
	e.llm.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("call_r", "read", map[string]string{"path": "a.txt"})}},
		fakellm.Reply{Content: "Done."},
	)
	e.mustPrompt(sid, "read a", sdk.StopReasonEndTurn)
	got := toolResult(e.llm.Requests(), "call_r")
	if strings.Contains(got, "DISK-COPY") || !strings.Contains(got, "through the editor") {
		t.Errorf("the read's result is %q, want the editor's error and not the disk copy", got)
	}
}

// TestClientSavesOtherwise: an editor that saves a write otherwise than
// sent (codecompanion.nvim adds a blank line at the end) is read back: the
// result says how the file differs from the change, and the next edit of
// the file is not refused as "changed on disk since you last read it".
func TestClientSavesOtherwise(t *testing.T) {
	e, sid, a := fsSession(t, "auto-edit")
	e.client.mu.Lock()
	e.client.saveAs = func(content string) string { return content + "\n" }
	e.client.mu.Unlock()
	e.llm.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("call_1", "edit", map[string]string{"path": "a.txt", "old_string": "one", "new_string": "two"})}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("call_2", "edit", map[string]string{"path": "a.txt", "old_string": "two", "new_string": "three"})}},
		fakellm.Reply{Content: "Done."},
	)
	e.mustPrompt(sid, "edit a twice", sdk.StopReasonEndTurn)
	reqs := e.llm.Requests()
	if got := toolResult(reqs, "call_1"); !strings.Contains(got, "The editor saved a.txt otherwise than sent") || !strings.Contains(got, "@@ -1 +1,2 @@\n two\n+") {
		t.Errorf("the first edit's result is %q, want it to say how the editor's file differs", got)
	}
	if got := toolResult(reqs, "call_2"); !strings.HasPrefix(got, "Updated a.txt") {
		t.Errorf("the second edit's result is %q, want it applied", got)
	}
	if data, _ := os.ReadFile(a); string(data) != "three\n\n\n" {
		t.Errorf("a.txt holds %q", data)
	}
}
