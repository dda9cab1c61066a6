package acp

// Prompts queue (issue 48): a session/prompt that arrives while a turn
// runs waits for it and then runs, as in the Neovim chat and codex-acp;
// the engine's scheduler is FIFO too. The SDK cancels a prompt's context
// as soon as the next session/prompt of its session arrives, so a turn
// runs on a context of its own that only session/cancel, the session's
// close and the connection's end cancel.

import "context"

// newTurn registers a prompt's turn at the end of the session's queue.
func (s *session) newTurn(req context.Context) *turn {
	ctx, cancel := context.WithCancel(context.WithoutCancel(req))
	stopWithConn := context.AfterFunc(s.srv.ctx, cancel)
	t := &turn{ctx: ctx, done: make(chan result, 1), stop: make(chan struct{})}
	t.cancelCtx = func() { stopWithConn(); cancel() }
	s.mu.Lock()
	s.waiting = append(s.waiting, t)
	busy := s.turn != nil
	s.mu.Unlock()
	if busy {
		s.srv.log.Info("prompt queued behind the running turn", "session", s.id)
	}
	return t
}

// acquire waits until t is the turn to run and makes it the running
// one; false when it was cancelled first (it then leaves the queue).
// Blocked sends on a channel are served in order: first come, first run.
func (s *session) acquire(t *turn) bool {
	ok := false
	select {
	case s.slot <- struct{}{}:
		ok = t.ctx.Err() == nil
		if !ok {
			<-s.slot
		}
	case <-t.ctx.Done():
	}
	s.mu.Lock()
	s.dequeueLocked(t)
	if ok {
		s.turn = t // in the same step: a cancel finds it queued or running
	}
	s.mu.Unlock()
	return ok
}

// dequeueLocked takes t out of the waiting prompts.
func (s *session) dequeueLocked(t *turn) {
	for i, w := range s.waiting {
		if w == t {
			s.waiting = append(s.waiting[:i], s.waiting[i+1:]...)
			return
		}
	}
}

// leave ends t's part in the queue, however its prompt returned.
func (s *session) leave(t *turn) {
	s.mu.Lock()
	s.dequeueLocked(t)
	s.mu.Unlock()
	t.cancelCtx()
}

func (s *session) releaseSlot() { <-s.slot }

// cancelTurn is session/cancel: it stops the running turn, or, when none
// runs yet, the oldest prompt still waiting. A prompt sent after the
// cancel then runs.
func (s *session) cancelTurn() {
	s.mu.Lock()
	t := s.turn
	if t == nil && len(s.waiting) > 0 {
		t = s.waiting[0]
	}
	s.mu.Unlock()
	if t != nil {
		t.cancel()
	}
}

// cancelQueued ends every waiting prompt (the session is closing).
func (s *session) cancelQueued() {
	s.mu.Lock()
	waiting := append([]*turn(nil), s.waiting...)
	s.mu.Unlock()
	for _, t := range waiting {
		t.cancel()
	}
}
