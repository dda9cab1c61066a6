package agent

import (
	"errors"
	"github.com/coder-nvim/coder-nvim/core/reviewnotes"
	"slices"
	"strings"

	"github.com/coder-nvim/coder-nvim/core/agent/compact"
	"github.com/coder-nvim/coder-nvim/core/agent/toolcalls"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/store"
	"github.com/coder-nvim/coder-nvim/core/tools"
)

// A session on disk: loading a saved one, and the snapshot the saver
// writes.

// load makes the session the saved session id, locked to this process.
func (s *Session) load(id SessionID) error {
	dir, err := store.WorkspaceDir(s.root)
	if err != nil {
		return err
	}
	// Locked before it is read: what is read is what this process owns.
	l, err := s.lockFor(string(id))
	if err != nil {
		return err
	}
	// What compacted views summarise stays on disk (seed 004 §4.1), when
	// the text is stored whole (not under ttl, headers_only or none).
	floor, _ := store.ParsePolicy(s.opts.Config.Storage.Policy) // checked by newSession
	snap, err := store.ResumeBounded(dir, string(id), floor)
	if err != nil {
		l.Release()
		return err
	}
	// A none session kept no messages, only its turns' /undo snapshots:
	// it resumes empty, so /undo still works after a restart.
	nothingStored := errors.Is(snap.Stored(), store.ErrNothingStored)
	s.reset(SessionID(snap.ID))
	if l != nil {
		s.setLock(l)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.created = snap.CreatedAt
	s.baseSeq = snap.JournalSeq
	// A session never stores more than it was started with, nor text
	// once its ttl has run out.
	s.storage = store.Narrower(s.storage, snap.Storage)
	if snap.Degraded {
		s.storage = store.Narrower(s.storage, store.PolicyHeaders)
	}
	if snap.Model != "" {
		s.model = snap.Model
	}
	s.mode, s.policy.Preset, s.resumeNote = s.resumeAuthority(snap.ID, snap.Mode, snap.Preset)
	if nothingStored {
		s.resumeNote = strings.TrimSpace(s.resumeNote + "\nthis session was stored under storage policy \"none\": no messages were kept, so it resumes empty; /undo of its turns still works")
	}
	msgs, times := snap.Messages, snap.MessageTimes
	if n := store.Head(msgs); n > 0 {
		msgs = msgs[n:] // the system and AGENTS.md messages: rebuilt for every request
		if len(times) == len(snap.Messages) {
			times = times[n:]
		}
	}
	started := map[string]bool{}
	for _, id := range snap.Started {
		started[id] = true
	}
	root := s.rootConv
	if snap.Root != nil {
		root = restoreConversation(*snap.Root, started, nil)
		root.agents = s.agentsFor(snap.Root.NoAgentsMD, snap.Root.AgentsMD)
		s.setRootLocked(root)
	}
	root.history = toolcalls.Repair(msgs, started)
	root.base, root.skipped = 0, store.Skipped{}
	if k := snap.Skipped[""]; k != nil {
		root.base, root.skipped = k.N, *k
	}
	root.times = nil
	if len(times) == len(root.history) {
		root.times = times
	}
	root.todos = snap.Todos
	root.commands = snap.Commands
	root.sentTools = snap.Tools
	root.ctxTokens = compact.EstimateTokens(root.history)
	for _, sc := range snap.Conversations {
		c := restoreConversation(sc, started, snap.Skipped)
		c.agents = s.agentsFor(sc.NoAgentsMD, sc.AgentsMD)
		s.convs[c.ID] = c
		s.order = append(s.order, c)
	}
	for _, v := range snap.Views {
		c := root
		if v.Conv != "" {
			c = s.convs[ConversationID(v.Conv)]
		}
		if c != nil && v.Upto <= c.base+len(c.history) && v.Upto >= c.base {
			c.view = compact.NewView(c.history, c.base, c.skipped.LastUsers, v.Upto, v.Summary)
			prefix, tail := c.sentLocked()
			c.ctxTokens = compact.EstimateTokens(prefix) + compact.EstimateTokens(tail)
		}
	}
	s.turns = snap.Turns
	s.abandoned = snap.Abandoned
	told := slices.Clone(root.history)
	for _, c := range s.order {
		told = append(told, c.history...)
	}
	s.reviewNotes.Reset(reviewnotes.Pending(s.turns, root.base, told))
	return nil
}

// save queues the session snapshot for writing; a failure is reported,
// never fatal.
func (s *Session) save() {
	s.mu.Lock()
	if err := s.holdLockLocked(); err != nil {
		s.mu.Unlock()
		s.reportSave(err)
		return
	}
	snap := s.snapshotLocked()
	j := s.journal
	if s.journalID != s.id {
		j = nil
	}
	s.mu.Unlock()
	s.saver.put(snap, j)
}

// snapshotLocked is the session as its snapshot holds it, with the
// journal records it includes. s.mu is held.
func (s *Session) snapshotLocked() *store.Snapshot {
	root := s.rootConv.saved()
	snap := &store.Snapshot{
		ID:        string(s.id),
		CreatedAt: s.created,
		UpdatedAt: s.opts.Now(),
		Model:     s.model,
		Mode:      string(s.mode),
		Preset:    string(s.policy.Preset),
		Cwd:       s.root,
		Messages:  append([]llm.Message{{Role: llm.RoleSystem, Content: s.systemPromptLocked(s.rootConv)}}, root.Messages...),
		// The system message is written anew each time.
		MessageTimes: append([]int64{s.opts.Now().UnixMilli()}, root.MessageTimes...),
		Tools:        s.rootConv.tools(),
		Todos:        root.Todos,
		Commands:     root.Commands,
		// A copy: turns are updated in place (After, Undone) while the
		// saver encodes the snapshot on its own goroutine.
		Turns:      append([]store.Turn(nil), s.turns...),
		Abandoned:  s.abandoned, // only ever appended to
		Started:    s.startedLocked(),
		Storage:    s.storage,
		StorageTTL: s.opts.Config.Storage.TTL,
		Layout:     store.LayoutBounded,
	}
	if s.journalID == s.id {
		snap.JournalSeq = s.journal.Seq()
	}
	if snap.Tools == nil {
		snap.Tools = tools.Specs(s.offeredToolsLocked(s.rootConv))
	}
	// In Messages, Todos, MessageTimes and Tools.
	root.Messages, root.Todos, root.MessageTimes, root.System, root.SentTools, root.Commands = nil, nil, nil, "", nil, nil
	for _, c := range s.order {
		snap.TTLConvs = snap.TTLConvs || c.Storage == store.PolicyTTL
		c.mu.Lock()
		if v := c.view; v != nil {
			snap.Views = append(snap.Views, store.View{Conv: s.convKeyLocked(c), Upto: v.Upto, Summary: v.Summary})
		}
		if c.base > 0 {
			// On disk only: the saver copies them from the file it replaces.
			if snap.Skipped == nil {
				snap.Skipped = map[string]*store.Skipped{}
			}
			snap.Skipped[s.convKeyLocked(c)] = &store.Skipped{N: c.base}
		}
		c.mu.Unlock()
	}
	snap.Root = &root
	for _, c := range s.order[1:] {
		snap.Conversations = append(snap.Conversations, c.saved())
	}
	return snap
}
