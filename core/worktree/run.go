package worktree

import (
	"context"
	"fmt"

	"github.com/coder-nvim/coder-nvim/core/agent"
	"github.com/coder-nvim/coder-nvim/core/event"
)

// working counts the tasks at work (against max_parallel). m.mu is held.
func (m *Manager) workingLocked() int {
	n := 0
	for _, l := range m.live {
		if l.working {
			n++
		}
	}
	return n
}

// schedule starts queued tasks while slots are free.
func (m *Manager) schedule(modeFromUser bool) {
	for {
		m.mu.Lock()
		if m.closing || len(m.queue) == 0 || m.workingLocked() >= m.opts.MaxParallel {
			m.mu.Unlock()
			return
		}
		n := m.queue[0]
		m.queue = m.queue[1:]
		l := m.live[n]
		l.working = true
		m.mu.Unlock()
		m.bg.Add(1)
		go func() {
			defer m.bg.Done()
			if _, err := m.open(m.life, l, modeFromUser); err != nil {
				m.finish(l, Failed, err.Error())
			}
		}()
	}
}

// open opens (or resumes) l's Session and submits its pending input.
func (m *Manager) open(ctx context.Context, l *live, modeFromUser bool) (*agent.Session, error) {
	m.mu.Lock()
	rec := l.rec
	m.mu.Unlock()
	sess, err := m.opts.Open(ctx, OpenArgs{N: rec.N, Root: rec.Root, Mode: rec.Mode, ModeFromUser: modeFromUser, Resume: rec.Session,
		OnEvent: func(ev event.Event) { m.event(l, ev) }})
	if err != nil {
		return nil, fmt.Errorf("task %d: open its session: %w", rec.N, err)
	}
	m.mu.Lock()
	if cur := m.live[rec.N]; cur != nil && cur != l && cur.sess != nil {
		// Opened twice at once (two requests for one task): keep one.
		m.mu.Unlock()
		sess.Close()
		return cur.sess, nil
	}
	l.sess, l.root = sess, sess.RootConversation()
	l.rec.Session = string(sess.ID())
	input := l.pending
	l.pending = ""
	if input != "" {
		l.rec.State = Running
		if l.rec.Started.IsZero() {
			l.rec.Started = m.opts.Now()
		}
	}
	m.live[rec.N] = l
	rec = l.rec
	m.mu.Unlock()
	m.saveRecord(rec)
	if rec.Note != "" {
		sess.TellWithNextInput(rec.Note) // a merge's note this host has not told yet
	}
	if input != "" {
		if _, err := sess.Submit(input); err != nil {
			return sess, fmt.Errorf("task %d: %w", rec.N, err)
		}
	}
	return sess, nil
}

// event follows a task through its Session's events and passes them on.
func (m *Manager) event(l *live, ev event.Event) {
	m.track(l, ev)
	m.opts.OnEvent(l.rec.N, ev)
}

// track updates the task's state from an event of its root conversation.
func (m *Manager) track(l *live, ev event.Event) {
	m.mu.Lock()
	if m.closing || (ev.Conversation != "" && l.root != "" && ev.Conversation != string(l.root)) {
		m.mu.Unlock()
		return
	}
	state, told := l.rec.State, false
	switch ev.Kind {
	case event.TaskStarted:
		state = Running
		if !l.working {
			l.working = true // the user talks to it: it is at work
		}
		told = l.rec.Note != ""
		l.rec.Note = "" // told with this turn's input
	case event.ApprovalRequested:
		l.asks++
		state = Waiting
	case event.ApprovalResolved:
		l.asks = max(0, l.asks-1)
		if l.asks == 0 && state == Waiting {
			state = Running
		}
	case event.TaskComplete:
		m.mu.Unlock()
		m.finish(l, Done, "")
		return
	case event.TurnAborted:
		m.mu.Unlock()
		switch ev.Reason {
		case event.ReasonInterrupted:
			m.finish(l, Stopped, "")
		case event.ReasonError:
			m.finish(l, Failed, l.rec.Error)
		}
		return
	case event.Error:
		l.rec.Error = ev.Text
	}
	changed := state != l.rec.State || told
	l.rec.State = state
	if state == Running && l.rec.Started.IsZero() {
		l.rec.Started = m.opts.Now()
	}
	rec := l.rec
	m.mu.Unlock()
	if changed {
		m.saveRecord(rec)
	}
}

// finish ends the task's work in state (why: a failure's reason). The
// record is saved, and the front end told, once what the task did is
// counted (in the background: git reads the worktree); then the next
// queued task starts.
func (m *Manager) finish(l *live, state State, why string) {
	m.mu.Lock()
	l.rec.State, l.asks, l.working = state, 0, false
	if state != Failed {
		l.rec.Error = ""
	} else if why != "" {
		l.rec.Error = why
	}
	l.rec.Ended = m.opts.Now()
	sess := l.sess
	m.mu.Unlock()
	m.bg.Add(1)
	go func() {
		defer m.bg.Done()
		m.count(l, sess)
		m.schedule(false)
	}()
}

// count refreshes the task's turns, tokens, cost and changed files.
func (m *Manager) count(l *live, sess *agent.Session) {
	m.mu.Lock()
	rec := l.rec
	m.mu.Unlock()
	files, added, removed, err := changes(m.life, rec.Path, m.repo.prefix, rec.Base)
	m.mu.Lock()
	if sess != nil {
		if st, serr := sess.ConversationStats(""); serr == nil {
			l.rec.Turns, l.rec.TokensIn, l.rec.TokensOut, l.rec.Cost = st.Tasks, st.TokensIn, st.TokensOut, st.Cost
		}
	}
	if err == nil {
		l.rec.Files, l.rec.Added, l.rec.Removed = files, added, removed
	}
	rec = l.rec
	m.mu.Unlock()
	m.saveRecord(rec)
}

// saveRecord writes the record and tells the front end.
func (m *Manager) saveRecord(rec Record) {
	if err := m.recs.save(rec); err != nil {
		rec.Error = err.Error()
	}
	m.opts.OnChange(rec)
}
