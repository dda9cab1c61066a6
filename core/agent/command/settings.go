package command

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
)

// The user's side of conversations (seed 002 NewConversationParams and
// SetConversationContext): `/conversation new|set`, and the Neovim
// `:Coder conversation` commands through the same functions. The user is
// the authority here, the session the limit: anything wider than the
// session allows is clamped, and the user is told what.

// Setting is one KEY=VALUE of a conversation request.
type Setting struct{ Key, Value string }

// NewKeys are the settings of a new conversation, in the order a form asks
// for them.
var NewKeys = []string{"instructions", "user", "mcp", "model", "storage", "preset", "deny", "ask", "allow", "tools", "agents_md"}

// SetKeys are the settings of a live conversation's context.
var SetKeys = []string{"instructions", "model", "mcp", "refresh_mcp", "preset", "deny", "ask", "allow", "tools"}

// ConversationUsage is /conversation's help.
const ConversationUsage = `usage:
  /conversation new [KEY=VALUE ...] [FIRST MESSAGE]
      instructions=TEXT|@FILE  base instructions (default: the built-in ones)
      user=TEXT                user instructions: its first message (or give them as FIRST MESSAGE)
      mcp=a__b,c__d|none|all   the MCP tools it may use
      model=NAME               its model (default: the session's)
      storage=full|headers_only|none|ttl   what is stored of it (at most what the session stores)
      preset=strict|balanced|auto-edit|yolo   its permission preset (at most the session's)
      deny=TOOL[:PATTERN], ask=TOOL[:PATTERN], allow=TOOL[:PATTERN]   extra rules (narrowing only)
      tools=todo,patch,bash|none   the built-in switches it keeps
      agents_md=on|off         whether it gets the project's AGENTS.md files (default: on)
    With a first message it runs on it at once.
  /conversation set [ID|root] KEY VALUE  (or KEY=VALUE ...)
      changes instructions, model, mcp, preset, rules or tools for later
      turns (history is never rewritten); refresh_mcp rebuilds its MCP view.
    Without ID: the conversation the command is typed in.
Values with spaces go in "double" or 'single' quotes.`

// ParseSettings reads the leading KEY=VALUE words of line whose KEY is one
// of keys; values may be quoted. The first other word starts rest, which
// is returned as typed.
func ParseSettings(line string, keys []string) ([]Setting, string, error) {
	var out []Setting
	i := 0
	for {
		for i < len(line) && unicode.IsSpace(rune(line[i])) {
			i++
		}
		if i == len(line) {
			return out, "", nil
		}
		key, _, ok := strings.Cut(line[i:], "=")
		if !ok || !slices.Contains(keys, key) || strings.ContainsFunc(key, unicode.IsSpace) {
			return out, strings.TrimSpace(line[i:]), nil
		}
		val, n, err := readValue(line[i+len(key)+1:])
		if err != nil {
			return nil, "", fmt.Errorf("%s: %w", key, err)
		}
		out = append(out, Setting{key, val})
		i += len(key) + 1 + n
	}
}

// readValue reads one value: "quoted" (backslash escapes " and \),
// 'quoted' (as is) or up to the next space. It returns the bytes used.
func readValue(s string) (string, int, error) {
	if s == "" || s[0] != '"' && s[0] != '\'' {
		n := strings.IndexFunc(s, unicode.IsSpace)
		if n < 0 {
			n = len(s)
		}
		return s[:n], n, nil
	}
	q := s[0]
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch c := s[i]; {
		case c == q:
			if i+1 < len(s) && !unicode.IsSpace(rune(s[i+1])) {
				return "", 0, errors.New("a quoted value must be followed by a space")
			}
			return b.String(), i + 1, nil
		case c == '\\' && q == '"' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\'):
			i++
			b.WriteByte(s[i])
		default:
			b.WriteByte(c)
		}
	}
	return "", 0, fmt.Errorf("unterminated %c quote", q)
}

// SetArgs reads the settings of `set`: KEY VALUE (the rest of the line is
// the value) or KEY=VALUE ....
func SetArgs(line string) ([]Setting, error) {
	line = strings.TrimSpace(line)
	key, val, _ := strings.Cut(line, " ")
	if slices.Contains(SetKeys, key) {
		val = strings.TrimSpace(val)
		if len(val) >= 2 && (val[0] == '"' || val[0] == '\'') && val[len(val)-1] == val[0] {
			v, n, err := readValue(val)
			if err == nil && n == len(val) {
				val = v
			}
		}
		return []Setting{{key, val}}, nil
	}
	settings, rest, err := ParseSettings(line, SetKeys)
	if err != nil {
		return nil, err
	}
	if rest != "" {
		return nil, fmt.Errorf("%q is not KEY VALUE or KEY=VALUE (keys: %s)", rest, strings.Join(SetKeys, ", "))
	}
	return settings, nil
}
