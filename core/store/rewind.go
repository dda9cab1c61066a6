package store

import (
	"time"

	"github.com/coder-nvim/coder-nvim/core/llm"
)

// Branch is the part of a conversation /rewind cut off: the messages
// from Start (1-based) on, and the turns they held. It is kept on disk,
// listed by /rewind, and never sent to the model again.
type Branch struct {
	Conv     string        `json:"conv,omitempty"` // "" is the root conversation
	Start    int           `json:"start"`
	Time     time.Time     `json:"time"`
	Turns    []string      `json:"turns,omitempty"` // task ids of the abandoned turns
	Messages []llm.Message `json:"messages,omitempty"`
}

// filtered is b as policy p stores it: under anything but full (ttl
// included, since an abandoned branch is never used again) its text is
// not stored.
func (b *Branch) filtered(p Policy) *Branch {
	if b == nil || p == PolicyFull {
		return b
	}
	if p != PolicyNone {
		p = PolicyHeaders
	}
	c := *b
	c.Messages = filterMessages(p, b.Messages)
	return &c
}

// applyRewind replays a /rewind onto s: the root conversation is cut
// back to just before message b.Start, the cut part kept as a branch.
// Only the root conversation is rewound; the messages of a bounded
// resume that stay on disk (Skipped) all lie before the cut, as /rewind
// never cuts into a compacted view.
func (s *Snapshot) applyRewind(b *Branch) {
	if b == nil || b.Conv != "" {
		return
	}
	s.Abandoned = append(s.Abandoned, *b)
	sys, skipped := Head(s.Messages), 0
	if k := s.Skipped[""]; k != nil {
		skipped = k.N
	}
	cut := sys + b.Start - 1 - skipped
	if b.Start-1 < skipped || cut > len(s.Messages) {
		return // not what was recorded: keep every message
	}
	if len(s.MessageTimes) == len(s.Messages) {
		s.MessageTimes = s.MessageTimes[:cut]
	}
	s.Messages = s.Messages[:cut]
}
