package shellcheck

import (
	"path/filepath"
	"strings"
)

// agentDir holds the agent's own configuration and sessions. A command
// that may write and names it is dangerous, so that no remembered prefix
// or allow rule lets it run unasked: `echo hi > notes.txt` approved
// "always" must not cover `echo x > .coder/config.json`.
const agentDir = ".coder"

// namesAgentDir reports whether a word holds a path component that may
// name .coder once the shell expands it (braces, globs; as
// case-insensitive file systems compare names).
func namesAgentDir(word string, dotglob bool) bool {
	alts, ok := braceAlternatives(word)
	if !ok {
		return true
	}
	for _, alt := range alts {
		parts := strings.FieldsFunc(alt, func(r rune) bool { return strings.ContainsRune("/=:'\" \t", r) })
		for _, part := range parts {
			if mayName(part, agentDir, dotglob) {
				return true
			}
		}
	}
	return false
}

// touchesAgentDir reports whether a command that is not read-only names
// .coder in its words or runs inside it (after cd .coder).
func (w *walker) touchesAgentDir(c Command) bool {
	if w.cwd != "" && w.cwd != homeDir && w.root != "" {
		if rel, err := filepath.Rel(w.root, w.cwd); err == nil && namesAgentDir(filepath.ToSlash(rel), w.dotglob) && !strings.HasPrefix(rel, "..") {
			return true
		}
	}
	for _, a := range append(append([]string(nil), c.Context...), c.Args...) {
		if namesAgentDir(a, w.dotglob) {
			return true
		}
	}
	return false
}
