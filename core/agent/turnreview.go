package agent

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/review"
	"github.com/coder-nvim/coder-nvim/core/reviewnotes"
	"github.com/coder-nvim/coder-nvim/core/store"
	"github.com/coder-nvim/coder-nvim/core/text"
	"github.com/coder-nvim/coder-nvim/core/tools"
)

// Turn review (`:Coder review`): a turn's changes, read back from its
// snapshots, as hunks the user keeps or rejects. A rejected hunk is
// reverted in the file (through the workspace, so a buffer with unsaved
// edits refuses it), and the model is told with the next message.

// ReviewHunk is one hunk of a turn's changes and the user's word on it.
type ReviewHunk struct {
	ID       int      `msgpack:"id"`
	Path     string   `msgpack:"path"`
	Line     int      `msgpack:"line"` // first line in the file as the turn left it
	OldLines []string `msgpack:"old"`
	NewLines []string `msgpack:"new"`
	Verdict  string   `msgpack:"verdict"` // "", "kept" or "rejected"
	Reason   string   `msgpack:"reason"`
	index    int      // among its file's hunks
}

// TurnReview is a turn's hunks.
type TurnReview struct {
	N     int          `msgpack:"n"` // the turn's number, as /rewind counts
	Input string       `msgpack:"input"`
	Hunks []ReviewHunk `msgpack:"hunks"`
}

// fileChange is one file of a turn: as it was before the turn changed it
// and as the turn left it.
type fileChange struct {
	path             string
	old, new         string
	hadOld, leftFile bool
	hunks            []review.Hunk
}

// reviewTurnLocked finds live turn n (0: the last one that changed
// files). s.mu is held.
func (s *Session) reviewTurnLocked(n int) (int, int, error) {
	live := s.liveTurnsLocked()
	if n == 0 {
		for k := len(live) - 1; k >= 0; k-- {
			if t := s.turns[live[k]]; t.After != "" && t.Snapshot != "" && !t.Undone {
				return live[k], k + 1, nil
			}
		}
		return 0, 0, errors.New("no turn of this session changed files that can be reviewed")
	}
	if n < 1 || n > len(live) {
		return 0, 0, fmt.Errorf("no turn %d: this session has %d turn(s)", n, len(live))
	}
	t := s.turns[live[n-1]]
	if t.After == "" || t.Snapshot == "" || t.Undone {
		return 0, 0, fmt.Errorf("turn %d has no changes to review (it changed no files, was undone, or its snapshots were dropped)", n)
	}
	return live[n-1], n, nil
}

// turnFileChanges reads turn's files back from its snapshots.
func (s *Session) turnFileChanges(ctx context.Context, turn store.Turn) ([]fileChange, error) {
	own := slices.Clone(turn.Own)
	if !turn.Tracked {
		changed, err := s.git.Changed(ctx, turn.Snapshot, turn.After)
		if err != nil {
			return nil, err
		}
		own = nil
		for _, p := range changed {
			own = append(own, store.OwnedFile{Path: p, Base: turn.Snapshot})
		}
	}
	slices.SortFunc(own, func(a, b store.OwnedFile) int { return strings.Compare(a.Path, b.Path) })
	var out []fileChange
	for _, o := range own {
		old, hadOld, err := s.git.ReadFile(ctx, o.Base, o.Path)
		if err != nil {
			return nil, err
		}
		cur, left, err := s.git.ReadFile(ctx, turn.After, o.Path)
		if err != nil {
			return nil, err
		}
		fc := fileChange{path: o.Path, old: string(old), new: string(cur), hadOld: hadOld, leftFile: left}
		if fc.hunks = review.Hunks(fc.old, fc.new); len(fc.hunks) > 0 {
			out = append(out, fc)
		}
	}
	return out, nil
}

// reviewedChanges keeps of c the files the turn's review lists: a file
// the turn created and deleted again changed nothing to review (nil when
// none is left). Only a file gone from the workspace is looked up in the
// turn's first snapshot, so a usual turn runs no more git.
func (s *Session) reviewedChanges(turn store.Turn, c *event.TurnChanges) *event.TurnChanges {
	if c == nil {
		return nil
	}
	var paths []string
	for _, p := range c.Paths {
		if _, err := os.Lstat(filepath.Join(s.root, filepath.FromSlash(p))); err != nil && errors.Is(err, fs.ErrNotExist) {
			base := turn.Snapshot
			if i := slices.IndexFunc(turn.Own, func(o store.OwnedFile) bool { return o.Path == p }); i >= 0 && turn.Own[i].Base != "" {
				base = turn.Own[i].Base
			}
			if _, had, err := s.git.ReadFile(context.Background(), base, p); err == nil && !had {
				continue // not there before the turn, nor after it
			}
		}
		paths = append(paths, p)
	}
	if len(paths) == 0 {
		return nil
	}
	c.Paths = paths
	return c
}

// ReviewTurn lists turn n's hunks (0: the last turn that changed files).
func (s *Session) ReviewTurn(ctx context.Context, n int) (TurnReview, error) {
	_, n, turn, files, err := s.turnForReview(ctx, n)
	if err != nil {
		return TurnReview{}, err
	}
	return reviewOf(n, turn, files), nil
}

// turnForReview finds turn n (reviewTurnLocked) and reads its files back:
// its index in s.turns, its number, the turn and its files.
func (s *Session) turnForReview(ctx context.Context, n int) (int, int, store.Turn, []fileChange, error) {
	s.mu.Lock()
	i, n, err := s.reviewTurnLocked(n)
	var turn store.Turn
	if err == nil {
		turn = s.turns[i]
	}
	s.mu.Unlock()
	if err != nil {
		return 0, 0, turn, nil, err
	}
	files, err := s.turnFileChanges(ctx, turn)
	if err != nil {
		return 0, 0, turn, nil, fmt.Errorf("review: %w", err)
	}
	return i, n, turn, files, nil
}

func reviewOf(n int, turn store.Turn, files []fileChange) TurnReview {
	r := TurnReview{N: n, Input: text.FirstLine(turn.Input), Hunks: []ReviewHunk{}}
	for _, fc := range files {
		shift := 0
		for k, h := range fc.hunks {
			rh := ReviewHunk{ID: len(r.Hunks), Path: fc.path, Line: max(h.OldStart+shift, 1), OldLines: h.OldLines, NewLines: h.NewLines, index: k}
			shift += len(h.NewLines) - len(h.OldLines)
			if v := verdictOf(turn.Review, fc.path, k); v != nil {
				rh.Verdict, rh.Reason = "kept", v.Reason
				if !v.Keep {
					rh.Verdict = "rejected"
				}
			}
			r.Hunks = append(r.Hunks, rh)
		}
	}
	return r
}

func verdictOf(vs []store.HunkVerdict, path string, hunk int) *store.HunkVerdict {
	for i := range vs {
		if vs[i].Path == path && vs[i].Hunk == hunk {
			return &vs[i]
		}
	}
	return nil
}

// JudgeHunk records the user's word on hunk id of turn n: keep, or reject
// (the hunk is reverted in the file; the model is told with the next
// message). It returns the review as it now stands.
func (s *Session) JudgeHunk(ctx context.Context, n, id int, keep bool, reason string) (TurnReview, error) {
	if s.sched.busy() {
		return TurnReview{}, ErrBusy
	}
	i, n, turn, files, err := s.turnForReview(ctx, n)
	if err != nil {
		return TurnReview{}, err
	}
	rv := reviewOf(n, turn, files)
	if id < 0 || id >= len(rv.Hunks) {
		return rv, fmt.Errorf("no hunk %d in turn %d", id, n)
	}
	h := rv.Hunks[id]
	if h.Verdict != "" {
		return rv, fmt.Errorf("that hunk is %s already", h.Verdict)
	}
	v := store.HunkVerdict{Path: h.Path, Hunk: h.index, Keep: keep, Reason: strings.TrimSpace(reason)}
	if !keep {
		fc := files[slices.IndexFunc(files, func(f fileChange) bool { return f.path == h.Path })]
		if err := s.revertHunk(ctx, fc, turn.Review, h.index); err != nil {
			return rv, err
		}
		s.emit(event.Event{Kind: event.FilesChanged, Conversation: string(s.rootConv.ID), Paths: []string{h.Path}})
		v.Note = reviewnotes.Rejected(n, turn.Input, h.Path, h.Line, h.OldLines, h.NewLines, v.Reason)
		s.reviewNotes.Add(v.Note)
	}
	s.mu.Lock()
	if i < len(s.turns) && s.turns[i].Task == turn.Task {
		s.turns[i].Review = append(slices.Clone(s.turns[i].Review), v)
		turn = s.turns[i]
	}
	s.mu.Unlock()
	s.recordTurn(i)
	return reviewOf(n, turn, files), nil
}

// revertHunk writes fc's file without hunk k (and without the hunks
// rejected before), if the file is still as the turn and those rejections
// left it.
func (s *Session) revertHunk(ctx context.Context, fc fileChange, verdicts []store.HunkVerdict, k int) error {
	accepted := make([]bool, len(fc.hunks))
	for j := range accepted {
		v := verdictOf(verdicts, fc.path, j)
		accepted[j] = v == nil || v.Keep
	}
	cur, err := review.Apply(fc.old, fc.new, accepted)
	if err != nil {
		return err
	}
	curExists := fc.leftFile || cur != ""
	accepted[k] = false
	next, err := review.Apply(fc.old, fc.new, accepted)
	if err != nil {
		return err
	}
	nextExists := fc.hadOld || next != ""
	change := tools.FileChange{Path: fc.path, Op: tools.OpUpdate, Old: cur, New: next}
	switch {
	case curExists && !nextExists:
		change = tools.FileChange{Path: fc.path, Op: tools.OpDelete, Old: cur}
	case !curExists && nextExists:
		change = tools.FileChange{Path: fc.path, Op: tools.OpAdd, New: next}
	}
	if err := s.ws.Apply(ctx, []tools.FileChange{change}); err != nil {
		return fmt.Errorf("could not revert the hunk in %s (the file must be as the turn left it, and its buffer without unsaved edits): %w", fc.path, err)
	}
	return nil
}

// TellWithNextInput queues note for the model: it goes with the next
// message, as the turn review's notes do. A task's merge review
// (core/worktree) tells a task's model what the user left out, and why.
func (s *Session) TellWithNextInput(note string) { s.reviewNotes.Add(note) }
