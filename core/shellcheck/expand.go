package shellcheck

import (
	"path"
	"strconv"
	"strings"
)

// Write targets are judged as the shell would expand them: every brace
// alternative, and every name a glob component may match. A target that
// can resolve into a protected path (.git/, .coder/, outside the
// workspace) is dangerous, so that no remembered answer or allow rule for
// `cp` lets `cp x .g?t/config` replace the repository's configuration.

// maxBraceAlternatives bounds brace expansion; a word with more
// alternatives is judged as one that cannot be resolved.
const maxBraceAlternatives = 256

// maxBraceWord bounds the length of a word searched for braces (the
// search is quadratic in unmatched braces).
const maxBraceWord = 4096

// braceAlternatives expands bash braces in s: {a,b} (nested) and {x..y}
// sequences of letters; a sequence of integers stands for "0", as digits
// never spell a protected name. ok is false past maxBraceAlternatives.
// Quoting is not known here, so quoted braces expand too: the safe side.
func braceAlternatives(s string) (alts []string, ok bool) {
	if len(s) > maxBraceWord {
		return nil, false
	}
	var expand func(s string) bool
	expand = func(s string) bool {
		open, close, parts := firstBrace(s)
		if open < 0 {
			alts = append(alts, s)
			return len(alts) <= maxBraceAlternatives
		}
		for _, p := range parts {
			if !expand(s[:open] + p + s[close+1:]) {
				return false
			}
		}
		return true
	}
	return alts, expand(s)
}

// firstBrace finds the first brace expression of s that bash expands:
// its bounds and alternatives, or open < 0 when there is none.
func firstBrace(s string) (open, close int, parts []string) {
	for open = 0; open < len(s); open++ {
		if s[open] != '{' {
			continue
		}
		depth, start := 0, open+1
		parts = nil
		for close = open + 1; close < len(s); close++ {
			switch s[close] {
			case '{':
				depth++
			case ',':
				if depth == 0 {
					parts = append(parts, s[start:close])
					start = close + 1
				}
			case '}':
				if depth > 0 {
					depth--
					continue
				}
				if parts != nil {
					return open, close, append(parts, s[start:close])
				}
				if seq, ok := sequence(s[open+1 : close]); ok {
					return open, close, seq
				}
				close = len(s) // a literal {x}: look for the next brace
			}
		}
	}
	return -1, -1, nil
}

// sequence expands the inside of {x..y} or {x..y..step}.
func sequence(s string) ([]string, bool) {
	f := strings.Split(s, "..")
	if len(f) != 2 && len(f) != 3 {
		return nil, false
	}
	_, err1 := strconv.Atoi(f[0])
	_, err2 := strconv.Atoi(f[1])
	if err1 == nil && err2 == nil {
		return []string{"0"}, true
	}
	if len(f[0]) != 1 || len(f[1]) != 1 || !isLetter(f[0][0]) || !isLetter(f[1][0]) {
		return nil, false
	}
	lo, hi := f[0][0], f[1][0]
	if lo > hi {
		lo, hi = hi, lo
	}
	var out []string
	for c := lo; c <= hi; c++ {
		out = append(out, string(c))
	}
	return out, true
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// isGlob reports whether a path component holds pattern characters.
func isGlob(part string) bool { return strings.ContainsAny(part, "*?[(") }

// mayName reports whether the path component part, a literal or a glob
// pattern, may name name (as case-insensitive file systems compare names,
// and Windows drops trailing dots and spaces). dotglob says a pattern may
// match a leading dot without spelling it.
func mayName(part, name string, dotglob bool) bool {
	if strings.EqualFold(strings.TrimRight(part, ". "), name) || strings.EqualFold(part, name) {
		return true
	}
	if !isGlob(part) {
		return false
	}
	if strings.HasPrefix(name, ".") && !dotglob && part[0] != '.' && part[0] != '[' && part[0] != '\\' {
		return false // bash matches a leading dot only when spelt
	}
	if strings.Contains(part, "(") {
		return true // an extglob pattern: judged as matching anything
	}
	ok, err := path.Match(strings.ToLower(part), name)
	return ok || err != nil
}

// protectedPart says why writing a path with component part is
// dangerous, or "" when it is not.
func protectedPart(part string, dotglob bool) string {
	switch {
	case mayName(part, ".git", dotglob):
		return "writes into .git/"
	case mayName(part, agentDir, dotglob):
		return "writes into .coder/, the agent's own configuration"
	case part != ".." && isGlob(part) && mayName(part, "..", dotglob):
		return "may write outside the workspace"
	}
	return ""
}
