package policy

import (
	"fmt"
	"strings"
)

// MCPRulePrefix starts a rule's tool for MCP tools: "mcp:github__*"
// matches every tool of the server github ("*" is any text).
const MCPRulePrefix = "mcp:"

// mcp decides a call of an MCP tool. Rules ("mcp:server__tool" patterns,
// or "*") come first; then auto-edit and yolo allow; a tool annotated
// readOnlyHint on a trusted server is allowed; everything else asks
// (strict and balanced). Plan mode never runs a tool that is not
// annotated read-only. "Always" remembers the one tool.
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
		case p.preset() == PresetYolo || mode == ModeAutoEdit || mode == ModeYolo:
			d, reason = Allow, fmt.Sprintf("MCP tools run unasked in %s mode", mode)
			if p.preset() == PresetYolo {
				reason = "the yolo preset allows MCP tools"
			}
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
