package acp_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
	sdk "github.com/coder/acp-go-sdk"
)

// TestBashOutputStreams: while a bash call runs, a client without
// terminals (none is asked for) gets a tool_call_update whose content is
// the output so far (the command goes on only once its first line was
// seen); the end's content is the result.
func TestBashOutputStreams(t *testing.T) {
	e := newEnv(t, envOptions{})
	sid, _ := e.newSession()
	done := runGated(t, e, sid, 0)
	running := func() *sdk.SessionToolCallUpdate {
		for _, u := range e.client.snapshot() {
			if c := u.Update.ToolCallUpdate; c != nil && c.ToolCallId == "b1" && c.Status == nil && contentText(c.Content) == "first line\n" {
				return c
			}
		}
		return nil
	}
	e.client.waitFor(t, "the first line while the command runs", func() bool { return running() != nil })
	if end := lastToolUpdate(e.client.snapshot(), "b1"); end != nil && *end.Status != sdk.ToolCallStatusInProgress {
		t.Fatalf("the call ended before its gate was opened: %+v", end)
	}
	if err := os.WriteFile(filepath.Join(e.root, "gate"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("session/prompt: %v", err)
	}
	e.client.mu.Lock()
	if n := e.client.termRequests; n > 0 {
		t.Errorf("a client without terminals got %d terminal requests", n)
	}
	e.client.mu.Unlock()
	updates := e.client.snapshot()
	end := lastToolUpdate(updates, "b1")
	if end == nil || *end.Status != sdk.ToolCallStatusCompleted || contentText(end.Content) != "first line\nsecond line\n[exit code 0]" {
		t.Fatalf("final update %+v", end)
	}
	for _, u := range updates {
		if c := u.Update.ToolCallUpdate; c != nil && c.ToolCallId == "b1" && c.Status == nil && strings.Contains(contentText(c.Content), "exit code") {
			t.Errorf("a streamed update holds the result: %q", contentText(c.Content))
		}
	}
}

// runGated starts a turn whose bash call b1 prints "first line", waits
// for the file gate in the workspace, prints "second line" and exits
// with code; the prompt's error comes on the channel.
func runGated(t *testing.T, e *env, sid sdk.SessionId, code int) <-chan error {
	t.Helper()
	script := fmt.Sprintf("printf 'first line\\n'; while [ ! -e gate ]; do sleep 0.02; done; printf 'second line\\n'; exit %d\n", code)
	if err := os.WriteFile(filepath.Join(e.root, "s.sh"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	e.llm.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("b1", "bash", map[string]any{"command": "bash s.sh", "timeout_ms": 60000})}},
		fakellm.Reply{Content: "Done."},
	)
	done := make(chan error, 1)
	go func() {
		_, err := e.prompt(sid, "run it")
		done <- err
	}()
	return done
}
