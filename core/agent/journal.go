package agent

import (
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/store"
)

// The session's record on disk is its snapshot (rewritten at the end of
// every task and on close) plus its journal: every message, tool start
// and turn record is appended to the journal, fsynced, as it happens, at
// a cost that does not grow with the session. Records are appended under
// s.mu in the same critical section that changes the state they record,
// so a snapshot taken under s.mu names exactly the journal records it
// holds (JournalSeq).

// journalLocked is the current session's journal, opened (and the
// session's lock taken) at its first record. s.mu is held.
func (s *Session) journalLocked() (*store.Journal, error) {
	if s.journal != nil && s.journalID == s.id {
		return s.journal, nil
	}
	if err := s.holdLockLocked(); err != nil {
		return nil, err
	}
	j, err := store.OpenJournal(store.Dir(s.root), string(s.id), s.baseSeq, s.storage)
	if err != nil {
		return nil, err
	}
	s.journal.Close()
	s.journal, s.journalID = j, s.id
	for _, c := range s.order {
		if c.Storage != "" {
			j.SetConvPolicy(string(c.ID), c.Storage)
		}
	}
	// A new session gets its snapshot at once (it is small): it is listed
	// from its first record on, and the journal only ever extends a
	// snapshot.
	if !store.Exists(store.Dir(s.root), string(s.id)) {
		snap := s.snapshotLocked()
		if err := store.Save(store.Dir(s.root), snap); err != nil {
			return nil, err
		}
	}
	return j, nil
}

// recordLocked appends r to the session's journal and waits until it is
// on disk. s.mu is held; the error is for reportSave, after unlocking.
func (s *Session) recordLocked(r store.Record) error {
	return s.writeRecordLocked(r, true)
}

// recordLaterLocked appends r without waiting for the disk: the next
// recordLocked makes it durable too. Only for a record that is followed by
// a durable one before anything it records has an effect (see
// store.Journal.AppendLater), so that one fsync serves a whole model step.
func (s *Session) recordLaterLocked(r store.Record) error {
	return s.writeRecordLocked(r, false)
}

func (s *Session) writeRecordLocked(r store.Record, durable bool) error {
	j, err := s.journalLocked()
	if err != nil {
		return err
	}
	r.Time = s.opts.Now().UTC()
	if durable {
		_, err = j.Append(r)
	} else {
		_, err = j.AppendLater(r)
	}
	return err
}

// convKeyLocked is how the journal names conversation c: "" for the
// root, whose messages are the snapshot's Messages. s.mu is held.
func (s *Session) convKeyLocked(c *Conversation) string {
	if c == s.rootConv {
		return ""
	}
	return string(c.ID)
}

// reportSave tells the user a record could not be written; the session
// goes on.
func (s *Session) reportSave(err error) {
	if err == nil {
		return
	}
	text := "session not saved: " + err.Error()
	s.mu.Lock()
	told := s.saveErr == text
	s.saveErr = text
	s.mu.Unlock()
	if !told { // the same failure at every save is told once
		s.emit(event.Event{Kind: event.Error, Text: text})
	}
}

// appendMessage adds m to c's history and, durably, to the journal.
func (s *Session) appendMessage(c *Conversation, m llm.Message) {
	s.addMessage(c, m, true)
}

// appendCalls adds an assistant message that asks for tool calls without
// waiting for the disk: before any of its calls can change anything, a
// durable record follows it (the start marker of a call that writes, or
// the result of a read-only one), and its fsync covers both.
func (s *Session) appendCalls(c *Conversation, m llm.Message) {
	s.addMessage(c, m, false)
}

// appendQuietResult adds the result of a call that changed nothing (a
// read tool, a command proven read-only, a call refused before it ran)
// without waiting for the disk. It is in the file at once, so a crash of
// the host loses nothing; a crash of the machine may lose it until the
// next durable record (a writing call's start marker, the turn's answer
// or end, Close), and what it loses is only read-only steps, which resume
// asks the model again and which are harmless to run again. So a turn of
// read-only steps costs one fsync at its boundaries, not one per step.
func (s *Session) appendQuietResult(c *Conversation, m llm.Message) {
	s.addMessage(c, m, false)
}

func (s *Session) addMessage(c *Conversation, m llm.Message, durable bool) {
	s.mu.Lock()
	// Recorded first: a new session's first snapshot, written when its
	// journal opens, must not hold the message too.
	err := s.writeRecordLocked(store.Record{Kind: store.KindMessage, Conv: s.convKeyLocked(c), Msg: &m}, durable)
	c.record(m, s.opts.Now())
	s.mu.Unlock()
	s.reportSave(err)
}

// agedTurnLocked is turn i as its record may hold it now (store.AgedTurn)
// under its conversation's policy. s.mu is held.
func (s *Session) agedTurnLocked(i int) store.Turn {
	return store.AgedTurn(s.turnStorageLocked(s.turns[i]), s.opts.Config.StorageTTL(), s.opts.Now(), s.turns[i])
}

// turnStorageLocked is the storage policy of turn t's conversation (the
// session's when it is gone). s.mu is held.
func (s *Session) turnStorageLocked(t store.Turn) store.Policy {
	if c := s.convs[ConversationID(t.Conv)]; t.Conv != "" && c != nil {
		return store.Narrower(s.storage, c.Storage)
	}
	return s.storage
}

// recordTurn journals turn i as it is now.
func (s *Session) recordTurn(i int) {
	s.mu.Lock()
	var err error
	if i >= 0 && i < len(s.turns) {
		turn := s.agedTurnLocked(i)
		err = s.recordLocked(store.Record{Kind: store.KindTurn, Turn: &turn})
	}
	s.mu.Unlock()
	s.reportSave(err)
}

// snapshotNow writes the session's snapshot at the end of a task, when
// the session is on disk (every task changes its conversation's metrics),
// and waits until it is durable; the journal records it holds are then
// dropped.
func (s *Session) snapshotNow() {
	s.mu.Lock()
	open := s.journal != nil && s.journalID == s.id
	s.mu.Unlock()
	if open {
		s.save()
	}
	s.saver.sync()
}

// closeJournal closes the journal of the session being left. s.mu is held.
func (s *Session) closeJournalLocked() {
	s.journal.Close()
	s.journal, s.journalID, s.baseSeq = nil, "", 0
}

// expireStored runs the ttl cleanup pass over the workspace's sessions.
func (s *Session) expireStored() {
	if _, err := store.Expire(store.Dir(s.root), s.opts.Now()); err != nil {
		s.emit(event.Event{Kind: event.Error, Text: "storage cleanup: " + err.Error()})
	}
}
