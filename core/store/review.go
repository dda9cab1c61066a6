package store

// HunkVerdict is the user's word on one hunk of a turn's changes
// (`:Coder review`): kept, or rejected (reverted) with an optional reason.
type HunkVerdict struct {
	Path   string `json:"path"`
	Hunk   int    `json:"hunk"` // its index among the file's hunks, from 0
	Keep   bool   `json:"keep"`
	Reason string `json:"reason,omitempty"`
	// Note is what the model is told of a rejection, with the next
	// message: kept so that a restart before that message loses none.
	Note string `json:"note,omitempty"`
}

// headerVerdicts are verdicts without their reasons' text.
func headerVerdicts(vs []HunkVerdict, p Policy) []HunkVerdict {
	if len(vs) == 0 {
		return vs
	}
	out := make([]HunkVerdict, len(vs))
	for i, v := range vs {
		v.Reason = notStored(v.Reason)
		v.Note = "" // the hunk's lines: content
		if p == PolicyNone {
			v.Reason = ""
		}
		out[i] = v
	}
	return out
}
