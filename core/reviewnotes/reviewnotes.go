// Package reviewnotes keeps what the model is told of the user's review
// with its next message: the hunks the user rejected in a turn's review,
// or left out of a task's merge, with their reasons, until they are told.
// A note rides on a user message after Mark and ends with End, so a
// /rewind can find the notes a cut message told and tell them again.
package reviewnotes

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/store"
	"github.com/coder-nvim/coder-nvim/core/text"
)

// Mark starts the notes a user message carries; End ends each note.
const (
	Mark = "\n\n[review] "
	End  = "Do not make that change again unless asked."
)

// Queue is the notes waiting for the next message. The zero value is
// empty and ready.
type Queue struct {
	mu    sync.Mutex
	notes []string
}

// Add queues note.
func (q *Queue) Add(note string) {
	q.mu.Lock()
	q.notes = append(q.notes, note)
	q.mu.Unlock()
}

// Reset makes notes the queue's (nil: none).
func (q *Queue) Reset(notes []string) {
	q.mu.Lock()
	q.notes = notes
	q.mu.Unlock()
}

// Take returns the queued notes once, joined, and empties the queue: ""
// when none wait.
func (q *Queue) Take() string {
	q.mu.Lock()
	defer q.mu.Unlock()
	notes := strings.Join(q.notes, "\n\n")
	q.notes = nil
	return notes
}

// Rewind makes the queue agree with a /rewind to just before turn n that
// cut msgs: a note on a turn before n is told again if the message that
// told it was cut; a note on turn n or later goes with that turn's change.
func (q *Queue) Rewind(msgs []llm.Message, n int) {
	var keep []string
	for _, m := range msgs {
		if m.Role != llm.RoleUser {
			continue
		}
		if i := strings.LastIndex(m.Content, Mark); i >= 0 {
			for _, note := range strings.SplitAfter(m.Content[i+len(Mark):], End) {
				keep = append(keep, strings.TrimSpace(note))
			}
		}
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	keep = append(keep, q.notes...)
	q.notes = nil
	for _, note := range keep {
		var turn int
		if _, err := fmt.Sscanf(note, "In turn %d ", &turn); err == nil && turn < n && strings.HasSuffix(note, End) {
			q.notes = append(q.notes, note)
		}
	}
}

// Rejected is the note on a hunk the user rejected and reverted in turn n
// (its input, the file and the line the hunk starts at).
func Rejected(n int, input, path string, line int, oldLines, newLines []string, reason string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "In turn %d (%q) the user rejected and reverted your change to %s at line %d:\n", n, text.Truncate(text.FirstLine(input), 80), path, line)
	WriteHunk(&b, oldLines, newLines, reason)
	b.WriteString(End)
	return b.String()
}

// WriteHunk tells a model, in b, the lines of a hunk the user rejected:
// those kept and those not taken (each cut to 200 characters), then the
// user's reason when there is one.
func WriteHunk(b *strings.Builder, oldLines, newLines []string, reason string) {
	for _, l := range oldLines {
		b.WriteString("  (kept) " + strings.TrimRight(text.Truncate(l, 200), "\n") + "\n")
	}
	for _, l := range newLines {
		b.WriteString("  (removed) " + strings.TrimRight(text.Truncate(l, 200), "\n") + "\n")
	}
	if reason != "" {
		b.WriteString("Reason: " + reason + "\n")
	}
}

// Pending are the rejections' notes of turns the model was not told yet
// (no user message of msgs holds them): a session resumed after a restart
// between a rejection and the next message still tells them. Root turns
// starting before base (their messages left on disk) were told.
func Pending(turns []store.Turn, base int, msgs []llm.Message) []string {
	var out []string
	for _, t := range turns {
		if t.Rewound || t.Start <= base && t.Conv == "" {
			continue
		}
		for _, v := range t.Review {
			if v.Keep || v.Note == "" || slices.ContainsFunc(msgs, func(m llm.Message) bool {
				return m.Role == llm.RoleUser && strings.Contains(m.Content, v.Note)
			}) {
				continue
			}
			out = append(out, v.Note)
		}
	}
	return out
}
