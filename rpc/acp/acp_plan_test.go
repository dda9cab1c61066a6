package acp_test

import (
	"os"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
	sdk "github.com/coder/acp-go-sdk"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestPlanModeRefusesWrite(t *testing.T) {
	e := newEnv(t, envOptions{})
	sid, _ := e.newSession()
	e.setMode(sid, "plan")
	e.client.waitFor(t, "current_mode_update plan", func() bool {
		for _, u := range e.client.snapshot() {
			if m := u.Update.CurrentModeUpdate; m != nil && m.CurrentModeId == "plan" {
				return true
			}
		}
		return false
	})
	_, err := e.conn.SetSessionMode(ctxT(t), sdk.SetSessionModeRequest{SessionId: sid, ModeId: "turbo"})
	if code := requestCode(err); code != -32602 {
		t.Errorf("set_mode turbo: %v (code %d), want invalid params -32602", err, code)
	}

	e.llm.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("call_w", "write", map[string]string{"path": "plan.txt", "content": "x"})}},
		fakellm.Reply{Content: "Here is my plan instead."},
	)
	e.mustPrompt(sid, "write plan.txt", sdk.StopReasonEndTurn)
	if _, err := os.Stat(filepath.Join(e.root, "plan.txt")); err == nil {
		t.Error("plan.txt was written in plan mode")
	}
	if n := len(e.client.permissions()); n != 0 {
		t.Errorf("%d permission requests in plan mode, want 0 (refused outright)", n)
	}
	end := lastToolUpdate(e.client.snapshot(), "call_w")
	if end == nil || *end.Status != sdk.ToolCallStatusFailed {
		t.Errorf("final update %+v, want failed", end)
	}
	reqs := e.llm.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	for _, tool := range reqs[0].Tools {
		if tool.Function.Name == "write" {
			t.Error("plan mode offered the write tool")
		}
	}
	if msg, _ := toolMessage(reqs[1], "call_w"); !strings.Contains(msg, "plan mode") {
		t.Errorf("tool message %q, want it to mention plan mode", msg)
	}
}

func TestPlanUpdates(t *testing.T) {
	e := newEnv(t, envOptions{})
	sid, _ := e.newSession()
	todos := map[string]any{"todos": []map[string]string{
		{"content": "read the code", "status": "completed"},
		{"content": "fix the bug", "status": "in_progress"},
		{"content": "run the tests", "status": "pending"},
	}}
	e.llm.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("call_t", "todo", todos)}},
		fakellm.Reply{Content: "Planned."},
	)
	e.mustPrompt(sid, "plan the fix", sdk.StopReasonEndTurn)
	lastPlan := func(updates []sdk.SessionNotification) string {
		var got string
		for _, u := range updates {
			if p := u.Update.Plan; p != nil {
				got = ""
				for _, en := range p.Entries {
					got += string(en.Status) + ":" + en.Content + ";"
				}
			}
		}
		return got
	}
	want := "completed:read the code;in_progress:fix the bug;pending:run the tests;"
	if got := lastPlan(e.client.snapshot()); got != want {
		t.Errorf("plan %q, want %q", got, want)
	}

	// session/load in the same process replaces the live session and
	// replays the plan too.
	before := len(e.client.snapshot())
	if _, err := e.conn.LoadSession(ctxT(t), sdk.LoadSessionRequest{SessionId: sid, Cwd: e.root, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatal(err)
	}
	if got := lastPlan(e.client.snapshot()[before:]); got != want {
		t.Errorf("replayed plan %q, want %q", got, want)
	}
	e.llm.Enqueue(fakellm.Reply{Content: "Continuing."})
	e.mustPrompt(sid, "go on", sdk.StopReasonEndTurn)
}

// TestUntrustedWorkspaceRestricted: a repository's .coder/config.json with
// an MCP server and yolo is not applied on session/new; the agent says what
// it ignored.
func TestUntrustedWorkspaceRestricted(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(t.TempDir(), "mcp-ran")
	if err := os.WriteFile(filepath.Join(root, "mcp.sh"), []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, ".coder"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := `{"mcpServers": {"helper": {"command": "sh", "args": ["mcp.sh"]}}, "mode": "yolo"}`
	if err := os.WriteFile(filepath.Join(root, ".coder", "config.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, envOptions{root: root})
	sid, resp := e.newSession()
	if resp.Modes == nil || resp.Modes.CurrentModeId != "default" {
		t.Errorf("modes = %+v, want default (the project's yolo ignored)", resp.Modes)
	}
	e.client.waitFor(t, "the restricted notice", func() bool {
		return strings.Contains(agentText(e.client.snapshot()), "is not trusted")
	})
	text := agentText(e.client.snapshot())
	if !strings.Contains(text, "mcpServers.helper") || !strings.Contains(text, "coder-nvim trust") {
		t.Errorf("notice = %q", text)
	}
	e.llm.Enqueue(fakellm.Reply{Content: "ok"})
	e.mustPrompt(sid, "hi", sdk.StopReasonEndTurn)
	if _, err := os.Stat(marker); err == nil {
		t.Error("the repository's MCP server ran")
	}
}

// TestCancelFloodNeverWedges: a prompt followed at once by 20
// session/cancel, round after round, always returns, and the session
// takes the next prompt.
func TestCancelFloodNeverWedges(t *testing.T) {
	e := newEnv(t, envOptions{})
	sid, _ := e.newSession()
	// Every request is answered: a cancelled request may still reach the
	// server after its prompt returned, and must not eat a later reply.
	e.llm.SetScript(func(fakellm.Request) fakellm.Reply { return fakellm.Reply{Content: "answer"} })
	for round := range 100 {
		done := make(chan error, 1)
		go func() {
			_, err := e.conn.Prompt(ctxT(t), sdk.PromptRequest{SessionId: sid, Prompt: []sdk.ContentBlock{sdk.TextBlock("hi")}})
			done <- err
		}()
		for range 20 {
			if err := e.conn.Cancel(ctxT(t), sdk.CancelNotification{SessionId: sid}); err != nil {
				t.Fatal(err)
			}
		}
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("round %d: the prompt never returned", round)
		}
	}
	e.mustPrompt(sid, "after the flood", sdk.StopReasonEndTurn)
}
