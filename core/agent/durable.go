package agent

import (
	"github.com/coder-nvim/coder-nvim/core/store"
)

// lockFor takes the OS lock of session id, or returns nil when this session
// holds it already. Another process holding it is store.ErrLocked.
func (s *Session) lockFor(id string) (*store.Lock, error) {
	s.mu.Lock()
	held := s.lock != nil && s.lock.ID() == id
	s.mu.Unlock()
	if held {
		return nil, nil
	}
	return store.Acquire(store.Dir(s.root), id)
}

// holdLockLocked makes sure this process holds the lock of the current session
// before its file is written; a new session takes it at its first save.
// s.mu is held.
func (s *Session) holdLockLocked() error {
	if s.lock != nil && s.lock.ID() == string(s.id) {
		return nil
	}
	l, err := store.Acquire(store.Dir(s.root), string(s.id))
	if err != nil {
		return err
	}
	s.lock.Release()
	s.lock = l
	return nil
}

// setLock makes l the session's lock and gives the previous one up once
// every snapshot queued under it is written. A nil l releases the lock.
func (s *Session) setLock(l *store.Lock) {
	s.saver.sync()
	s.mu.Lock()
	old := s.lock
	s.lock = l
	s.mu.Unlock()
	old.Release()
}

// markStarted records durably that a tool call is about to run, so that
// if the host dies before its result is on disk, resume answers it with
// toolcalls.Unknown rather than claiming it never ran. Read-only tools are
// marked in memory only (in a snapshot taken while they run): running them
// again is harmless, so they are not worth a synchronous write.
func (s *Session) markStarted(callID string, durable bool) {
	s.mu.Lock()
	if s.started == nil {
		s.started = map[string]bool{}
	}
	s.started[callID] = durable
	var err error
	if durable {
		err = s.recordLocked(store.Record{Kind: store.KindStart, Call: callID})
	}
	s.mu.Unlock()
	s.reportSave(err)
}

// markEnded drops the marker; the result message recorded next answers
// the call, and its fsync makes the end marker durable with it.
func (s *Session) markEnded(callID string) {
	s.mu.Lock()
	durable := s.started[callID]
	delete(s.started, callID)
	var err error
	if durable {
		err = s.recordLaterLocked(store.Record{Kind: store.KindEnd, Call: callID})
	}
	s.mu.Unlock()
	s.reportSave(err)
}

// startedLocked lists the calls running now, for the snapshot. s.mu is
// held.
func (s *Session) startedLocked() []string {
	var ids []string
	for id := range s.started {
		ids = append(ids, id)
	}
	return ids
}
