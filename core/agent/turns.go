package agent

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/gitsnap"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/store"
	"github.com/coder-nvim/coder-nvim/core/text"
	"github.com/coder-nvim/coder-nvim/core/tools"
)

// turnSnaps is a task's snapshot state.
type turnSnaps struct {
	// start takes the turn's first snapshot in the background, once:
	// when something of the turn is about to write or run (awaitBefore),
	// or as soon as the model's answer begins a call that edits files
	// (prefetchBefore), to overlap with the rest of the answer. A turn
	// that only reads or answers never snapshots.
	start   func()
	started atomic.Bool
	before  chan struct{} // closed once the started snapshot is taken (or failed)
	// stopBefore cancels the first snapshot: a turn that ends without
	// having written or run anything does not wait for it.
	stopBefore context.CancelFunc
	// acted is set when something of the turn is about to write or run;
	// a turn that never acts has nothing to undo.
	acted atomic.Bool
	// clean is the snapshot taken after the turn's last command when
	// nothing of the turn wrote since: it can serve as the turn's end.
	clean string
	// freshAt is when the first snapshot was started for the call about
	// to run, zero once anything ran: until then that snapshot is also
	// the workspace just before the call.
	freshAt time.Time
	// steps counts the model calls of the whole user turn, every task of
	// its chain (hand-overs included): max_steps bounds them all.
	steps atomic.Int64
}

// beginTurn records a user turn; where git can, the first thing of the
// turn that writes or runs snapshots the workspace so /undo can take the
// turn back. Model turns are tracked: the files their own tool calls
// change are listed, so /undo spares what other sessions and the user
// changed meanwhile. A ! command is its own single command: everything
// between its snapshots is its doing. start is the 1-based position of the
// turn's first message in its conversation (/rewind cuts before it).
func (s *Session) beginTurn(ctx context.Context, t *task, input string, start int) {
	bang := strings.HasPrefix(input, "!")
	turn := store.Turn{Task: string(t.id), Input: input, Started: s.opts.Now(), Tracked: !bang, Start: start}
	s.mu.Lock()
	turn.Conv = s.convKeyLocked(t.conv)
	s.turns = append(s.turns, turn)
	i := len(s.turns) - 1
	s.mu.Unlock()
	done := make(chan struct{})
	t.snaps.before = done
	ctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	t.snaps.stopBefore = stop
	t.snaps.start = sync.OnceFunc(func() {
		if ctx.Err() != nil { // the turn ended first
			close(done)
			return
		}
		t.snaps.started.Store(true)
		s.bg.Add(1)
		go func() {
			defer s.bg.Done()
			defer close(done)
			defer stop()
			if s.git.Available(ctx) != nil {
				return
			}
			snap, err := s.snapshot(ctx, "coder-nvim: before "+string(t.id), gitsnap.Options{})
			if err != nil {
				if ctx.Err() == nil {
					s.notice(t, "workspace snapshot failed, /undo will not cover this turn: "+err.Error())
				}
				return
			}
			s.mu.Lock()
			var rerr error
			if i < len(s.turns) && s.turns[i].Task == string(t.id) {
				s.turns[i].Snapshot = snap
				turn := s.agedTurnLocked(i)
				rerr = s.recordLocked(store.Record{Kind: store.KindTurn, Turn: &turn})
			}
			s.mu.Unlock()
			s.reportSave(rerr)
		}()
	})
	if bang {
		s.awaitBefore(t) // the command runs at once
	}
}

// prefetchBefore starts the turn's first snapshot when the model's answer
// begins a call of the named tool and that tool edits files: the snapshot
// then runs while the call's arguments stream, not after them.
func (s *Session) prefetchBefore(t *task, name string) {
	if tool := s.lookupTool(name); tool != nil && tool.Kind() == tools.KindEdit && t.snaps.start != nil {
		t.snaps.start()
	}
}

// awaitBefore starts the turn's first snapshot unless it is under way and
// waits until it is taken (or failed); it is called before anything of the
// turn writes or runs.
func (s *Session) awaitBefore(t *task) {
	t.snaps.acted.Store(true)
	if t.snaps.start == nil {
		return
	}
	fresh, at := !t.snaps.started.Load(), s.opts.Now()
	t.snaps.start()
	<-t.snaps.before
	if fresh {
		t.snaps.freshAt = at
	}
}

// snapshot snapshots the workspace with the session's size limit.
func (s *Session) snapshot(ctx context.Context, message string, opts gitsnap.Options) (string, error) {
	opts.MaxFileSize = int64(s.opts.Config.Undo.MaxFileMB) << 20
	return s.git.Snapshot(ctx, message, opts)
}

// currentTurn is the index of t's turn in s.turns when it has a snapshot
// to build on, else -1. Hand-over targets and continuations belong to the
// turn of the user input that started their chain. s.mu must be held.
func (s *Session) currentTurnLocked(t *task) int {
	i := len(s.turns) - 1
	if i >= 0 && s.turns[i].Task == string(t.turnID()) && s.turns[i].Snapshot != "" && s.turns[i].After == "" {
		return i
	}
	return -1
}

// endTurn snapshots the workspace after the turn. It runs also when the
// turn was interrupted, so /undo covers whatever it changed.
func (s *Session) endTurn(t *task) {
	if s.sched.continues(t) {
		return // the chain goes on: its last task ends the turn
	}
	if t.snaps.before != nil && !t.snaps.acted.Load() {
		// Nothing of the turn wrote or ran, so there is nothing to undo:
		// the turn takes no second snapshot, and a first one begun for an
		// edit that never came is stopped where it is, or dropped once it
		// is done.
		t.snaps.stopBefore()
		if !t.snaps.started.Load() {
			return
		}
		s.bg.Add(1)
		go func() {
			defer s.bg.Done()
			<-t.snaps.before
			s.dropBefore(t)
		}()
		return
	}
	s.awaitBefore(t)
	s.mu.Lock()
	i := s.currentTurnLocked(t)
	s.mu.Unlock()
	if i < 0 {
		return
	}
	// Nothing of the turn wrote since its last command's snapshot: that
	// one is its end. A file someone else changes later is not in it,
	// so it is neither undone nor named.
	after := t.snaps.clean
	if after == "" {
		var err error
		after, err = s.snapshot(context.Background(), "coder-nvim: after "+string(t.turnID()), gitsnap.Options{})
		if err != nil {
			s.notice(t, "workspace snapshot failed, /undo will not cover this turn: "+err.Error())
			return
		}
	}
	s.mu.Lock()
	s.turns[i].After = after
	t.changed = s.turnChangesLocked(i)
	turn := s.turns[i]
	s.mu.Unlock()
	t.changed = s.reviewedChanges(turn, t.changed)
	s.forgetOldTurns(t)
	s.recordTurn(i) // the task's end writes the snapshot
}

// turnChangesLocked is what turn i changed, for the event that ends it:
// nil when its own calls wrote nothing (or an older session's turn does
// not say) or it is not one of the root's live turns. s.mu is held.
func (s *Session) turnChangesLocked(i int) *event.TurnChanges {
	turn := s.turns[i]
	if !turn.Tracked || len(turn.Own) == 0 {
		return nil
	}
	n := slices.Index(s.liveTurnsLocked(), i) + 1
	if n == 0 {
		return nil
	}
	c := &event.TurnChanges{N: n}
	for _, o := range turn.Own {
		c.Paths = append(c.Paths, o.Path)
	}
	slices.Sort(c.Paths)
	c.Paths = slices.Compact(c.Paths)
	return c
}

// dropBefore forgets the first snapshot of t's turn, which did nothing.
func (s *Session) dropBefore(t *task) {
	s.mu.Lock()
	var id string
	for i := len(s.turns) - 1; i >= 0; i-- { // later turns may have begun
		if s.turns[i].Task == string(t.turnID()) && s.turns[i].After == "" {
			id, s.turns[i].Snapshot = s.turns[i].Snapshot, ""
			break
		}
	}
	s.mu.Unlock()
	if id != "" {
		s.git.Forget(context.Background(), id) //nolint:errcheck // best effort, like pruning
	}
}

// forgetOldTurns deletes the snapshot refs of the turns beyond
// undo.keep_turns, newest kept, so .git does not grow without end; those
// turns can no longer be undone.
func (s *Session) forgetOldTurns(t *task) {
	keep := s.opts.Config.Undo.KeepTurns
	var ids []string
	s.mu.Lock()
	kept := 0
	for i := len(s.turns) - 1; i >= 0; i-- {
		turn := &s.turns[i]
		if turn.Snapshot == "" {
			continue
		}
		if kept++; kept <= keep {
			continue
		}
		ids = append(ids, turn.Snapshot)
		if turn.After != "" {
			ids = append(ids, turn.After)
		}
		ids = append(ids, turn.Snaps...)
		turn.Snapshot, turn.After, turn.Snaps, turn.Own = "", "", nil, nil
	}
	s.mu.Unlock()
	if err := s.git.Forget(context.Background(), ids...); err != nil {
		s.notice(t, "could not delete old snapshots: "+err.Error())
	}
}

// runTracked runs a prepared call and records in the turn what it changed:
// the files a file tool wrote, or for a command whatever changed between
// snapshots taken just before and after it (other sessions writing at that
// very moment cannot be told apart).
// A command proven read-only (readOnly) changes nothing and takes no
// snapshot. The caller has waited for the turn's first snapshot
// (awaitBefore) when the call writes or runs anything else.
func (s *Session) runTracked(ctx context.Context, t *task, inv *tools.Invocation, readOnly bool) tools.Result {
	if inv.Kind == tools.KindExecute && readOnly {
		return inv.Run(ctx)
	}
	if inv.Kind == tools.KindExecute {
		var res tools.Result
		s.trackCommand(ctx, t, func() { res = inv.Run(ctx) })
		return res
	}
	if len(inv.Changes) == 0 {
		return inv.Run(ctx)
	}
	t.snaps.freshAt = time.Time{}
	end := s.activity.Begin(string(s.ID())) // other sessions' commands see this write
	res := inv.Run(ctx)
	end()
	if res.IsError {
		return res
	}
	t.snaps.clean = ""
	var paths []string
	for _, c := range inv.Changes {
		paths = append(paths, c.Path)
		if c.MoveTo != "" {
			paths = append(paths, c.MoveTo)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if i := s.currentTurnLocked(t); i >= 0 {
		s.ownLocked(i, s.baseLocked(i), paths)
	}
	return res
}

// trackCommand runs a shell command between two snapshots and records the
// files it changed.
func (s *Session) trackCommand(ctx context.Context, t *task, run func()) {
	s.awaitBefore(t)
	s.mu.Lock()
	i := s.currentTurnLocked(t)
	var prevBase string
	if i >= 0 {
		prevBase = s.baseLocked(i)
	}
	s.mu.Unlock()
	freshAt := t.snaps.freshAt
	t.snaps.freshAt = time.Time{}
	if i < 0 || !s.turnTracked(i) {
		run()
		return
	}
	t.snaps.clean = ""
	from := s.opts.Now()
	end := s.activity.Begin(string(s.ID()))
	pre, err := prevBase, error(nil)
	if freshAt.IsZero() {
		// Reuse: a command after nothing changed shares the snapshot
		// before it.
		pre, err = s.snapshot(ctx, "coder-nvim: before a command of "+string(t.id), gitsnap.Options{Reuse: prevBase})
	} else {
		// The turn's first snapshot was taken for this command: it is
		// the workspace just before it. What others did since it began
		// counts as overlapping.
		from = freshAt
	}
	if err != nil {
		if ctx.Err() == nil {
			s.notice(t, "workspace snapshot failed, /undo will not cover this command: "+err.Error())
		}
		run() // interrupted: a command does not start on a cancelled context
		end()
		return
	}
	run()
	ctx = context.Background() // an interrupted command still changed what it changed
	post, err := s.snapshot(ctx, "coder-nvim: after a command of "+string(t.id), gitsnap.Options{Reuse: pre})
	end()
	shared := err == nil && s.activity.Overlapped(string(s.ID()), from, s.opts.Now())
	var changed []string
	if err == nil {
		changed, err = s.git.Changed(ctx, pre, post)
	}
	if err != nil {
		s.notice(t, "workspace snapshot failed, /undo will not cover this command: "+err.Error())
		if pre != prevBase { // a shared snapshot stays the turn's
			s.git.Forget(ctx, pre) //nolint:errcheck // best effort
		}
		return
	}
	if shared && len(changed) > 0 {
		// Another session changed files while this command ran: whose
		// change is whose cannot be told, so none is claimed; /undo lists
		// those files and leaves them alone.
		s.notice(t, "another session changed files while this command ran: /undo will list, not revert, what changed during it")
		changed = nil
	}
	t.snaps.clean = post
	s.mu.Lock()
	// Consecutive commands share a snapshot when nothing changed
	// between them: each id is listed once.
	for _, id := range []string{pre, post} {
		if id != s.baseLocked(i) {
			s.turns[i].Snaps = append(s.turns[i].Snaps, id)
		}
	}
	s.ownLocked(i, pre, changed)
	unused := s.unusedLocked(i, pre, prevBase)
	s.mu.Unlock()
	// Snapshots no file needs are dropped at once; post stays as the base
	// of the turn's next file writes.
	s.git.Forget(ctx, unused...) //nolint:errcheck // pruned with the turn anyway
}

func (s *Session) turnTracked(i int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.turns[i].Tracked
}

// baseLocked is the turn's latest snapshot: what a file write is undone to.
func (s *Session) baseLocked(i int) string {
	if n := len(s.turns[i].Snaps); n > 0 {
		return s.turns[i].Snaps[n-1]
	}
	return s.turns[i].Snapshot
}

// ownLocked records paths as changed by turn i, each with base unless an
// earlier change of the turn already claimed it.
func (s *Session) ownLocked(i int, base string, paths []string) {
	turn := &s.turns[i]
	for _, p := range paths {
		if !slices.ContainsFunc(turn.Own, func(o store.OwnedFile) bool { return o.Path == p }) {
			turn.Own = append(turn.Own, store.OwnedFile{Path: p, Base: base})
		}
	}
}

// unusedLocked removes from turn i's Snaps the candidates no owned file
// and no later write can need, and returns them.
func (s *Session) unusedLocked(i int, candidates ...string) []string {
	turn := &s.turns[i]
	var unused []string
	for _, id := range candidates {
		if id == "" || id == turn.Snapshot || id == s.baseLocked(i) || slices.Contains(unused, id) ||
			slices.ContainsFunc(turn.Own, func(o store.OwnedFile) bool { return o.Base == id }) {
			continue
		}
		if j := slices.Index(turn.Snaps, id); j >= 0 {
			turn.Snaps = slices.Delete(slices.Clone(turn.Snaps), j, j+1)
			unused = append(unused, id)
		}
	}
	return unused
}

// Undo takes back the file changes of the most recent turn not yet
// undone that changed files; run again, it takes back the turn before.
func (c slash) Undo(ctx context.Context, arg string) (string, error) {
	s, t := c.s, c.t
	if err := s.git.Available(ctx); err != nil {
		return "", fmt.Errorf("/undo has no snapshots here: %w", err)
	}
	switch arg {
	case "":
	case "others":
		return s.undoOthers(ctx, t)
	default:
		return "", fmt.Errorf("usage: /undo, or /undo others after an /undo that left files changed by others")
	}
	for {
		s.mu.Lock()
		i := len(s.turns) - 1
		for i >= 0 && (s.turns[i].Undone || s.turns[i].Snapshot == "" || s.turns[i].After == "") {
			i--
		}
		if i < 0 {
			s.mu.Unlock()
			return "", fmt.Errorf("nothing to undo: no earlier turn of this session changed files")
		}
		turn := s.turns[i]
		s.mu.Unlock()

		var rep gitsnap.Report
		var err error
		if turn.Tracked {
			own := make([]gitsnap.Owned, len(turn.Own))
			for j, o := range turn.Own {
				own[j] = gitsnap.Owned{Path: o.Path, Base: o.Base}
			}
			rep, err = s.git.UndoOwn(ctx, turn.Snapshot, turn.After, own)
		} else {
			rep, err = s.git.Undo(ctx, turn.Snapshot, turn.After)
		}
		if err != nil {
			return "", fmt.Errorf("/undo failed: %w", err)
		}
		s.mu.Lock()
		s.turns[i].Undone = true
		s.mu.Unlock()
		s.recordTurn(i)
		if len(rep.Restored)+len(rep.Removed)+len(rep.Skipped)+len(rep.TooLarge)+len(rep.Others) == 0 {
			continue // that turn changed nothing itself: undo the one before
		}
		changed := append(append([]string(nil), rep.Restored...), rep.Removed...)
		if len(changed) > 0 {
			t.emit(event.Event{Kind: event.FilesChanged, Paths: changed})
		}
		// The model must not believe its old edits still stand.
		note := fmt.Sprintf("[undo] The user undid the file changes of the turn %q.\n%s\nThose changes no longer exist; re-read files before relying on them.", text.Truncate(turn.Input, 200), rep.String())
		s.appendMessage(t.conv, llm.Message{Role: llm.RoleUser, Content: note})
		out := fmt.Sprintf("undid the turn %q:\n%s", text.Truncate(text.FirstLine(turn.Input), 80), strings.TrimRight(rep.String(), "\n"))
		if len(rep.TooLarge) > 0 {
			out += fmt.Sprintf("\nuntracked files over %d MiB are not snapshotted (undo.max_file_mb)", s.opts.Config.Undo.MaxFileMB)
		}
		s.mu.Lock()
		s.undoneOthers = nil
		if len(rep.Others) > 0 {
			s.undoneOthers = []othersOfTurn{{turn: i, paths: rep.Others}}
		}
		s.mu.Unlock()
		if len(rep.Others) > 0 {
			out += "\n/undo others reverts those too, to how they were before the turn"
			t.emit(event.Event{Kind: event.UndoOthers, Paths: rep.Others})
		}
		return out, nil
	}
}

// othersOfTurn are the files the last /undo left alone: changed during
// the turn, but not by it.
type othersOfTurn struct {
	turn  int
	paths []string
}

// undoOthers reverts, on the user's word, the files the last /undo (or
// /rewind) left alone to their state before their turn (same checks as
// /undo: a file edited since is skipped and named).
func (s *Session) undoOthers(ctx context.Context, t *task) (string, error) {
	s.mu.Lock()
	pending := s.undoneOthers
	s.undoneOthers = nil
	var turns []store.Turn
	for _, o := range pending {
		if o.turn < len(s.turns) {
			turns = append(turns, s.turns[o.turn])
		}
	}
	s.mu.Unlock()
	if len(turns) == 0 || len(turns) != len(pending) {
		return "", errors.New("nothing to revert: the last /undo left no files changed by others")
	}
	var out []string
	for k, turn := range turns { // newest first
		if turn.Snapshot == "" {
			continue
		}
		own := make([]gitsnap.Owned, len(pending[k].paths))
		for j, p := range pending[k].paths {
			own[j] = gitsnap.Owned{Path: p, Base: turn.Snapshot}
		}
		rep, err := s.git.UndoOwn(ctx, turn.Snapshot, turn.After, own)
		if err != nil {
			return "", fmt.Errorf("/undo others failed: %w", err)
		}
		if changed := append(append([]string(nil), rep.Restored...), rep.Removed...); len(changed) > 0 {
			t.emit(event.Event{Kind: event.FilesChanged, Paths: changed})
		}
		note := fmt.Sprintf("[undo] The user also reverted files changed by others during the turn %q.\n%s", text.Truncate(turn.Input, 200), rep.String())
		s.appendMessage(t.conv, llm.Message{Role: llm.RoleUser, Content: note})
		out = append(out, strings.TrimRight(rep.String(), "\n"))
	}
	return "reverted the files changed by others during the turn:\n" + strings.Join(out, "\n"), nil
}

// Diff summarises the workspace's changes; the full diff goes in the
// event's detail for front ends that expand it.
func (c slash) Diff(ctx context.Context, _ string) (string, error) {
	s, t := c.s, c.t
	if err := s.git.Available(ctx); err != nil {
		return "", fmt.Errorf("/diff has no snapshots here: %w", err)
	}
	ch, err := s.git.Diff(ctx)
	if err != nil {
		return "", fmt.Errorf("/diff failed: %w", err)
	}
	if len(ch.Files) == 0 {
		return "no changes in the workspace", nil
	}
	t.emit(event.Event{Kind: event.CommandOutput, Text: ch.Summary(), Detail: ch.Patch})
	s.recordCommand(t.conv, "/diff", ch.Summary()) // the summary, as the transcript shows it
	return "", nil
}
