package agent

import (
	"fmt"
)

// Answer is the user's decision on an approval request.
type Answer struct {
	Decision Decision
	// Accepted, for file changes under review: per path, which hunks (in
	// review.Hunks order) to apply. A path not listed is applied whole.
	Accepted map[string][]bool
	// Plan and Comment answer a plan hand-off (plan.go): the plan as the
	// user left it ("" keeps the proposal) and their note for the model.
	Plan, Comment string
	// Values answer an MCP server's form (ElicitAccept): per field, its
	// value, as text or typed; checked against the form.
	Values map[string]any
}

// Decision is the user's choice.
type Decision string

// Approval decisions: y, n, a.
const (
	AllowOnce   Decision = "once"
	Deny        Decision = "deny"
	AllowAlways Decision = "always"
)

// Answer resolves an open approval request.
func (s *Session) Answer(approvalID string, a Answer) error {
	switch a.Decision {
	case AllowOnce, Deny, AllowAlways, PlanApprove, PlanAutoEdit, PlanRevise, ElicitAccept, ElicitDecline, ElicitCancel:
	default:
		return fmt.Errorf("unknown decision %q (want once, deny or always; for a plan %s, %s, %s or deny; for an MCP question accept, decline or cancel)", a.Decision, PlanApprove, PlanAutoEdit, PlanRevise)
	}
	if err := s.checkElicitAnswer(approvalID, &a); err != nil {
		return err
	}
	s.mu.Lock()
	ch, ok := s.approvals[approvalID]
	delete(s.approvals, approvalID)
	s.mu.Unlock()
	if !ok {
		return fmt.Errorf("no open approval request %q", approvalID)
	}
	ch <- a // buffered: never blocks
	return nil
}
