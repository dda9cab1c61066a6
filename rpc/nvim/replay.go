package nvimhost

import (
	"strings"

	"github.com/coder-nvim/coder-nvim/core/agent"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/llm"
)

// replay writes a resumed conversation into the transcript: what was said
// by whom and which tools ran, without the tools' output.
func (r *renderer) replay(sessionID string, msgs []llm.Message) {
	r.replayTitled("session "+sessionID, nil, msgs)
}

// replayTitled is replay under a heading naming what is shown, and the
// header's lines (a conversation's metrics) below it.
func (r *renderer) replayTitled(name string, header []string, msgs []llm.Message) {
	r.paragraph()
	r.line(hlNotice, "── "+name+" ──")
	for _, l := range header {
		r.line(hlNotice, "   "+l)
	}
	r.section, r.stream = "", ""
	results := map[string]string{}
	for _, m := range msgs {
		if m.Role == llm.RoleTool {
			results[m.ToolCallID] = m.Content
		}
	}
	for _, m := range msgs {
		switch m.Role {
		case llm.RoleUser:
			r.event(event.Event{Kind: event.UserMessage, Text: strings.TrimRight(m.Content, "\n")})
		case llm.RoleAssistant:
			if strings.TrimSpace(m.Content) != "" {
				r.agentText("message", "", strings.TrimRight(m.Content, "\n"), "")
				r.endStream()
			}
			for _, tc := range m.ToolCalls {
				r.agentSection()
				// The recorded outcome, never a call that looks pending.
				name := event.ToolDisplayName(tc.Function.Name) + " " + oneLine(tc.Function.Arguments, 80)
				switch res, ok := results[tc.ID]; {
				case !ok:
					r.line(hlToolFailed, "✗ "+name+" — no result was recorded")
				case agent.FailedResult(res):
					r.line(hlToolFailed, "✗ "+name+" — "+oneLine(res, 100))
				default:
					r.line(hlToolOK, "✓ "+name)
				}
				r.stream = ""
			}
		}
	}
	r.newline()
	r.section, r.stream = "", ""
}

// oneLine cuts s to one line of at most n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if rs := []rune(s); len(rs) > n {
		return string(rs[:n]) + "…"
	}
	return s
}
