package policy

// File tools: paths are resolved against the workspace; .git and the
// agent's own files are never the model's.

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// relPath returns p relative to the workspace, or an error when it is
// outside.
func relPath(p, root string) (string, error) {
	if strings.HasPrefix(p, "~") {
		return "", fmt.Errorf("%s is outside the workspace", p)
	}
	clean := filepath.Clean(p)
	if filepath.IsAbs(clean) {
		if root == "" {
			return "", fmt.Errorf("%s is outside the workspace", p)
		}
		rel, err := filepath.Rel(filepath.Clean(root), clean)
		if err != nil {
			return "", fmt.Errorf("%s is outside the workspace %s", p, root)
		}
		clean = rel
	}
	// Slashes first: on Windows, filepath.Rel gives `..\x`.
	clean = filepath.ToSlash(clean)
	if clean == ".." || strings.HasPrefix(clean, "../") {
		return "", fmt.Errorf("%s is outside the workspace %s", p, root)
	}
	return clean, nil
}

// filePattern is the "always" pattern for a file: everything under its
// directory ("src/api/**"), or the file itself at the workspace root so
// that one answer never approves the whole workspace.
func filePattern(rel string) string {
	dir := filepath.ToSlash(filepath.Dir(rel))
	if dir == "." {
		return escapeGlob(rel)
	}
	return escapeGlob(dir) + "/**"
}

func escapeGlob(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[]{}\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

func inGitDir(rel string) bool {
	return slices.Contains(strings.Split(rel, "/"), ".git")
}

func (p Policy) files(mode Mode, a Action, root string, edit bool) Verdict {
	c := cellRead
	if edit {
		c = cellEdit
	}
	if edit && mode == ModePlan {
		return Verdict{Decision: Deny, Reason: fmt.Sprintf(
			"plan mode is read-only: %s is not available. Describe the change in your plan instead, or ask the user to switch to default or auto-edit mode.", a.Tool)}
	}
	base := p.base(c)
	if edit && (mode == ModeAutoEdit || mode == ModeYolo) {
		base = Allow
	}
	v := Verdict{Decision: Allow}
	var reasons []string
	var patterns []string
	for _, raw := range a.Paths {
		rel, err := relPath(raw, root)
		if err != nil {
			return Verdict{Decision: Deny, Reason: fmt.Sprintf("%s: %v; file tools only work inside the workspace. Use a path inside it.", a.Tool, err)}
		}
		d := base
		reason := ""
		if rd, rule, ok := p.matchRules(a.Tool, rel, false); ok {
			d, reason = rd, fmt.Sprintf("rule %s matches %s", rule, rel)
		}
		if edit && inGitDir(rel) && mode != ModeYolo && p.preset() != PresetYolo {
			d = Stricter(d, Ask)
			reason = "writes inside .git/ (" + rel + ") always need approval"
		}
		if reason == "" {
			reason = fmt.Sprintf("the %s preset says %s for %s", p.preset(), d, cellNames[c])
			if edit && base == Allow && p.base(c) != Allow {
				reason = fmt.Sprintf("%s mode allows edits inside the workspace", mode)
			}
		}
		v.Decision = Stricter(v.Decision, d)
		if d == Deny {
			return Verdict{Decision: Deny, Reason: fmt.Sprintf("%s of %s denied: %s. Do not retry; choose another file or ask the user.", a.Tool, rel, reason)}
		}
		if d == Ask {
			reasons = append(reasons, reason)
			pat := filePattern(rel)
			if !slices.Contains(patterns, pat) {
				patterns = append(patterns, pat)
				v.Keys = append(v.Keys, p.key(a, a.Tool, []string{pat}))
			}
		} else if v.Decision == Allow {
			reasons = append(reasons, reason)
		}
	}
	if len(a.Paths) == 0 {
		v.Decision = base
		reasons = append(reasons, fmt.Sprintf("the %s preset says %s for %s", p.preset(), base, cellNames[c]))
		if base == Ask {
			v.Keys = []Key{p.key(a, a.Tool, nil)}
		}
	}
	v.Reason = strings.Join(reasons, "; ")
	return v
}
