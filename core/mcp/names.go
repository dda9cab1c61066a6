package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
)

// MaxNameLen is the longest tool name OpenAI-compatible APIs accept.
const MaxNameLen = 64

// FQN is the fully qualified name the model sees: server__tool, with any
// character the tools API refuses replaced by '_', and names longer than
// MaxNameLen shortened deterministically with a hash of the whole name.
func FQN(server, tool string) string {
	full := sanitize(server) + "__" + sanitize(tool)
	if len(full) <= MaxNameLen {
		return full
	}
	sum := sha256.Sum256([]byte(server + "\x00" + tool))
	suffix := "_" + hex.EncodeToString(sum[:])[:8]
	return full[:MaxNameLen-len(suffix)] + suffix
}

func sanitize(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

// NormalizeAllowlist turns the entries of a conversation's allowlist into
// FQNs: "server/tool" (deprecated) becomes "server__tool". It reports
// whether any deprecated form was seen, and entries that are malformed.
func NormalizeAllowlist(entries []string) (names []string, deprecated bool, bad []string) {
	seen := map[string]bool{}
	for _, e := range entries {
		e = strings.TrimSpace(e)
		if srv, tool, ok := strings.Cut(e, "/"); ok {
			if srv == "" || tool == "" || strings.Contains(tool, "/") {
				bad = append(bad, e)
				continue
			}
			deprecated = true
			e = FQN(srv, tool)
		}
		if !strings.Contains(e, "__") || !serverNameRE().MatchString(e) {
			bad = append(bad, e)
			continue
		}
		if !seen[e] {
			seen[e] = true
			names = append(names, e)
		}
	}
	sort.Strings(names)
	return names, deprecated, bad
}

// DeprecationNotice is said once per session when an allowlist used the
// "server/tool" form.
const DeprecationNotice = `mcp_allowlist: the "server/tool" form is deprecated; write "server__tool"`

func unknownError(names []string) error {
	return fmt.Errorf("unknown MCP tools in mcp_allowlist: %s (tools are named server__tool; see /tools)", strings.Join(names, ", "))
}
