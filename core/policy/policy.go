// Package policy decides whether a prepared tool call may run: allow, ask
// the user, or deny. It combines the input mode, a permission preset,
// configured rules and the shell analyzer, and remembers "always"
// approvals.
//
// Preset matrix (before rules; mode adjustments below):
//
//	preset     read/search  edit   bash read-only  bash unknown  bash dangerous  other
//	strict     allow        ask    allow           ask           deny            ask
//	balanced   allow        ask    allow           ask           ask (warning)   ask
//	auto-edit  allow        allow  allow           ask           ask (warning)   ask
//	yolo       allow        allow  allow           allow         allow           allow
//
// Modes:
//   - plan: read-only. Edit tools are not offered (OfferedTools) and are
//     denied; bash runs only commands the analyzer proves read-only; other
//     tools are asked at least.
//   - default: the preset as is.
//   - auto-edit: edits inside the workspace are allowed (rules may still
//     ask or deny); bash follows the policy.
//   - yolo: as auto-edit, and bash skips policy and danger checks entirely.
//
// Rules (permissions.rules) override the preset cell they match, strictest
// matching rule first (deny > ask > allow). A rule never lowers a
// dangerous command below its preset cell, so outside the yolo preset or
// mode a dangerous command is never allowed without asking. File tools
// never reach outside the workspace in any mode.
package policy

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/coder-nvim/coder-nvim/core/shellcheck"
)

// Mode is the input mode of the session.
type Mode string

const (
	ModePlan     Mode = "plan"
	ModeDefault  Mode = "default"
	ModeAutoEdit Mode = "auto-edit"
	ModeYolo     Mode = "yolo"
)

// Modes lists the modes in order from most to least restrictive.
var Modes = []Mode{ModePlan, ModeDefault, ModeAutoEdit, ModeYolo}

// ParseMode parses a mode name (case-insensitive).
func ParseMode(s string) (Mode, error) {
	m := Mode(strings.ToLower(strings.TrimSpace(s)))
	if slices.Contains(Modes, m) {
		return m, nil
	}
	return "", fmt.Errorf("unknown mode %q: want one of plan, default, auto-edit, yolo", s)
}

// Decision is the outcome of a policy check.
type Decision string

const (
	Allow Decision = "allow"
	Ask   Decision = "ask"
	Deny  Decision = "deny"
)

func (d Decision) rank() int {
	switch d {
	case Allow:
		return 0
	case Ask:
		return 1
	}
	return 2 // Deny and anything invalid
}

// Stricter returns the stricter of two decisions (deny > ask > allow).
func Stricter(a, b Decision) Decision {
	if b.rank() > a.rank() {
		return b
	}
	return a
}

func parseDecision(s Decision) (Decision, bool) {
	switch d := Decision(strings.ToLower(string(s))); d {
	case Allow, Ask, Deny:
		return d, true
	}
	return "", false
}

// Preset is a named permission matrix.
type Preset string

const (
	PresetStrict   Preset = "strict"
	PresetBalanced Preset = "balanced"
	PresetAutoEdit Preset = "auto-edit"
	PresetYolo     Preset = "yolo"
)

// Presets lists the presets from most to least restrictive.
var Presets = []Preset{PresetStrict, PresetBalanced, PresetAutoEdit, PresetYolo}

// ParsePreset parses a preset name (case-insensitive).
func ParsePreset(s string) (Preset, error) {
	p := Preset(strings.ToLower(strings.TrimSpace(s)))
	if slices.Contains(Presets, p) {
		return p, nil
	}
	return "", fmt.Errorf("unknown permission preset %q: want one of strict, balanced, auto-edit, yolo", s)
}

// Tool kinds of Action.Kind.
const (
	KindRead    = "read"
	KindEdit    = "edit"
	KindExecute = "execute"
	KindSearch  = "search"
	KindOther   = "other"
	KindMCP     = "mcp" // a tool of an MCP server; Tool is its server__tool name
)

// Remember configures the scope of "always" approvals.
type Remember struct {
	// Conversation scopes approvals to the conversation that gave them
	// instead of the whole session.
	Conversation bool `json:"conversation,omitempty"`
	// TTL, when positive, makes approvals expire.
	TTL time.Duration `json:"ttl,omitempty"`
}

// Policy is the permission configuration of a session or conversation.
// The zero value is the balanced preset without rules.
type Policy struct {
	Preset   Preset   `json:"preset"`
	Rules    []Rule   `json:"rules,omitempty"`
	Remember Remember `json:"remember,omitempty"`
	// Web are the user's web.allow and web.deny (KindFetch).
	Web Hosts `json:"web,omitempty"`

	// limits are outer policies this one may not widen (see Narrow).
	limits []Policy
}

func (p Policy) preset() Preset {
	if p.Preset == "" {
		return PresetBalanced
	}
	return Preset(strings.ToLower(string(p.Preset)))
}

// Validate checks the preset and rules and reports every problem.
func (p Policy) Validate() error {
	var errs []string
	if p.Preset != "" {
		if _, err := ParsePreset(string(p.Preset)); err != nil {
			errs = append(errs, "permissions.preset: "+err.Error())
		}
	}
	for i, r := range p.Rules {
		where := fmt.Sprintf("permissions.rules[%d]", i)
		if strings.TrimSpace(r.Tool) == "" {
			errs = append(errs, where+": tool is empty (use a tool name such as \"bash\" or \"*\")")
		}
		if _, ok := parseDecision(r.Decision); !ok {
			errs = append(errs, fmt.Sprintf("%s: decision %q is not one of allow, ask, deny", where, r.Decision))
		}
		if r.Tool != "bash" && r.Pattern != "" && !doublestar.ValidatePattern(r.Pattern) {
			errs = append(errs, fmt.Sprintf("%s: pattern %q is not a valid path glob", where, r.Pattern))
		}
	}
	if p.Remember.TTL < 0 {
		errs = append(errs, "permissions.remember.ttl: must not be negative")
	}
	if len(errs) > 0 {
		return fmt.Errorf("invalid permissions: %s", strings.Join(errs, "; "))
	}
	return nil
}

// Narrow returns a policy for a conversation inside a session: every
// action gets the stricter of the two verdicts, so the conversation's
// settings can narrow the session's but never widen them. Approval scope
// takes the narrower of both (conversation scope, shorter TTL).
func Narrow(session, conversation Policy) Policy {
	out := conversation
	out.Rules = slices.Clone(conversation.Rules)
	out.limits = append(slices.Clone(conversation.limits), session)
	out.Remember.Conversation = session.Remember.Conversation || conversation.Remember.Conversation
	// A conversation that names no hosts keeps the session's; the
	// session's policy, a limit, still has its say on each.
	if len(out.Web.Allow) == 0 {
		out.Web.Allow = slices.Clone(session.Web.Allow)
	}
	out.Web.Deny = append(slices.Clone(session.Web.Deny), conversation.Web.Deny...)
	if t := session.Remember.TTL; t > 0 && (out.Remember.TTL == 0 || t < out.Remember.TTL) {
		out.Remember.TTL = t
	}
	return out
}

// editTools are the tools that change files; plan mode does not offer them.
var editTools = map[string]bool{
	"write": true, "edit": true, "patch": true, "apply_patch": true, "multiedit": true,
	"multi_edit": true, "write_file": true, "edit_file": true, "str_replace": true, "delete": true,
	"move": true, "rename": true, "notebook_edit": true,
}

var readTools = map[string]bool{
	"read": true, "read_file": true, "view": true, "ls": true, "list": true, "glob": true,
	"grep": true, "search": true, "find": true,
}

// IsEditTool reports whether the named tool changes files.
func IsEditTool(name string) bool { return editTools[name] }

// PlanTool hands a finished plan to the user for approval; only plan mode
// offers it, as leaving plan mode is the user's call.
const PlanTool = "propose_plan"

// OfferedTools returns the tools offered to the model in mode: plan mode
// drops the edit tools, the other modes the plan hand-off. The order of
// all is kept.
func OfferedTools(mode Mode, all []string) []string {
	out := make([]string, 0, len(all))
	for _, t := range all {
		if mode == ModePlan && editTools[t] || mode != ModePlan && t == PlanTool {
			continue
		}
		out = append(out, t)
	}
	return out
}

// Action is one prepared tool call.
type Action struct {
	Tool string
	// Kind is read, edit, execute, search or other; empty infers it from
	// the tool name.
	Kind string
	// Paths are the files the call touches, workspace-relative (absolute
	// paths inside the workspace are accepted).
	Paths []string
	// Command is the bash command line.
	Command      string
	Conversation string
	// ReadOnly, NonDestructive and Trusted describe an MCP tool (Kind
	// mcp): annotated readOnlyHint, annotated destructiveHint: false, and
	// from a server the user marked trusted.
	ReadOnly, NonDestructive, Trusted bool
	// Sandboxed says a bash command runs in a kernel sandbox that refuses
	// writes outside the workspace and to its protected paths, and the
	// network: in auto-edit mode a command the analyzer cannot see
	// through then runs unasked.
	Sandboxed bool
	// Protected are the user's own directories (config, the host's
	// state, Copilot's tokens): a command that may write into one is
	// dangerous wherever the workspace is.
	Protected []string
	// Host is the host a fetch reaches (KindFetch).
	Host string
}

func (a Action) kind() string {
	if a.Kind != "" {
		return a.Kind
	}
	switch {
	case a.Tool == "bash" || a.Tool == "shell":
		return KindExecute
	case editTools[a.Tool]:
		return KindEdit
	case readTools[a.Tool]:
		return KindRead
	}
	return KindOther
}

// Key is a remembered "always" approval (seed 004 §3.5 CommandKey).
//
// Path is, for bash, the command prefix (shellcheck.Prefix) such as
// ["git","push"]; for file tools one doublestar pattern such as
// ["src/api/**"]; for other tools empty (the whole tool).
type Key struct {
	Tool         string
	Path         []string
	Conversation string    // empty: the whole session
	ExpiresAt    time.Time // zero: never
	// TTL, when positive and ExpiresAt is zero, is turned into ExpiresAt
	// by Memory.Remember using the memory's clock.
	TTL time.Duration
}

// Verdict is the result of Evaluate.
type Verdict struct {
	Decision Decision
	// Reason explains the decision: shown on the approval prompt, and on
	// deny returned to the model so it can adapt.
	Reason string
	// Keys are what answering "always" remembers; empty when the call
	// cannot be remembered (dangerous commands, unparseable commands).
	Keys []Key
	// Scope describes in words what "always" covers.
	Scope string
	// Dangerous is set when the analyzer found a dangerous command; the
	// prompt should warn.
	Dangerous bool
	// Analysis is the shell analysis of bash calls.
	Analysis *shellcheck.Analysis
}
