package policy

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/coder-nvim/coder-nvim/core/shellcheck"
)

// Memory holds "always" approvals. It is safe for concurrent use.
type Memory struct {
	mu   sync.Mutex
	now  func() time.Time
	keys []Key
}

// NewMemory returns an empty memory using now as its clock (time.Now when
// nil).
func NewMemory(now func() time.Time) *Memory {
	if now == nil {
		now = time.Now
	}
	return &Memory{now: now}
}

// Remember stores keys. A key with a TTL and no ExpiresAt expires TTL
// from now. Storing a key again replaces the earlier one.
func (m *Memory) Remember(keys []Key) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	for _, k := range keys {
		k.Path = slices.Clone(k.Path)
		if k.ExpiresAt.IsZero() && k.TTL > 0 {
			k.ExpiresAt = now.Add(k.TTL)
		}
		m.keys = slices.DeleteFunc(m.keys, func(o Key) bool { return sameKey(o, k) })
		m.keys = append(m.keys, k)
	}
}

// Prune drops expired keys.
func (m *Memory) Prune() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.pruneLocked()
}

func (m *Memory) pruneLocked() {
	now := m.now()
	m.keys = slices.DeleteFunc(m.keys, func(k Key) bool {
		return !k.ExpiresAt.IsZero() && !now.Before(k.ExpiresAt)
	})
}

// Len is how many keys are held, expired ones not yet pruned included.
func (m *Memory) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.keys)
}

// Keys returns a copy of the live keys (for display).
func (m *Memory) Keys() []Key {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.pruneLocked()
	out := make([]Key, len(m.keys))
	for i, k := range m.keys {
		k.Path = slices.Clone(k.Path)
		out[i] = k
	}
	return out
}

// Covers reports whether remembered approvals settle the ask verdict v
// for action a. Only asks are covered; a call the analyzer calls
// dangerous never is; a compound bash command is covered only if every
// part that asks is; a file call only if every path is.
func (m *Memory) Covers(a Action, v Verdict) bool {
	if v.Decision != Ask || v.Dangerous || len(v.Keys) == 0 {
		return false
	}
	if v.Analysis != nil && (v.Analysis.Class == shellcheck.Dangerous || v.Analysis.ParseError != "") {
		return false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.pruneLocked()
	for _, want := range v.Keys {
		if !slices.ContainsFunc(m.keys, func(have Key) bool { return covers(have, want, a) }) {
			return false
		}
	}
	return true
}

// covers reports whether the stored key have covers the needed key want.
func covers(have, want Key, a Action) bool {
	if have.Tool != want.Tool {
		return false
	}
	if have.Conversation != "" && have.Conversation != a.Conversation {
		return false
	}
	switch {
	case len(have.Path) == 0:
		return true // the whole tool
	case want.Tool == "bash" || want.Tool == "shell" || want.Tool == OutsideSandboxTool:
		// A stored prefix covers commands it is a word prefix of.
		return len(have.Path) <= len(want.Path) && slices.Equal(have.Path, want.Path[:len(have.Path)])
	case len(want.Path) == 1:
		if have.Path[0] == want.Path[0] {
			return true
		}
		// The wanted key is the pattern of some of the action's paths;
		// cover it when the stored pattern matches each of those paths.
		n := 0
		for _, p := range a.Paths {
			rel, err := relPath(p, "")
			if err != nil || filePattern(rel) != want.Path[0] {
				continue
			}
			n++
			if ok, err := doublestar.Match(have.Path[0], rel); err != nil || !ok {
				return false
			}
		}
		return n > 0
	}
	return false
}

// Answer is the user's reply to an approval prompt.
type Answer string

const (
	AnswerOnce   Answer = "y"
	AnswerDeny   Answer = "n"
	AnswerAlways Answer = "always"
)

// ParseAnswer parses y/yes, n/no, a/always (case-insensitive).
func ParseAnswer(s string) (Answer, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "y", "yes":
		return AnswerOnce, nil
	case "n", "no":
		return AnswerDeny, nil
	case "a", "always":
		return AnswerAlways, nil
	}
	return "", fmt.Errorf("answer %q: want y (once), n (deny) or always", s)
}

// Apply records the user's answer to the ask verdict v and returns the
// decision. "always" remembers v.Keys (nothing for dangerous calls, which
// are approved once).
func (m *Memory) Apply(ans Answer, v Verdict) Decision {
	switch ans {
	case AnswerOnce:
		return Allow
	case AnswerAlways:
		if !v.Dangerous && (v.Analysis == nil || v.Analysis.Class != shellcheck.Dangerous) {
			m.Remember(v.Keys)
		}
		return Allow
	}
	return Deny
}

// Settle resolves an ask without prompting where it can: remembered
// approvals, or non-interactive mode (auto_approve_ask=true or
// approval.interactive=false), where asks are allowed without blocking.
// It returns Ask only when the user must be prompted.
func Settle(v Verdict, a Action, m *Memory, interactive bool) Decision {
	if v.Decision != Ask {
		return v.Decision
	}
	if m != nil && m.Covers(a, v) {
		return Allow
	}
	if !interactive {
		return Allow
	}
	return Ask
}

// DeniedByUser is the tool result text given to the model when the user
// answers no, so that it can adapt instead of retrying.
func DeniedByUser(a Action) string {
	what := a.Tool
	if a.Command != "" {
		what = fmt.Sprintf("%s `%s`", a.Tool, a.Command)
	} else if len(a.Paths) > 0 {
		what = fmt.Sprintf("%s on %s", a.Tool, strings.Join(a.Paths, ", "))
	}
	return fmt.Sprintf("The user denied %s. Do not retry the same call; ask the user what they want or take a different approach.", what)
}
