package agent

import (
	"fmt"
	"strings"

	"github.com/coder-nvim/coder-nvim/core/agentsmd"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/text"
)

// The project's AGENTS.md files (core/agentsmd) reach the model as one
// user-role message right after the system message, fixed when the
// conversation opens: every request of the conversation carries the same
// bytes there, so each still extends the one before it. A nested file
// arrives once, appended to the result of the tool call that worked in its
// directory, which history keeps as sent. Neither is ever parsed for
// settings.

// agentsOptions are the user's agents_md settings for this workspace.
func (s *Session) agentsOptions() agentsmd.Options {
	a := s.opts.Config.AgentsMD
	return agentsmd.Options{GlobalDir: a.GlobalDir, Root: s.root, MaxBytes: a.MaxBytes, Fallback: a.FallbackNames}
}

// agentsFor is a conversation's set: none when its opener said so, else
// read now, keeping the nested files given before (resume).
func (s *Session) agentsFor(none bool, given []agentsmd.File) *agentsmd.Set {
	if none {
		return nil
	}
	return agentsmd.Restore(s.agentsOptions(), given)
}

// agentsMessage is the conversation's project instructions message, if
// it has one.
func agentsMessage(c *Conversation) []llm.Message {
	if msg := c.agents.Text(); msg != "" {
		return []llm.Message{{Role: llm.RoleUser, Content: msg}}
	}
	return nil
}

// savedAgents is what a session file keeps before c's history: the
// AGENTS.md message as sent, marked (store.Head), and its time.
func savedAgents(c *Conversation) ([]llm.Message, []int64) {
	msgs := agentsMessage(c)
	if len(msgs) == 0 {
		return nil, nil
	}
	msgs[0].Source = llm.SourceAgentsMD
	var at int64 // 0: unknown
	if !c.created.IsZero() {
		at = c.created.UnixMilli()
	}
	return msgs, []int64{at}
}

// AgentsMD lists the instruction files a conversation ("" the root) was
// given, in order (ACP session info).
func (s *Session) AgentsMD(convID ConversationID) []agentsmd.File {
	c, err := s.conversation(convID)
	if err != nil {
		return nil
	}
	return c.agents.Files()
}

// tellAgents says which files a new or resumed session's root
// conversation was given, and which were cut.
func (s *Session) tellAgents() {
	s.mu.Lock()
	c := s.rootConv
	s.mu.Unlock()
	if note := agentsNote(c); note != "" {
		s.emit(event.Event{Kind: event.Notice, Conversation: string(c.ID), Text: note[1:]})
	}
}

// agentsNote is a line naming the files c was given, after a newline; ""
// when none.
func agentsNote(c *Conversation) string {
	if files := c.agents.Files(); len(files) > 0 {
		return "\nproject instructions: " + agentsLine(files)
	}
	return ""
}

// agentsStatus is /status's word on c's files.
func (s *Session) agentsStatus(c *Conversation) string {
	switch files := c.agents.Files(); {
	case c.agents == nil:
		return "off for this conversation (agents_md=off)"
	case s.opts.Config.AgentsMD.MaxBytes <= 0:
		return "off (agents_md.max_bytes is 0)"
	case len(files) == 0:
		return "none (no AGENTS.md found)"
	default:
		return agentsLine(files)
	}
}

// nestedAgents is the text of the nested files a tool call's paths lead
// to, for its result; the user is told which.
func (s *Session) nestedAgents(t *task, paths []string) string {
	note, added := t.conv.agents.Nested(paths)
	if len(added) > 0 {
		t.emit(event.Event{Kind: event.Notice, Text: "project instructions: " + agentsLine(added)})
	}
	return note
}

// agentsLine names files with their sizes, and what was cut.
func agentsLine(files []agentsmd.File) string {
	parts := make([]string, len(files))
	for i, f := range files {
		parts[i] = fmt.Sprintf("%s (%s)", f.Path, text.Size(f.Size))
		if f.Cut() {
			parts[i] = fmt.Sprintf("%s (%s, cut to %s: agents_md.max_bytes)", f.Path, text.Size(f.Size), text.Size(int64(f.Sent)))
		}
	}
	return strings.Join(parts, ", ")
}
