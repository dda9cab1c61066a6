package agent

import (
	"cmp"
	"slices"

	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/store"
)

// HistoryStore (seed 004 §4.1): history.max_items and the token bound
// limit what a request sends — past them the oldest messages are sent as
// one summary (compact.go) — and they limit what is held in memory too.
// Once a snapshot durably holds the messages a conversation's view
// summarises, they leave memory (Conversation.base); resume leaves them
// on disk from the start (store.ResumeBounded). They are read back on
// demand, one at a time, for conv_history, /resume and replays. So under
// every storage policy: what is read back is what the policy stored
// (headers only under headers_only and once ttl aged the text, nothing
// under none), as after a resume.

// allMessages is c's whole history: the messages on disk read back, then
// those in memory. On a read error the part in memory, with the error
// reported.
func (s *Session) allMessages(c *Conversation) []llm.Message {
	s.mu.Lock()
	id, key, policy := s.id, s.convKeyLocked(c), store.Narrower(s.storage, c.Storage)
	s.mu.Unlock()
	c.mu.Lock()
	base, mem := c.base, slices.Clone(c.history)
	c.mu.Unlock()
	if base == 0 || policy == store.PolicyNone { // none: nothing on disk
		return mem
	}
	out := make([]llm.Message, 0, base+len(mem))
	// The snapshot file holds at least base messages: the history leaves
	// memory only once a snapshot holding it is durable, and every later
	// snapshot copies it over.
	err := store.ReadMessages(store.Dir(s.root), string(id), key, base, func(m llm.Message) { out = append(out, m) })
	if err != nil {
		s.emit(event.Event{Kind: event.Error, Text: "the older part of the history could not be read: " + err.Error()})
		return mem
	}
	return append(out, mem...)
}

// messageCount is what store.CountMessages counts of c's whole history,
// without reading the part on disk back.
func (c *Conversation) messageCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.skipped.Messages + store.CountMessages(c.history)
}

// onDisk reports whether some of c's history is on disk only.
func (c *Conversation) onDisk() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.base > 0
}

// evictSaved drops from memory, per conversation, the messages its view
// summarises that snapshot snap (now durable) holds, as its policy
// stores them.
func (s *Session) evictSaved(snap *store.Snapshot) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if snap.ID != string(s.id) || snap.Layout != store.LayoutBounded {
		return
	}
	held := map[string]int{"": max(len(snap.Messages)-1, 0)}
	for _, cv := range snap.Conversations {
		held[cv.ID] = len(cv.Messages)
	}
	for key, k := range snap.Skipped {
		held[key] += k.N
	}
	for _, c := range s.order {
		key := s.convKeyLocked(c)
		c.mu.Lock()
		if c.view != nil {
			c.evictLocked(min(c.view.Upto, held[key]))
		}
		c.mu.Unlock()
	}
}

// evictLocked drops the messages before upto from memory. c.mu is held.
func (c *Conversation) evictLocked(upto int) {
	k := upto - c.base
	if k <= 0 || k > len(c.history) {
		return
	}
	for _, m := range c.history[:k] {
		c.skipped.Add(m)
	}
	c.times = alignTimes(c.times, len(c.history))
	for _, at := range c.times[:k] {
		if at != 0 {
			c.evicted = [2]int64{min(at, cmp.Or(c.evicted[0], at)), max(at, c.evicted[1])}
		}
	}
	c.history = slices.Clone(c.history[k:]) // a new array: the old one is freed
	c.times = slices.Clone(c.times[k:])
	c.base = upto
}
