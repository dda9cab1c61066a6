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

// cell is one column of the preset matrix.
type cell int

const (
	cellRead cell = iota
	cellEdit
	cellBashReadOnly
	cellBashUnknown
	cellBashDangerous
	cellOther
)

var cellNames = []string{"read / search", "edit (write, edit, patch)", "bash read-only", "bash unknown", "bash dangerous", "other tools"}

var matrix = map[Preset][6]Decision{
	PresetStrict:   {Allow, Ask, Allow, Ask, Deny, Ask},
	PresetBalanced: {Allow, Ask, Allow, Ask, Ask, Ask},
	PresetAutoEdit: {Allow, Allow, Allow, Ask, Ask, Ask},
	PresetYolo:     {Allow, Allow, Allow, Allow, Allow, Allow},
}

func bashCell(c shellcheck.Class) cell {
	switch c {
	case shellcheck.ReadOnly:
		return cellBashReadOnly
	case shellcheck.Unknown:
		return cellBashUnknown
	}
	return cellBashDangerous
}

// Rule is a configured permission rule (permissions.rules).
type Rule struct {
	// Tool is a tool name ("bash", "write", ...) or "*" for every tool.
	Tool string `json:"tool"`
	// Pattern is, for bash, a pattern over each simple command's words
	// where * matches any text ("git push*", "npm run *"; a trailing " *"
	// also matches the bare words, so "cat *" matches "cat"); for file
	// tools, a doublestar glob over the workspace-relative path
	// ("src/**", "**/*.go"). Empty matches everything.
	Pattern  string   `json:"pattern"`
	Decision Decision `json:"decision"`
}

func (r Rule) String() string {
	p := r.Pattern
	if p == "" {
		p = "*"
	}
	return fmt.Sprintf("%s %s %q", r.Decision, r.Tool, p)
}

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

// OfferedTools returns the tools offered to the model in mode: plan mode
// drops the edit tools. The order of all is kept.
func OfferedTools(mode Mode, all []string) []string {
	out := make([]string, 0, len(all))
	for _, t := range all {
		if mode == ModePlan && editTools[t] {
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

// Evaluate decides one prepared tool call: steps 2-3 of the tool
// pipeline (policy, then the tool's own danger check). It is pure.
func Evaluate(mode Mode, p Policy, a Action, workspaceRoot string) Verdict {
	if _, err := ParseMode(string(mode)); err != nil {
		return Verdict{Decision: Deny, Reason: err.Error()}
	}
	var an *shellcheck.Analysis
	if a.kind() == KindExecute {
		x := shellcheck.Analyze(a.Command, workspaceRoot)
		an = &x
	}
	v := p.evaluate(mode, a, workspaceRoot, an)
	verdicts := []Verdict{v}
	for _, outer := range p.limits {
		ov := outer.evaluate(mode, a, workspaceRoot, an)
		verdicts = append(verdicts, ov)
		if ov.Decision.rank() > v.Decision.rank() {
			v = ov
		}
	}
	v.Keys, v.Scope = nil, ""
	if v.Decision == Ask {
		// "Always" must satisfy every policy that asks, scoped as narrowly
		// as this (possibly narrowed) policy says.
		keyable := true
		for _, x := range verdicts {
			if x.Decision != Ask {
				continue
			}
			if len(x.Keys) == 0 {
				keyable = false
			}
			for _, k := range x.Keys {
				k = p.key(a, k.Tool, k.Path)
				if !slices.ContainsFunc(v.Keys, func(o Key) bool { return sameKey(o, k) }) {
					v.Keys = append(v.Keys, k)
				}
			}
		}
		if !keyable {
			v.Keys = nil
		}
		v.Scope = p.describe(v.Keys, v.Dangerous)
	}
	v.Analysis = an
	return v
}

// describe says in words what remembering keys covers.
func (p Policy) describe(keys []Key, dangerous bool) string {
	if len(keys) == 0 {
		if dangerous {
			return "this call only: dangerous commands are never remembered"
		}
		return "this call only: it cannot be remembered"
	}
	var bash, files, tools []string
	fileTool := ""
	for _, k := range keys {
		switch {
		case k.Tool == "bash" || k.Tool == "shell":
			bash = append(bash, strings.Join(k.Path, " "))
		case len(k.Path) == 1:
			files = append(files, k.Path[0])
			fileTool = k.Tool
		default:
			tools = append(tools, k.Tool)
		}
	}
	var parts []string
	if len(bash) > 0 {
		parts = append(parts, "bash commands starting with `"+strings.Join(bash, "`, `")+"`")
	}
	if len(files) > 0 {
		// A directory's files, or one file at the workspace root (so one
		// answer never approves the whole workspace): filePattern.
		var where []string
		for _, f := range files {
			if dir, ok := strings.CutSuffix(f, "/**"); ok {
				where = append(where, "files under `"+dir+"/`")
			} else {
				where = append(where, "`"+f+"` only (a file at the workspace root)")
			}
		}
		parts = append(parts, fileTool+" on "+strings.Join(where, ", "))
	}
	for _, t := range tools {
		parts = append(parts, "every "+t+" call")
	}
	return strings.Join(parts, " and ") + " " + p.scopeText()
}

func sameKey(a, b Key) bool {
	return a.Tool == b.Tool && a.Conversation == b.Conversation && slices.Equal(a.Path, b.Path)
}

func (p Policy) evaluate(mode Mode, a Action, root string, an *shellcheck.Analysis) Verdict {
	switch a.kind() {
	case KindExecute:
		return p.bash(mode, a, an)
	case KindEdit:
		return p.files(mode, a, root, true)
	case KindRead, KindSearch:
		return p.files(mode, a, root, false)
	case KindMCP:
		return p.mcp(mode, a)
	}
	return p.other(mode, a)
}

func (p Policy) base(c cell) Decision {
	row, ok := matrix[p.preset()]
	if !ok {
		return Deny
	}
	return row[c]
}

// matchRules returns the strictest decision among the rules matching the
// tool and the subject (a command line or a path).
func (p Policy) matchRules(tool, subject string, bash bool) (Decision, Rule, bool) {
	return p.strictestRule(func(r Rule) bool {
		return (r.Tool == "*" || r.Tool == tool) && ruleMatches(r.Pattern, subject, bash)
	})
}

// strictestRule is the strictest decision of the rules that match, and
// that rule; found is false when none does.
func (p Policy) strictestRule(match func(Rule) bool) (best Decision, bestRule Rule, found bool) {
	for _, r := range p.Rules {
		if !match(r) {
			continue
		}
		d, ok := parseDecision(r.Decision)
		if !ok {
			d = Deny // an invalid rule fails closed
		}
		if !found || d.rank() > best.rank() {
			best, bestRule, found = d, r, true
		}
	}
	return best, bestRule, found
}

func ruleMatches(pattern, subject string, bash bool) bool {
	if pattern == "" || pattern == "*" || pattern == "**" {
		return true
	}
	if bash {
		// "cat *" also matches a bare "cat".
		return wildcard(pattern, subject) ||
			(strings.HasSuffix(pattern, " *") && wildcard(strings.TrimSuffix(pattern, " *"), subject))
	}
	ok, err := doublestar.Match(pattern, subject)
	return err == nil && ok
}

// wildcard matches s against a pattern where * is any text and ? any
// single character.
func wildcard(pattern, s string) bool {
	p, str := []rune(pattern), []rune(s)
	pi, si, star, mark := 0, 0, -1, 0
	for si < len(str) {
		switch {
		case pi < len(p) && (p[pi] == '?' || p[pi] == str[si]):
			pi++
			si++
		case pi < len(p) && p[pi] == '*':
			star, mark = pi, si
			pi++
		case star >= 0:
			pi = star + 1
			mark++
			si = mark
		default:
			return false
		}
	}
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	return pi == len(p)
}

func (p Policy) scopeText() string {
	s := "in this session"
	if p.Remember.Conversation {
		s = "in this conversation"
	}
	if p.Remember.TTL > 0 {
		s += " for " + p.Remember.TTL.String()
	}
	return s
}

func (p Policy) key(a Action, tool string, path []string) Key {
	k := Key{Tool: tool, Path: path, TTL: p.Remember.TTL}
	if p.Remember.Conversation {
		k.Conversation = a.Conversation
	}
	return k
}

func (p Policy) other(mode Mode, a Action) Verdict {
	d := p.base(cellOther)
	reason := fmt.Sprintf("the %s preset says %s for %s", p.preset(), d, cellNames[cellOther])
	if rd, rule, ok := p.matchRules(a.Tool, "", false); ok {
		d, reason = rd, fmt.Sprintf("rule %s matches", rule)
	}
	if mode == ModePlan && d == Allow {
		d, reason = Ask, "plan mode is read-only and "+a.Tool+" may have side effects"
	}
	v := Verdict{Decision: d, Reason: reason}
	if d == Deny {
		v.Reason = fmt.Sprintf("%s denied: %s. Do not retry it; choose another approach.", a.Tool, reason)
	}
	if d == Ask {
		v.Keys = []Key{p.key(a, a.Tool, nil)}
	}
	return v
}

// cellDecision is the matrix cell for mode, without rules.
func (p Policy) cellDecision(mode Mode, c cell) Decision {
	d := p.base(c)
	switch mode {
	case ModePlan:
		switch c {
		case cellEdit, cellBashUnknown, cellBashDangerous:
			d = Deny
		case cellOther:
			d = Stricter(d, Ask)
		}
	case ModeAutoEdit:
		if c == cellEdit {
			d = Allow
		}
	case ModeYolo:
		if c == cellEdit || c >= cellBashReadOnly && c <= cellBashDangerous {
			d = Allow
		}
	}
	for _, l := range p.limits {
		d = Stricter(d, l.cellDecision(mode, c))
	}
	return d
}

// Matrix renders the effective permission matrix for mode as text (for
// /permissions).
func (p Policy) Matrix(mode Mode) string {
	var b strings.Builder
	fmt.Fprintf(&b, "mode %s, preset %s\n", mode, p.preset())
	for c, name := range cellNames {
		d := p.cellDecision(mode, cell(c))
		note := ""
		switch {
		case cell(c) == cellBashDangerous && d == Ask:
			note = " (with a danger warning)"
		case mode == ModeYolo && cell(c) >= cellBashReadOnly && cell(c) <= cellBashDangerous:
			note = " (yolo mode skips bash checks)"
		case mode == ModePlan && (cell(c) == cellEdit):
			note = " (plan mode: not offered)"
		}
		fmt.Fprintf(&b, "  %-26s %s%s\n", name, d, note)
	}
	var rules []Rule
	rules = append(rules, p.Rules...)
	for _, l := range p.limits {
		rules = append(rules, l.Rules...)
	}
	if len(rules) == 0 {
		b.WriteString("rules: none\n")
	} else {
		b.WriteString("rules (deny > ask > allow):\n")
		for _, r := range rules {
			fmt.Fprintf(&b, "  %s\n", r)
		}
	}
	if len(p.limits) > 0 {
		fmt.Fprintf(&b, "narrowed by %d outer polic%s\n", len(p.limits), map[bool]string{true: "y", false: "ies"}[len(p.limits) == 1])
	}
	fmt.Fprintf(&b, "\"always\" approvals last %s; dangerous commands are never remembered\n", strings.TrimPrefix(p.scopeText(), "in "))
	b.WriteString("file tools stay inside the workspace in every mode\n")
	return b.String()
}
