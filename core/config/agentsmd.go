package config

import (
	"fmt"
	"slices"
	"strings"
)

// AgentsMD says how the project's AGENTS.md files are read (core/agentsmd).
// They are the repository's text: no value here lets them change a
// setting.
type AgentsMD struct {
	// MaxBytes caps the text of all files a conversation is given; 0
	// reads none.
	MaxBytes int `json:"max_bytes"`
	// FallbackNames are tried, in order, in a directory without
	// AGENTS.md ("CLAUDE.md"); plain file names.
	FallbackNames []string `json:"fallback_names"`
	// GlobalDir holds the user's own AGENTS.md: the user file's
	// directory, filled by Load; "" (tests, Defaults): none.
	GlobalDir string `json:"-"`
}

// validateAgentsMD checks the agents_md keys.
func (c Config) validateAgentsMD(bad func(key, format string, args ...any)) {
	if c.AgentsMD.MaxBytes < 0 {
		bad("agents_md.max_bytes", "must be 0 (read no AGENTS.md) or more, got %d", c.AgentsMD.MaxBytes)
	}
	for i, n := range c.AgentsMD.FallbackNames {
		if n == "" || n == "." || n == ".." || strings.ContainsAny(n, `/\`) {
			bad(fmt.Sprintf("agents_md.fallback_names[%d]", i), "want a plain file name such as \"CLAUDE.md\", got %q", n)
		}
	}
}

// narrowAgentsMD applies what a project file may change of agents_md
// while untrusted: a lower cap (less of the repository's text); which
// files are read is the user's to choose.
func narrowAgentsMD(out, cur, proj *Config, ignore func(string, any)) {
	lower(&out.AgentsMD.MaxBytes, cur.AgentsMD.MaxBytes, proj.AgentsMD.MaxBytes, "agents_md.max_bytes", ignore)
	if !slices.Equal(proj.AgentsMD.FallbackNames, cur.AgentsMD.FallbackNames) {
		ignore("agents_md.fallback_names", proj.AgentsMD.FallbackNames)
	}
}
