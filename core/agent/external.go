package agent

import (
	"context"

	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/llm"
)

// ExternalChange is a change the user makes to the workspace through a
// front end, outside the agent's tools (a task's merge): it runs as a
// turn of the root conversation, between the turn's snapshots, so /undo
// and /rewind take it back as they take back the agent's own changes.
type ExternalChange struct {
	// Label is the turn's input, as /rewind lists it.
	Label string
	// Apply makes the change; paths are the files it changed (relative
	// to the workspace), note is told to the model with the history.
	Apply func(ctx context.Context) (paths []string, note string, err error)
}

// RunExternal runs c as a turn and waits for it; like input, it is
// refused (ErrBusy) while another turn runs.
func (s *Session) RunExternal(ctx context.Context, c ExternalChange) error {
	id := TaskID(s.newID())
	result := make(chan error, 1)
	if _, err := s.sched.submit(&taskPlan{id: id, kind: planExternal, conv: s.RootConversation(), input: c.Label, turn: id, external: &c, done: result}); err != nil {
		return err
	}
	select {
	case err := <-result:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// runExternal is an external change's task: a turn whose one act is the
// change, its files owned by the turn.
func (s *Session) runExternal(ctx context.Context, t *task) {
	p := t.plan
	s.beginTurn(ctx, t, p.input, t.conv.length()+1)
	s.awaitBefore(t)
	paths, note, err := p.external.Apply(ctx)
	if len(paths) > 0 {
		s.mu.Lock()
		if i := s.currentTurnLocked(t); i >= 0 {
			s.ownLocked(i, s.baseLocked(i), paths)
		}
		s.mu.Unlock()
		t.emit(event.Event{Kind: event.FilesChanged, Paths: paths})
	}
	if err == nil && note != "" {
		s.appendMessage(t.conv, llm.Message{Role: llm.RoleUser, Content: note})
	}
	s.endTurn(t)
	p.done <- err
	t.end = t.with(event.Event{Kind: event.TaskComplete, Reason: event.StopCommand})
}
