// Package breakdown says where a request's tokens go (/context): the
// instructions, the AGENTS.md message, the tool schemas (built-in and MCP
// apart), the history by role, attachments and the biggest items, each in
// tokens and as a share of the context window. Sizes are the parts' JSON
// as sent, four bytes a token, so they add up to the request body.
package breakdown

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/mention"
	"github.com/coder-nvim/coder-nvim/core/text"
)

// Part is one line of the breakdown.
type Part struct {
	Name   string
	Tokens int
}

// Item is one big message or schema, named.
type Item struct {
	What   string
	Tokens int
}

// Report is a request's breakdown.
type Report struct {
	Window  int
	Parts   []Part
	Biggest []Item
	Total   int
	// CompactSaves is what /compact would take off the next request
	// (its summarised messages less a summary's size); 0: nothing to
	// summarise.
	CompactSaves int
	CompactItems int
}

// HistoryStart is the index of the first message of msgs /compact would
// summarise: the first after the system and AGENTS.md messages.
func HistoryStart(msgs []llm.Message) int {
	head := 0
	for head < len(msgs) && (msgs[head].Role == llm.RoleSystem || isInstructions(msgs[head])) {
		head++
	}
	return head
}

// isInstructions reports whether m is the AGENTS.md message (core/agentsmd).
func isInstructions(m llm.Message) bool {
	return m.Role == llm.RoleUser && strings.HasPrefix(m.Content, "<project_instructions>")
}

// Of breaks req down against a window of window tokens; compactFrom is
// the index of the first message /compact would keep (len(messages) or
// less; 0 or 1: nothing to summarise).
func Of(req llm.Request, window, compactFrom int) Report {
	r := Report{Window: window}
	sums := map[string]int{}
	order := []string{"instructions", "AGENTS.md", "tool schemas (built-in)", "tool schemas (MCP)", "user messages", "attachments", "assistant messages", "tool results"}
	var items []Item
	for i, m := range req.Messages {
		n := size(m)
		name := ""
		switch {
		case i == 0 && m.Role == llm.RoleSystem:
			name = "instructions"
		case isInstructions(m):
			name = "AGENTS.md"
		case m.Role == llm.RoleUser:
			name = "user messages"
			// What @file, #buffer and the like attached (core/mention)
			// counts apart from what was typed.
			if at := strings.Index(m.Content, mention.AttachmentsStart); at >= 0 {
				att := min(n, len(m.Content[at:])/4)
				sums["attachments"] += att
				n -= att
			}
		case m.Role == llm.RoleAssistant:
			name = "assistant messages"
		case m.Role == llm.RoleTool:
			name = "tool results"
		default:
			name = "instructions"
		}
		sums[name] += n
		items = append(items, Item{What: describe(i, m, req.Messages), Tokens: size(m)})
		if i < compactFrom && i > 0 {
			r.CompactSaves += size(m)
			r.CompactItems++
		}
	}
	for _, t := range req.Tools {
		data, _ := json.Marshal(t)
		name := "tool schemas (built-in)"
		if strings.Contains(t.Function.Name, "__") {
			name = "tool schemas (MCP)"
		}
		sums[name] += len(data) / 4
		items = append(items, Item{What: "schema of " + t.Function.Name, Tokens: len(data) / 4})
	}
	for _, name := range order {
		if sums[name] > 0 {
			r.Parts = append(r.Parts, Part{Name: name, Tokens: sums[name]})
			r.Total += sums[name]
		}
	}
	if r.CompactSaves > 0 {
		r.CompactSaves = max(0, r.CompactSaves-summaryTokens)
	}
	sort.SliceStable(items, func(i, j int) bool { return items[i].Tokens > items[j].Tokens })
	r.Biggest = items[:min(5, len(items))]
	return r
}

// summaryTokens is about what a compaction summary costs in its place.
const summaryTokens = 600

// size is m's JSON as sent, in tokens.
func size(m llm.Message) int {
	data, err := json.Marshal(m)
	if err != nil {
		return (len(m.Content) + len(m.Reasoning)) / 4
	}
	return len(data) / 4
}

// describe names message i: a tool result by its call.
func describe(i int, m llm.Message, all []llm.Message) string {
	switch m.Role {
	case llm.RoleSystem:
		return "the system message"
	case llm.RoleTool:
		for j := i - 1; j >= 0; j-- {
			for _, c := range all[j].ToolCalls {
				if c.ID == m.ToolCallID {
					return fmt.Sprintf("result of %s %s", c.Function.Name, short(c.Function.Arguments))
				}
			}
		}
		return "a tool result"
	case llm.RoleAssistant:
		if len(m.ToolCalls) > 0 {
			return fmt.Sprintf("assistant message %d (%d tool calls)", i, len(m.ToolCalls))
		}
		return fmt.Sprintf("assistant message %d: %s", i, short(m.Content))
	}
	if strings.HasPrefix(m.Content, "<project_instructions>") {
		return "the AGENTS.md message"
	}
	return fmt.Sprintf("user message %d: %s", i, short(m.Content))
}

func short(s string) string {
	return text.Truncate(strings.Join(strings.Fields(s), " "), 49)
}

// String is the report as /context shows it.
func (r Report) String() string {
	var b strings.Builder
	pct := func(n int) string {
		if r.Window <= 0 {
			return ""
		}
		return fmt.Sprintf(" %5.1f%%", 100*float64(n)/float64(r.Window))
	}
	fmt.Fprintf(&b, "context: %s tokens%s of a %s-token window (the next request as it stands)\n", num(r.Total), pct(r.Total), num(r.Window))
	for _, p := range r.Parts {
		fmt.Fprintf(&b, "  %-26s %8s%s\n", p.Name, num(p.Tokens), pct(p.Tokens))
	}
	if r.Window > r.Total {
		fmt.Fprintf(&b, "  %-26s %8s%s\n", "free", num(r.Window-r.Total), pct(r.Window-r.Total))
	}
	b.WriteString("biggest:\n")
	for _, it := range r.Biggest {
		fmt.Fprintf(&b, "  %8s  %s\n", num(it.Tokens), it.What)
	}
	if r.CompactSaves > 0 {
		fmt.Fprintf(&b, "/compact would save about %s tokens (the %d oldest messages, replaced by a summary)\n", num(r.CompactSaves), r.CompactItems)
	} else {
		b.WriteString("/compact would save nothing yet: the history is short\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// num is n with thousands separated.
func num(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
