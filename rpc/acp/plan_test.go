package acp_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
	sdk "github.com/coder/acp-go-sdk"
)

// TestPlanApprovedAndCarriedOut: in plan mode the plan comes as a
// permission request with the plan's options, then a second one asks for
// auto-edit; approving both switches the mode (current_mode_update, config_option_update), the
// steps go out as the plan, and the write that follows runs unasked in
// the same session/prompt.
func TestPlanApprovedAndCarriedOut(t *testing.T) {
	e := newEnv(t, envOptions{})
	sid, _ := e.newSession()
	e.setMode(sid, "plan")
	e.client.permit = func(_ context.Context, req sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
		return selectOption("allow_once"), nil
	}
	const plan = "1. Write done.txt\n2. Say so"
	e.llm.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("call_p", "propose_plan", map[string]string{"plan": plan, "summary": "write done.txt"})}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("call_w", "write", map[string]string{"path": "done.txt", "content": "x\n"})}},
		fakellm.Reply{Content: "Done."},
	)
	before := len(e.client.snapshot())
	e.mustPrompt(sid, "plan then do it", sdk.StopReasonEndTurn)

	perms := e.client.permissions()
	if len(perms) != 2 {
		t.Fatalf("%d permission requests, want 2 (the plan, auto-edit; the write runs unasked in auto-edit)", len(perms))
	}
	p := perms[0]
	var opts []string
	for _, o := range p.Options {
		opts = append(opts, string(o.Kind)+":"+o.Name)
	}
	if got, want := strings.Join(opts, "|"), "allow_once:Approve the plan|reject_once:Keep planning"; got != want {
		t.Errorf("options %q, want %q", got, want)
	}
	if p.ToolCall.ToolCallId != "call_p" || len(p.ToolCall.Content) != 1 || p.ToolCall.Content[0].Content == nil ||
		p.ToolCall.Content[0].Content.Content.Text == nil || p.ToolCall.Content[0].Content.Content.Text.Text != plan {
		t.Errorf("permission tool call %+v, want the plan as its content", p.ToolCall)
	}
	if _, err := os.Stat(filepath.Join(e.root, "done.txt")); err != nil {
		t.Errorf("the plan was not carried out: %v", err)
	}
	modeAt, configAt, planAt := -1, -1, -1
	for i, u := range e.client.snapshot()[before:] {
		switch {
		case u.Update.CurrentModeUpdate != nil && u.Update.CurrentModeUpdate.CurrentModeId == "auto-edit":
			modeAt = i
		case u.Update.ConfigOptionUpdate != nil && modeAt >= 0 && configAt < 0:
			configAt = i
		case u.Update.Plan != nil && len(u.Update.Plan.Entries) == 2 && u.Update.Plan.Entries[0].Content == "Write done.txt":
			planAt = i
		}
	}
	if modeAt < 0 || configAt < modeAt || planAt < 0 {
		t.Errorf("mode update at %d, config update at %d, plan at %d: want all, config after mode", modeAt, configAt, planAt)
	}
	reqs := e.llm.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests, want 3 in the one prompt", len(reqs))
	}
	if msg, _ := toolMessage(reqs[1], "call_p"); !strings.Contains(msg, "approved the plan") || !strings.Contains(msg, plan) {
		t.Errorf("tool message %q", msg)
	}
	checkPaired(t, reqs[2])
}

// TestPlanKeepPlanning: "Keep planning" keeps plan mode and tells the
// model so; nothing is written.
func TestPlanKeepPlanning(t *testing.T) {
	e := newEnv(t, envOptions{})
	sid, _ := e.newSession()
	e.setMode(sid, "plan")
	e.client.permit = func(_ context.Context, req sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
		return selectOption("reject_once"), nil
	}
	e.llm.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("call_p", "propose_plan", map[string]string{"plan": "1. Write x"})}},
		fakellm.Reply{Content: "What should change?"},
	)
	e.mustPrompt(sid, "plan", sdk.StopReasonEndTurn)
	reqs := e.llm.Requests()
	if msg, _ := toolMessage(reqs[len(reqs)-1], "call_p"); !strings.HasPrefix(msg, "keep planning") {
		t.Errorf("tool message %q", msg)
	}
	for _, u := range e.client.snapshot() {
		if m := u.Update.CurrentModeUpdate; m != nil && m.CurrentModeId != "plan" {
			t.Errorf("mode changed to %s", m.CurrentModeId)
		}
	}
}

// planEntries is the statuses of the last plan update, "content:status".
func planEntries(updates []sdk.SessionNotification) []string {
	var out []string
	for _, u := range updates {
		if p := u.Update.Plan; p != nil {
			out = out[:0]
			for _, e := range p.Entries {
				out = append(out, e.Content+":"+string(e.Status))
			}
		}
	}
	return out
}

// TestPlanStepStatuses: the plan update keeps its steps current: the first
// in progress once approved, all completed when the turn that carried the
// plan out ends, unless the model kept the list itself.
func TestPlanStepStatuses(t *testing.T) {
	for _, tc := range []struct {
		name   string
		middle []fakellm.Reply
		want   string
	}{
		{"model silent", nil, "Write done.txt:completed|Say so:completed"},
		{"model keeps the list", []fakellm.Reply{{ToolCalls: []llm.ToolCall{call("call_t", "todo", map[string]any{"todos": []map[string]string{
			{"content": "Write done.txt", "status": "completed"}, {"content": "Say so", "status": "in_progress"}}})}}},
			"Write done.txt:completed|Say so:in_progress"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, envOptions{})
			sid, _ := e.newSession()
			e.setMode(sid, "plan")
			e.client.permit = func(context.Context, sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
				return selectOption("allow_once"), nil
			}
			replies := []fakellm.Reply{
				{ToolCalls: []llm.ToolCall{call("call_p", "propose_plan", map[string]string{"plan": "1. Write done.txt\n2. Say so"})}},
				{ToolCalls: []llm.ToolCall{call("call_w", "write", map[string]string{"path": "done.txt", "content": "x\n"})}},
			}
			replies = append(append(replies, tc.middle...), fakellm.Reply{Content: "Done."})
			e.llm.Enqueue(replies...)
			e.mustPrompt(sid, "plan then do it", sdk.StopReasonEndTurn)
			if got := strings.Join(planEntries(e.client.snapshot()), "|"); got != tc.want {
				t.Errorf("plan at the end %q, want %q", got, tc.want)
			}
			for _, u := range e.client.snapshot() {
				if u.Update.Plan != nil {
					if got := strings.Join(planEntries([]sdk.SessionNotification{u}), "|"); got != "Write done.txt:in_progress|Say so:pending" {
						t.Errorf("plan once approved %q, want the first step in progress", got)
					}
					break
				}
			}
		})
	}
}
