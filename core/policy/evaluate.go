package policy

import (
	"fmt"
	"slices"
	"strings"

	"github.com/coder-nvim/coder-nvim/core/shellcheck"
)

// Evaluate decides one prepared tool call: steps 2-3 of the tool
// pipeline (policy, then the tool's own danger check). It is pure.
func Evaluate(mode Mode, p Policy, a Action, workspaceRoot string) Verdict {
	if _, err := ParseMode(string(mode)); err != nil {
		return Verdict{Decision: Deny, Reason: err.Error()}
	}
	var an *shellcheck.Analysis
	if a.kind() == KindExecute {
		x := shellcheck.AnalyzeProtected(a.Command, workspaceRoot, a.Protected)
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
	var bash, files, tools, hosts []string
	fileTool := ""
	for _, k := range keys {
		switch {
		case strings.HasPrefix(k.Tool, WebToolPrefix):
			hosts = append(hosts, strings.TrimPrefix(k.Tool, WebToolPrefix))
		case k.Tool == "bash" || k.Tool == "shell" || k.Tool == OutsideSandboxTool:
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
		what := "bash commands"
		if keys[0].Tool == OutsideSandboxTool {
			what = "bash commands run outside the sandbox"
		}
		parts = append(parts, what+" starting with `"+strings.Join(bash, "`, `")+"`")
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
	if len(hosts) > 0 {
		parts = append(parts, "fetches from "+strings.Join(hosts, ", "))
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
	case KindFetch:
		return p.fetch(mode, a)
	}
	return p.other(mode, a)
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
