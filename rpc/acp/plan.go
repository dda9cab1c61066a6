package acp

// The plan hand-off of plan mode (propose_plan) as permission requests.
// The plan's text goes out first as an agent message (codecompanion shows
// no permission content and drops plan updates); then one request approves
// it or keeps planning, and after an approval a second one asks whether
// its edits run unasked (auto-edit) or ask (default). Two yes/no requests,
// because clients map answers by kind and id, not by name: one request
// cannot carry two different approvals (issue 48). Neither offers
// "always". The engine switches the mode on the answer; its StatusChanged
// then goes out as current_mode_update and config_option_update, and the
// plan's steps as the plan update (todos).

import (
	"context"

	"github.com/coder-nvim/coder-nvim/core/agent"
	"github.com/coder-nvim/coder-nvim/core/event"
	sdk "github.com/coder/acp-go-sdk"
	"github.com/google/uuid"
)

// planOptions are a plan's answers. ACP has no free-text answer: "keep
// planning" reaches the model without a comment, and the user says more
// in their next prompt.
func planOptions() []sdk.PermissionOption {
	return []sdk.PermissionOption{
		{OptionId: optAllowOnce, Name: "Approve the plan", Kind: sdk.PermissionOptionKindAllowOnce},
		{OptionId: optReject, Name: "Keep planning", Kind: sdk.PermissionOptionKindRejectOnce},
	}
}

// autoEditOptions answer the question that follows an approval.
func autoEditOptions() []sdk.PermissionOption {
	return []sdk.PermissionOption{
		{OptionId: optAllowOnce, Name: "Auto-edit: the plan's file edits run without asking", Kind: sdk.PermissionOptionKindAllowOnce},
		{OptionId: optReject, Name: "Default: ask before each edit", Kind: sdk.PermissionOptionKindRejectOnce},
	}
}

// allowed reports whether a selected option says yes: an allow option,
// "always" counting as once where it was not offered.
func allowed(id sdk.PermissionOptionId) bool {
	return decision(id) != agent.Deny
}

// planSummary is what the plan's titles name.
func planSummary(a *event.Approval) string {
	s := a.Plan.Summary
	if s == "" {
		s = "the plan above"
	}
	if a.Plan.Previous != "" {
		s += " (revised)"
	}
	return s
}

// planMessage is the plan as an agent message of its own, sent before its
// permission request so that every client shows it.
func planMessage(a *event.Approval) sdk.SessionUpdate {
	head := "**Proposed plan**"
	if a.Plan.Summary != "" {
		head += ": " + a.Plan.Summary
	}
	if a.Plan.Previous != "" {
		head += " (revised)"
	}
	u := sdk.UpdateAgentMessageText("\n\n" + head + "\n\n" + a.Plan.Text + "\n\n")
	u.AgentMessageChunk.MessageId = sdk.Ptr(uuid.NewString())
	u.AgentMessageChunk.Meta = map[string]any{"coder-nvim": map[string]any{"plan": true}}
	return u
}

// planRequest is a permission request about the plan: its content is the
// plan's Markdown, its title says what approving does.
func planRequest(sid sdk.SessionId, a *event.Approval, title string, opts []sdk.PermissionOption) sdk.RequestPermissionRequest {
	tc := sdk.ToolCallUpdate{
		ToolCallId: sdk.ToolCallId(a.CallID),
		Title:      sdk.Ptr(title),
		Kind:       sdk.Ptr(sdk.ToolKindSwitchMode),
		Status:     sdk.Ptr(sdk.ToolCallStatusPending),
		Content:    textContent(a.Plan.Text),
		RawInput:   map[string]any{"plan": a.Plan.Text, "summary": a.Plan.Summary},
	}
	return sdk.RequestPermissionRequest{SessionId: sid, ToolCall: tc, Options: opts}
}

// askPlan puts a plan to the client: approve or keep planning, then, if
// approved, auto-edit or default. ok is false when the turn was cancelled
// (the engine resolves the plan itself).
func (s *session) askPlan(ctx context.Context, t *turn, a *event.Approval) (d agent.Decision, ok bool) {
	what := planSummary(a)
	first := planRequest(s.id, a, "Approve the plan and leave plan mode to carry it out: "+what, planOptions())
	id, ok := s.choose(ctx, t, first)
	if !ok {
		return "", false
	}
	if id == "" {
		return agent.Deny, true // no answer: the plan is cancelled, plan mode stays
	}
	if !allowed(id) {
		return agent.PlanRevise, true
	}
	second := planRequest(s.id, a, "Carry out the approved plan in auto-edit mode (file edits run without asking)? Reject: default mode, each edit asks", autoEditOptions())
	id, ok = s.choose(ctx, t, second)
	if !ok {
		return "", false
	}
	if allowed(id) {
		return agent.PlanAutoEdit, true
	}
	return agent.PlanApprove, true
}

// approved reports whether an answer lets the call go on.
func approved(d string) bool {
	switch agent.Decision(d) {
	case agent.AllowOnce, agent.AllowAlways, agent.PlanApprove, agent.PlanAutoEdit:
		return true
	}
	return false
}
