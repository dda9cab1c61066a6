package acp

// The plan hand-off of plan mode (propose_plan) as a permission request:
// the tool call is the plan, the options approve it in one of two modes
// or keep planning. The engine switches the mode on the answer; its
// StatusChanged then goes out as current_mode_update and
// config_option_update, and the plan's steps as the plan update (todos).

import (
	"github.com/coder-nvim/coder-nvim/core/agent"
	"github.com/coder-nvim/coder-nvim/core/event"
	sdk "github.com/coder/acp-go-sdk"
)

const (
	optPlanApprove  sdk.PermissionOptionId = "plan_approve"
	optPlanAutoEdit sdk.PermissionOptionId = "plan_auto_edit"
	optPlanKeep     sdk.PermissionOptionId = "plan_keep_planning"
)

// planOptions are a plan's answers. ACP has no free-text answer: "keep
// planning" reaches the model without a comment, and the user says more
// in their next prompt.
func planOptions() []sdk.PermissionOption {
	return []sdk.PermissionOption{
		{OptionId: optPlanApprove, Name: "Approve — ask before edits", Kind: sdk.PermissionOptionKindAllowOnce},
		{OptionId: optPlanAutoEdit, Name: "Approve — auto-edit", Kind: sdk.PermissionOptionKindAllowAlways},
		{OptionId: optPlanKeep, Name: "Keep planning", Kind: sdk.PermissionOptionKindRejectOnce},
	}
}

// planDecision maps a selected option of a plan request; anything else
// cancels the plan.
func planDecision(id sdk.PermissionOptionId) agent.Decision {
	switch id {
	case optPlanApprove:
		return agent.PlanApprove
	case optPlanAutoEdit:
		return agent.PlanAutoEdit
	case optPlanKeep:
		return agent.PlanRevise
	}
	return agent.Deny
}

// planRequest is the permission request of a plan: its content is the
// plan's Markdown.
func planRequest(sid sdk.SessionId, a *event.Approval) sdk.RequestPermissionRequest {
	title := "Plan"
	if a.Plan.Summary != "" {
		title += ": " + a.Plan.Summary
	}
	if a.Plan.Previous != "" {
		title += " (revised)"
	}
	tc := sdk.ToolCallUpdate{
		ToolCallId: sdk.ToolCallId(a.CallID),
		Title:      sdk.Ptr(title),
		Kind:       sdk.Ptr(sdk.ToolKindSwitchMode),
		Status:     sdk.Ptr(sdk.ToolCallStatusPending),
		Content:    textContent(a.Plan.Text),
		RawInput:   map[string]any{"plan": a.Plan.Text, "summary": a.Plan.Summary},
	}
	return sdk.RequestPermissionRequest{SessionId: sid, ToolCall: tc, Options: planOptions()}
}

// approved reports whether an answer lets the call go on.
func approved(d string) bool {
	switch agent.Decision(d) {
	case agent.AllowOnce, agent.AllowAlways, agent.PlanApprove, agent.PlanAutoEdit:
		return true
	}
	return false
}
