package nvimhost

import (
	"strings"

	"github.com/coder-nvim/coder-nvim/core/agent/todo"
	"github.com/coder-nvim/coder-nvim/core/agent/toolcalls"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/store"
)

// replayHistory replays the root conversation of the session shown, if
// it holds anything.
func (r *renderer) replayHistory() {
	if r.history == nil {
		return
	}
	if msgs, cmds := r.history(); len(msgs) > 0 || len(cmds) > 0 {
		r.replay(r.session, msgs, cmds)
	}
}

// replay writes a resumed conversation into the transcript: what was said
// by whom and which tools ran, without the tools' output.
func (r *renderer) replay(sessionID string, msgs []llm.Message, cmds []store.Command) {
	r.replayTitled("session "+sessionID, nil, msgs, cmds)
}

// replayTitled is replay under a heading naming what is shown, and the
// header's lines (a conversation's metrics) below it. The / command
// results recorded go where they ran among the messages.
func (r *renderer) replayTitled(name string, header []string, msgs []llm.Message, cmds []store.Command) {
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
	commandsUpTo := func(at int) {
		for len(cmds) > 0 && cmds[0].At <= at {
			r.event(event.Event{Kind: event.UserMessage, Text: cmds[0].Input})
			r.event(event.Event{Kind: event.CommandOutput, Text: strings.TrimRight(cmds[0].Output, "\n")})
			cmds = cmds[1:]
		}
	}
	for i, m := range msgs {
		commandsUpTo(i)
		switch m.Role {
		case llm.RoleUser:
			r.event(event.Event{Kind: event.UserMessage, Text: strings.TrimRight(todo.Shown(m.Content), "\n")})
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
				case toolcalls.Failed(res):
					r.line(hlToolFailed, "✗ "+name+" — "+oneLine(res, 100))
				default:
					r.line(hlToolOK, "✓ "+name)
				}
				r.stream = ""
			}
		}
	}
	commandsUpTo(len(msgs))
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
