package policy

import (
	"fmt"
	"strings"
)

// MCPRulePrefix starts a rule's tool for MCP tools: "mcp:github__*"
// matches every tool of the server github ("*" is any text).
const MCPRulePrefix = "mcp:"

// mcp decides a call of an MCP tool. Rules ("mcp:server__tool" patterns,
// or "*") come first; then yolo allows; auto-edit allows the tools of a
// server the user marked trusted and those annotated readOnlyHint or
// destructiveHint: false (an external server's other tools can do anything:
// they ask, as an unknown command does); a tool annotated readOnlyHint on a
// trusted server is allowed; everything else asks (strict and balanced).
// Plan mode never runs a tool that is not annotated read-only. "Always"
// remembers the one tool.
func (p Policy) mcp(mode Mode, a Action) Verdict {
	// An MCP rule's pattern is not used: its tool names the tools.
	d, rule, found := p.strictestRule(func(r Rule) bool {
		pat, ok := strings.CutPrefix(r.Tool, MCPRulePrefix)
		return r.Tool == "*" || ok && wildcard(pat, a.Tool)
	})
	reason := ""
	if found {
		reason = fmt.Sprintf("rule %s matches", rule)
	} else {
		switch {
		case p.preset() == PresetYolo || mode == ModeYolo:
			d, reason = Allow, fmt.Sprintf("MCP tools run unasked in %s mode", mode)
			if p.preset() == PresetYolo {
				reason = "the yolo preset allows MCP tools"
			}
		case mode == ModeAutoEdit && (a.Trusted || a.ReadOnly || a.NonDestructive):
			d, reason = Allow, "auto-edit runs the tools of trusted MCP servers and those annotated read-only or non-destructive unasked"
		case mode == ModeAutoEdit:
			d = Ask
			reason = fmt.Sprintf("MCP tool %s of a server you have not marked trusted may change anything (not annotated readOnlyHint or destructiveHint: false); auto-edit asks, as for an unknown command", a.Tool)
		case a.ReadOnly && a.Trusted:
			d, reason = Allow, "read-only tool (readOnlyHint) of a trusted MCP server"
		default:
			d = Ask
			reason = fmt.Sprintf("MCP tool %s of an external server (the %s preset asks; allow it with a rule such as {\"tool\": \"mcp:%s\", \"decision\": \"allow\"})", a.Tool, p.preset(), a.Tool)
		}
	}
	if mode == ModePlan && !a.ReadOnly && d != Deny {
		d, reason = Deny, fmt.Sprintf("plan mode is read-only and MCP tool %s is not annotated readOnlyHint", a.Tool)
	}
	v := Verdict{Decision: d, Reason: reason}
	switch d {
	case Deny:
		v.Reason = fmt.Sprintf("%s denied: %s. Do not retry it; choose another approach.", a.Tool, reason)
	case Ask:
		v.Keys = []Key{p.key(a, MCPRulePrefix+a.Tool, nil)}
	}
	return v
}
