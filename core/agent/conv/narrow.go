package conv

import (
	"fmt"
	"slices"
	"strings"

	"github.com/coder-nvim/coder-nvim/core/agent/command"
	"github.com/coder-nvim/coder-nvim/core/agent/toolcalls"
	"github.com/coder-nvim/coder-nvim/core/policy"
	"github.com/coder-nvim/coder-nvim/core/store"
)

// ClampPolicy narrows a requested conversation policy to the session's:
// a wider preset becomes the session's, and allow rules are kept but
// grant nothing the session does not (policy.Narrow). It says what it
// clamped.
func ClampPolicy(sess, p policy.Policy) (policy.Policy, []string) {
	var notes []string
	if presetRank(p.Preset) > presetRank(sess.Preset) {
		notes = append(notes, fmt.Sprintf("preset %s clamped to the session's %s", p.Preset, presetName(sess.Preset)))
		p.Preset = sess.Preset
	}
	for _, r := range p.Rules {
		if strings.EqualFold(string(r.Decision), string(policy.Allow)) {
			notes = append(notes, fmt.Sprintf("rule %s allows nothing the session does not: where the session asks or denies, it still does", r))
		}
	}
	if t := sess.Remember.TTL; t > 0 && p.Remember.TTL > t {
		notes = append(notes, fmt.Sprintf("approval ttl %s clamped to the session's %s", p.Remember.TTL, t))
		p.Remember.TTL = t
	}
	return p, notes
}

// NarrowAllowlist keeps the names of want that parent (nil: every tool)
// lets through, and returns the others.
func NarrowAllowlist(parent, want []string) (kept, outside []string) {
	if parent == nil {
		return want, nil
	}
	kept = []string{}
	for _, n := range want {
		if slices.Contains(parent, n) {
			kept = append(kept, n)
		} else {
			outside = append(outside, n)
		}
	}
	return kept, outside
}

// presetRank orders presets from narrow to wide.
func presetRank(p policy.Preset) int {
	switch policy.Preset(strings.ToLower(string(p))) {
	case policy.PresetStrict:
		return 0
	case policy.PresetAutoEdit:
		return 2
	case policy.PresetYolo:
		return 3
	}
	return 1 // balanced, also the zero value
}

func presetName(p policy.Preset) string {
	if p == "" {
		return string(policy.PresetBalanced)
	}
	return string(p)
}

// NormalizeAllowlist checks MCP tool names: server__tool stays,
// server/tool becomes server__tool (deprecated), anything else with
// characters outside [a-zA-Z0-9_-] is an error. It reports whether a
// deprecated spelling was seen.
func NormalizeAllowlist(names []string) ([]string, bool, error) {
	if names == nil {
		return nil, false, nil
	}
	out := make([]string, 0, len(names))
	deprecated := false
	for _, n := range names {
		if server, tool, ok := strings.Cut(n, "/"); ok && !strings.Contains(tool, "/") {
			n, deprecated = server+"__"+tool, true
		}
		if !toolcalls.ValidName(n) || !strings.Contains(n, "__") {
			return nil, false, fmt.Errorf("mcp_allowlist: %q is not a fully qualified MCP tool name (want server__tool, letters, digits, _ and - only)", n)
		}
		out = append(out, n)
	}
	return out, deprecated, nil
}

// ParseTools reads tools=todo,patch,bash|none.
func ParseTools(v string) (store.ToolPrefs, error) {
	var p store.ToolPrefs
	if v == "none" || v == "" {
		return p, nil
	}
	for _, n := range strings.Split(v, ",") {
		switch strings.TrimSpace(n) {
		case "todo":
			p.Plan = true
		case "patch":
			p.Patch = true
		case "bash":
			p.Shell = true
		default:
			return p, fmt.Errorf("tools: %q is not todo, patch or bash (or none)", n)
		}
	}
	return p, nil
}

// ParseAllowlist reads mcp=a__b,c__d|none|all (all: nil).
func ParseAllowlist(v string) ([]string, error) {
	switch v {
	case "all":
		return nil, nil
	case "none", "":
		return []string{}, nil
	}
	var names []string
	for _, n := range strings.Split(v, ",") {
		if n = strings.TrimSpace(n); n != "" {
			names = append(names, n)
		}
	}
	allow, _, err := NormalizeAllowlist(names)
	return allow, err
}

// ParseRule reads deny|ask|allow=TOOL[:PATTERN].
func ParseRule(decision, v string) (policy.Rule, error) {
	tool, pattern, _ := strings.Cut(v, ":")
	r := policy.Rule{Tool: strings.TrimSpace(tool), Pattern: pattern, Decision: policy.Decision(decision)}
	if err := (policy.Policy{Rules: []policy.Rule{r}}).Validate(); err != nil {
		return r, fmt.Errorf("%s=%s: %w", decision, v, err)
	}
	return r, nil
}

// AddPolicySetting applies preset=, deny=, ask= or allow= to p.
func AddPolicySetting(p *policy.Policy, st command.Setting) error {
	if st.Key == "preset" {
		preset, err := policy.ParsePreset(st.Value)
		if err != nil {
			return fmt.Errorf("preset: %w", err)
		}
		p.Preset = preset
		return nil
	}
	r, err := ParseRule(st.Key, st.Value)
	if err != nil {
		return err
	}
	p.Rules = append(p.Rules, r)
	return nil
}

// OrSession, OrAll and OrNone say an unset value as people read it.
func OrSession(model string) string {
	if model == "" {
		return "(the session's)"
	}
	return model
}

func OrAll(allow []string) string {
	switch {
	case allow == nil:
		return "all"
	case len(allow) == 0:
		return "none"
	}
	return strings.Join(allow, ",")
}

func OrNone(v string) string {
	if v == "" {
		return "none"
	}
	return v
}
