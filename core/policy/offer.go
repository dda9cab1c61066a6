package policy

import "github.com/coder-nvim/coder-nvim/core/shellcheck"

// OffersAlways reports whether an approval of the ask verdict v may offer
// "always": only where the answer would be remembered and remembering is
// safe. Never for a dangerous command, one the analyzer could not parse,
// a run outside the sandbox (leaving it is asked each time), or a call
// without keys (a write to a protected path, the plan hand-off): a client
// that answers "always" by itself once it was chosen (avante) must still
// put each of these to its user.
func OffersAlways(v Verdict, outsideSandbox bool) bool {
	if v.Decision != Ask || len(v.Keys) == 0 || v.Dangerous || outsideSandbox {
		return false
	}
	if a := v.Analysis; a != nil && (a.Class == shellcheck.Dangerous || a.ParseError != "") {
		return false
	}
	return true
}

// AlwaysAnswer is the answer to act on when the user answered "always":
// AnswerOnce where "always" was not offered.
func AlwaysAnswer(offered bool) Answer {
	if offered {
		return AnswerAlways
	}
	return AnswerOnce
}

// OnceScope is what "always" covers where it is not offered: this call
// only, and why, for front ends that still show the key.
func OnceScope(v Verdict, outsideSandbox bool) string {
	switch {
	case outsideSandbox:
		return "this call only: runs outside the sandbox are asked every time"
	case v.Dangerous || v.Analysis != nil && v.Analysis.Class == shellcheck.Dangerous:
		return "this call only: dangerous commands are never remembered"
	case len(v.Keys) == 0 && v.Scope != "":
		return v.Scope
	}
	return "this call only: it cannot be remembered"
}
