// Package verify holds the pure decisions of the auto-verify loop (seed 001
// §6): whether a turn's edits are verified, which fixed-whitelist command
// runs, how a finished run is read, and what the model is told about it.
//
// Nothing here runs a command or touches the agent loop; the caller runs
// the chosen command through the bash tool and feeds the result back in.
package verify

import (
	"fmt"
	"strings"
)

// Whitelist is the fixed set of exact commands auto-verify may run, in the
// seed's order.
var Whitelist = [...]string{
	"go test ./...",
	"pytest -q",
	"npm test -- --watch=false",
	"pnpm test -- --watch=false",
	"yarn test --watch=false",
	"cargo test",
	"mvn -q test",
	"gradle test",
	"./gradlew test",
}

// whitelist is what the decisions use: a copy taken at init, so even an
// assignment to an element of Whitelist changes nothing.
var whitelist = Whitelist

// DefaultMaxAttempts is the default max_verify_attempts; the setting can
// only lower it.
const DefaultMaxAttempts = 2

// Modes, as named by /mode.
const (
	ModePlan     = "plan"
	ModeDefault  = "default"
	ModeAutoEdit = "auto-edit"
	ModeYolo     = "yolo"
)

// NoEditReason is ShouldVerify's reason when no edit tool ran. Callers may
// leave it unannounced: it is the case of every turn that only talks.
const NoEditReason = "no file was edited this turn"

// IsWhitelisted reports whether cmd is one of the whitelisted commands, up
// to runs of blanks between words.
func IsWhitelisted(cmd string) bool {
	_, ok := whitelisted(cmd)
	return ok
}

// whitelisted returns the canonical whitelist entry cmd spells.
func whitelisted(cmd string) (string, bool) {
	n := normalize(cmd)
	for _, w := range whitelist {
		if n == w {
			return w, true
		}
	}
	return "", false
}

// normalize collapses blanks so "go  test ./..." equals "go test ./...".
func normalize(cmd string) string { return strings.Join(strings.Fields(cmd), " ") }

// TriggerInput is what ShouldVerify looks at, gathered by the agent loop
// at the end of an edit step.
type TriggerInput struct {
	EditedPaths   []string // workspace-relative paths edited this turn by write/edit/patch (empty: no edit tool ran)
	AutoVerify    bool     // workflow.auto_verify_after_edit
	BashAvailable bool     // the bash tool is offered and not denied by policy
	Attempts      int      // verify attempts so far this turn
	MaxAttempts   int      // max_verify_attempts: 0 turns auto-verify off; above DefaultMaxAttempts counts as DefaultMaxAttempts
	Mode          string   // plan, default, auto-edit, yolo
	UserInput     string   // the user's input of this turn
}

// EffectiveMax is the attempt bound in force: n clamped to
// [0, DefaultMaxAttempts], since the setting may only tighten the default.
// Zero is a real setting (config accepts it) and means "never verify".
func EffectiveMax(n int) int {
	return min(max(0, n), DefaultMaxAttempts)
}

// ShouldVerify applies every trigger rule of seed 001 §6. When it says no,
// the reason says why in a phrase fit for "auto-verify did not run: …".
//
// Rules, in the order reported:
//   - an edit tool ran (EditedPaths not empty);
//   - not every edited path is documentation (IsDocPath);
//   - workflow.auto_verify_after_edit is on;
//   - the mode allows it: auto-edit and yolo always, default only when the
//     input asks for verification (UserAskedToVerify), plan never;
//   - the user did not ask in this input not to run tests (UserDeclinedVerify),
//     in any mode: an explicit instruction beats the automation;
//   - the bash tool is available and allowed;
//   - attempts so far < EffectiveMax(MaxAttempts).
func ShouldVerify(in TriggerInput) (bool, string) {
	if len(in.EditedPaths) == 0 {
		return false, NoEditReason
	}
	if allDocs(in.EditedPaths) {
		return false, "only documentation was edited"
	}
	if !in.AutoVerify {
		return false, "workflow.auto_verify_after_edit is off"
	}
	switch strings.TrimSpace(in.Mode) {
	case ModeAutoEdit, ModeYolo:
	case ModeDefault:
		if !UserAskedToVerify(in.UserInput) {
			return false, "default mode verifies only when the input asks for it"
		}
	case ModePlan:
		return false, "plan mode never verifies"
	default:
		return false, fmt.Sprintf("unknown mode %q", in.Mode)
	}
	if UserDeclinedVerify(in.UserInput) {
		return false, "the input asks not to run tests"
	}
	if !in.BashAvailable {
		return false, "the bash tool is not available or not allowed"
	}
	limit := EffectiveMax(in.MaxAttempts)
	if limit == 0 {
		return false, "max_verify_attempts is 0"
	}
	if in.Attempts >= limit {
		return false, fmt.Sprintf("the verify attempts of this turn are used up (%d of %d)", in.Attempts, limit)
	}
	return true, ""
}

func allDocs(paths []string) bool {
	for _, p := range paths {
		if !IsDocPath(p) {
			return false
		}
	}
	return true
}

// SkipNotice is the line shown to the user when auto-verify does not run,
// so a skip is never silent (seed 001 §6).
func SkipNotice(reason string) string {
	if reason == "" {
		return "auto-verify did not run"
	}
	return "auto-verify did not run: " + reason
}
