package nvimhost

// The plan hand-off in Neovim: the request goes to coder.plan (a Markdown
// buffer the user edits) with the difference from the plan it revises
// rendered here; the answer comes back as coder_answer_plan.

import (
	"fmt"

	"github.com/coder-nvim/coder-nvim/core/agent"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/review"
)

// planOp is the plan part of an approval op: the text, and for a revision
// the changed lines as "-old" / "+new", a "@@ line N" before each hunk.
func planOp(p *event.Plan) map[string]any {
	diff := []string{}
	if p.Previous != "" {
		for _, h := range review.Hunks(p.Previous+"\n", p.Text+"\n") {
			diff = append(diff, fmt.Sprintf("@@ line %d", h.OldStart))
			for _, l := range trimNewlines(h.OldLines) {
				diff = append(diff, "-"+l)
			}
			for _, l := range trimNewlines(h.NewLines) {
				diff = append(diff, "+"+l)
			}
		}
	}
	return map[string]any{"text": p.Text, "summary": p.Summary, "revised": p.Previous != "", "diff": diff}
}

// planAnswerText is how the transcript records a plan's answer.
var planAnswerText = map[string]string{
	string(agent.PlanApprove):  "plan approved: default mode (edits ask)",
	string(agent.PlanAutoEdit): "plan approved: auto-edit mode",
	string(agent.PlanRevise):   "keep planning",
	string(agent.Deny):         "plan cancelled",
}

// answerPlan resolves a plan hand-off with the user's choice, the plan as
// they left the buffer and their comment.
func (h *host) answerPlan(id, decision, plan, comment string) {
	sess, err := h.approvalSession(id)
	if err != nil {
		h.notify("error", err.Error())
		return
	}
	if err := sess.Answer(id, agent.Answer{Decision: agent.Decision(decision), Plan: plan, Comment: comment}); err != nil {
		h.notify("warn", err.Error())
	}
}
