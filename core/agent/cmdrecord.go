package agent

import (
	"slices"
	"strings"

	"github.com/coder-nvim/coder-nvim/core/store"
)

// recordCommand writes a / command's result into the conversation's
// record (seed 001 §4): a resumed session shows it where it ran; it is
// never sent to the model. Commands that leave the session (/new,
// /resume) are not kept in it.
func (s *Session) recordCommand(c *Conversation, input, out string) {
	name, _, _ := strings.Cut(strings.TrimPrefix(input, "/"), " ")
	if name == "new" || name == "resume" {
		return
	}
	s.mu.Lock()
	c.mu.Lock()
	cmd := store.Command{At: c.base + len(c.history), Input: input, Output: out, Time: s.opts.Now()}
	c.commands = append(c.commands, cmd)
	c.mu.Unlock()
	root := s.rootConv
	root.mu.Lock()
	rootEmpty := root.base+len(root.history) == 0
	root.mu.Unlock()
	if rootEmpty && (s.journal == nil || s.journalID != s.id) {
		// Commands alone make no session on disk; the first snapshot
		// takes them along.
		s.mu.Unlock()
		return
	}
	err := s.recordLocked(store.Record{Kind: store.KindCommand, Conv: s.convKeyLocked(c), Command: &cmd})
	s.mu.Unlock()
	s.reportSave(err)
}

// Commands are the / command results of a conversation ("" is the root),
// in the order they ran; At places each among its messages.
func (s *Session) Commands(id ConversationID) []store.Command {
	c, err := s.conversation(id)
	if err != nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.commands)
}
