package agent

import (
	"context"

	"github.com/coder-nvim/coder-nvim/core/store"
	"github.com/google/uuid"
)

func newID() string { return uuid.NewString() }

// beginTurn records a user turn.
func (s *Session) beginTurn(_ context.Context, t *task, input string) {
	s.mu.Lock()
	s.turns = append(s.turns, store.Turn{Task: t.id, Input: input, Started: s.opts.Now()})
	s.mu.Unlock()
}

// endTurn closes the record of the current turn.
func (s *Session) endTurn(t *task) {}
