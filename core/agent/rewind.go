package agent

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/coder-nvim/coder-nvim/core/agent/compact"
	"github.com/coder-nvim/coder-nvim/core/agent/todo"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/gitsnap"
	"github.com/coder-nvim/coder-nvim/core/store"
	"github.com/coder-nvim/coder-nvim/core/text"
)

// /rewind: the root conversation's user turns, and going back to just
// before one of them. Files are taken back turn by turn, newest first,
// with /undo's rules; the conversation is cut before the turn's first
// message, and the cut part is kept on disk as an abandoned branch.

// liveTurnsLocked are the indexes in s.turns of the root conversation's
// turns that no /rewind abandoned, oldest first. s.mu is held.
func (s *Session) liveTurnsLocked() []int {
	var out []int
	for i, t := range s.turns {
		if t.Conv == "" && !t.Rewound {
			out = append(out, i)
		}
	}
	return out
}

// Rewind lists the turns, or with N rewinds to just before turn N.
func (c slash) Rewind(ctx context.Context, arg string) (string, error) {
	if arg == "" {
		return c.s.rewindList(ctx), nil
	}
	n, err := strconv.Atoi(arg)
	if err != nil || n < 1 {
		return "", fmt.Errorf("usage: /rewind lists the turns; /rewind N goes back to just before turn N")
	}
	return c.s.rewindTo(ctx, c.t, n)
}

// RewindTurn is one turn /rewind can go back to.
type RewindTurn struct {
	N       int // what /rewind N takes
	Started time.Time
	First   string // the input's first line, cut
	Files   string // "3 file(s)", "no files", "undone"
}

// RewindTurns lists the root conversation's turns no /rewind abandoned,
// oldest first, for /rewind and pickers.
func (s *Session) RewindTurns(ctx context.Context) []RewindTurn {
	s.mu.Lock()
	live := s.liveTurnsLocked()
	turns := slices.Clone(s.turns)
	s.mu.Unlock()
	out := make([]RewindTurn, 0, len(live))
	for n, i := range live {
		t := turns[i]
		out = append(out, RewindTurn{N: n + 1, Started: t.Started, First: text.Truncate(turnLabel(t.Input), 60), Files: s.turnFiles(ctx, t)})
	}
	return out
}

// Label is the turn as one line of a list.
func (t RewindTurn) Label() string {
	return fmt.Sprintf("%3d  %s  %s  (%s)", t.N, t.Started.Local().Format("15:04:05"), t.First, t.Files)
}

// rewindList is one line per live turn, then the abandoned branches.
func (s *Session) rewindList(ctx context.Context) string {
	var b strings.Builder
	live := s.RewindTurns(ctx)
	if len(live) == 0 {
		b.WriteString("no turns to rewind to\n")
	}
	for _, t := range live {
		b.WriteString(t.Label() + "\n")
	}
	s.mu.Lock()
	turns := slices.Clone(s.turns)
	branches := slices.Clone(s.abandoned)
	s.mu.Unlock()
	for _, br := range branches {
		if br.Conv != "" {
			continue
		}
		var firsts []string
		for _, id := range br.Turns {
			if j := slices.IndexFunc(turns, func(t store.Turn) bool { return t.Task == id }); j >= 0 {
				firsts = append(firsts, fmt.Sprintf("%q", text.Truncate(turnLabel(turns[j].Input), 40)))
			}
		}
		fmt.Fprintf(&b, "abandoned at %s: %d message(s), turns %s\n", br.Time.Local().Format("15:04:05"), len(br.Messages), strings.Join(firsts, ", "))
	}
	b.WriteString("/rewind N takes the files and the conversation back to just before turn N")
	return b.String()
}

// turnFiles says how many files turn t changed.
func (s *Session) turnFiles(ctx context.Context, t store.Turn) string {
	switch {
	case t.Undone:
		return "undone"
	case t.Snapshot == "" || t.After == "":
		return "no files"
	case t.Tracked:
		return fmt.Sprintf("%d file(s)", len(t.Own))
	}
	changed, err := s.git.Changed(ctx, t.Snapshot, t.After)
	if err != nil {
		return "files unknown"
	}
	return fmt.Sprintf("%d file(s)", len(changed))
}

// rewindTo takes the workspace and the root conversation back to just
// before live turn n.
func (s *Session) rewindTo(ctx context.Context, t *task, n int) (string, error) {
	s.mu.Lock()
	root := s.rootConv
	live := s.liveTurnsLocked()
	if n > len(live) {
		s.mu.Unlock()
		return "", fmt.Errorf("no turn %d: this session has %d turn(s) to rewind to (/rewind lists them)", n, len(live))
	}
	first := live[n-1]
	turn := s.turns[first]
	s.mu.Unlock()
	if err := root.rewindable(turn.Start); err != nil {
		return "", err
	}
	rep, err := s.undoFrom(ctx, first)
	if err != nil {
		return "", err
	}
	if err := s.cutRoot(first, turn.Start); err != nil {
		return "", err
	}
	s.mu.Lock()
	s.reviewNotes.Rewind(s.abandoned[len(s.abandoned)-1].Messages, n)
	s.mu.Unlock()
	if changed := append(slices.Clone(rep.Restored), rep.Removed...); len(changed) > 0 {
		t.emit(event.Event{Kind: event.FilesChanged, Paths: changed})
	}
	holds := "no turn"
	switch {
	case n == 2:
		holds = "turn 1"
	case n > 2:
		holds = fmt.Sprintf("turns 1–%d", n-1)
	}
	out := fmt.Sprintf("rewound to just before turn %d %q: the conversation now holds %s; the later turns are kept as an abandoned branch (/rewind lists it)", n, text.Truncate(turnLabel(turn.Input), 60), holds)
	if err := s.git.Available(ctx); err != nil {
		out += "\nfiles were not taken back, there are no snapshots here: " + err.Error()
	}
	if len(rep.Restored)+len(rep.Removed)+len(rep.Skipped)+len(rep.Others)+len(rep.TooLarge) > 0 {
		out += "\n" + strings.TrimRight(rep.String(), "\n")
	}
	if len(rep.Others) > 0 {
		out += "\n/undo others reverts those too, to how they were before their turn"
		t.emit(event.Event{Kind: event.UndoOthers, Paths: rep.Others})
	}
	return out, nil
}

// rewindable says why the conversation cannot be cut before message
// start (1-based), if it cannot.
func (c *Conversation) rewindable(start int) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case start < 1:
		return errors.New("that turn was recorded by an older version, which did not note where it begins: /rewind cannot cut the conversation there")
	case start-1 < c.base, c.view != nil && start-1 < c.view.Upto:
		return errors.New("that turn lies in the part of the conversation /compact summarised: /rewind can go back only to a turn after the summary")
	case start-1 > c.base+len(c.history):
		return errors.New("that turn's messages are not in the conversation")
	}
	return nil
}

// undoFrom takes back the files of turns first… (every conversation's),
// newest first, and reports all of it. The turns it undid are recorded
// as undone; the files others changed are left for /undo others.
func (s *Session) undoFrom(ctx context.Context, first int) (gitsnap.Report, error) {
	all := gitsnap.Report{SkipReasons: map[string]string{}}
	var others []othersOfTurn
	s.mu.Lock()
	last := len(s.turns) - 1
	s.mu.Unlock()
	for i := last; i >= first; i-- {
		s.mu.Lock()
		turn := s.turns[i]
		s.mu.Unlock()
		if turn.Undone || turn.Rewound || turn.After == "" {
			continue
		}
		if turn.Snapshot == "" {
			continue // it changed nothing, or its snapshot is past undo.keep_turns
		}
		if err := s.git.Available(ctx); err != nil {
			return all, fmt.Errorf("/rewind needs a snapshot store to take files back: %w", err)
		}
		rep, err := s.undoTurn(ctx, turn)
		if err != nil {
			return all, fmt.Errorf("/rewind failed while taking back %q (later turns are undone already): %w", text.Truncate(turnLabel(turn.Input), 60), err)
		}
		s.mu.Lock()
		s.turns[i].Undone = true
		s.mu.Unlock()
		s.recordTurn(i)
		all.Restored = append(all.Restored, rep.Restored...)
		all.Removed = append(all.Removed, rep.Removed...)
		all.TooLarge = append(all.TooLarge, rep.TooLarge...)
		for _, p := range rep.Skipped {
			all.Skipped = append(all.Skipped, p)
			all.SkipReasons[p] = rep.SkipReasons[p]
		}
		all.Others = append(all.Others, rep.Others...)
		if len(rep.Others) > 0 {
			others = append(others, othersOfTurn{turn: i, paths: rep.Others})
		}
	}
	s.mu.Lock()
	s.undoneOthers = others
	s.mu.Unlock()
	return all, nil
}

// undoTurn takes back one turn's files as /undo does.
func (s *Session) undoTurn(ctx context.Context, turn store.Turn) (gitsnap.Report, error) {
	if !turn.Tracked {
		return s.git.Undo(ctx, turn.Snapshot, turn.After)
	}
	own := make([]gitsnap.Owned, len(turn.Own))
	for j, o := range turn.Own {
		own[j] = gitsnap.Owned{Path: o.Path, Base: o.Base}
	}
	return s.git.UndoOwn(ctx, turn.Snapshot, turn.After, own)
}

// cutRoot cuts the root conversation before message start (1-based),
// journals the cut part as an abandoned branch (durably, with the change)
// and marks the root's turns from first on as rewound.
func (s *Session) cutRoot(first, start int) error {
	s.mu.Lock()
	unsaved, err := s.cutRootLocked(first, start)
	s.mu.Unlock()
	s.reportSave(unsaved) // the cut is done; a turn's mark was not journaled
	return err
}

// cutRootLocked is cutRoot; unsaved is a turn mark's journal error once
// the cut is done. s.mu is held.
func (s *Session) cutRootLocked(first, start int) (unsaved, err error) {
	c := s.rootConv
	br := store.Branch{Start: start, Time: s.opts.Now()}
	for i := first; i < len(s.turns); i++ {
		if s.turns[i].Conv == "" && !s.turns[i].Rewound {
			br.Turns = append(br.Turns, s.turns[i].Task)
		}
	}
	c.mu.Lock()
	k := start - 1 - c.base
	if k < 0 || k > len(c.history) {
		c.mu.Unlock()
		return nil, errors.New("/rewind: that turn's messages are no longer in the conversation held in memory")
	}
	br.Messages = slices.Clone(c.history[k:])
	c.mu.Unlock()
	if err := s.recordLocked(store.Record{Kind: store.KindRewind, Branch: &br}); err != nil {
		return nil, fmt.Errorf("/rewind: the files are taken back, but the conversation could not be recorded, so it is left as it was: %w", err)
	}
	c.mu.Lock()
	c.history = slices.Clone(c.history[:k])
	c.times = alignTimes(c.times, k+len(br.Messages))[:k]
	c.ctxTokens = compact.EstimateTokens(c.history)
	if c.view != nil {
		prefix, tail := c.sentLocked()
		c.ctxTokens = compact.EstimateTokens(prefix) + compact.EstimateTokens(tail)
	}
	c.mu.Unlock()
	s.abandoned = append(s.abandoned, br)
	for i := first; i < len(s.turns); i++ {
		if s.turns[i].Conv == "" && !s.turns[i].Rewound {
			s.turns[i].Rewound = true
			turn := s.agedTurnLocked(i)
			if err := s.recordLocked(store.Record{Kind: store.KindTurn, Turn: &turn}); err != nil && unsaved == nil {
				unsaved = err
			}
		}
	}
	return unsaved, nil
}

// length is how many messages c's whole history holds (on disk too).
func (c *Conversation) length() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.base + len(c.history)
}

// CheckpointMode says where the turns' snapshots go, for :checkhealth:
// the workspace's git repository, a shadow repository outside git, or
// why there are none.
func (s *Session) CheckpointMode(ctx context.Context) string {
	mode, err := s.git.Mode(ctx)
	switch {
	case err != nil:
		return "off: " + err.Error()
	case mode == "git":
		return "git: snapshots in the workspace's repository (refs/coder-nvim/snapshots)"
	}
	return "outside git: snapshots in the shadow repository " + strings.TrimPrefix(mode, "shadow ") + " (nothing is written into the workspace)"
}

// imageMarker is how a picture is named in a turn's input ("[image 1]").
var imageMarker = regexp.MustCompile(`\[image \d+\]`)

// turnLabel is the first line of what the user wrote in a turn: without
// image markers and the context a front end attached, so a turn that
// starts with a picture is listed by its words.
func turnLabel(input string) string {
	for _, line := range strings.Split(todo.TypedText(input), "\n") {
		if line = strings.TrimSpace(imageMarker.ReplaceAllString(line, "")); line != "" {
			return line
		}
	}
	return text.FirstLine(input)
}
