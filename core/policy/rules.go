package policy

import (
	"fmt"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

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
