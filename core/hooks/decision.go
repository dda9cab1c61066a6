package hooks

import (
	"encoding/json"
	"strings"
)

// decision is the JSON a hook may print on stdout with exit 0 instead of
// plain text, in Claude Code's shape. Only what refuses or informs is
// taken: a hook's "allow" or "ask" approves nothing.
type decision struct {
	Decision      string `json:"decision"` // "block"
	Reason        string `json:"reason"`
	SystemMessage string `json:"systemMessage"` // for the user
	Specific      struct {
		PermissionDecision       string `json:"permissionDecision"` // "deny"
		PermissionDecisionReason string `json:"permissionDecisionReason"`
		AdditionalContext        string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

// parseDecision reads stdout as a decision; ok is false for plain text.
func parseDecision(stdout string) (d decision, ok bool) {
	s := strings.TrimSpace(stdout)
	if !strings.HasPrefix(s, "{") || json.Unmarshal([]byte(s), &d) != nil {
		return decision{}, false
	}
	return d, true
}

// blocks reports whether the decision refuses, and why.
func (d decision) blocks() (bool, string) {
	switch {
	case strings.EqualFold(d.Specific.PermissionDecision, "deny"):
		return true, strings.TrimSpace(d.Specific.PermissionDecisionReason)
	case strings.EqualFold(d.Decision, "block"):
		return true, strings.TrimSpace(d.Reason)
	}
	return false, ""
}
