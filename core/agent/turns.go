package agent

import (
	"context"
	"fmt"
	"strings"

	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/gitsnap"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/store"
)

// beginTurn records a user turn and, where git can, snapshots the
// workspace so /undo can take the turn back.
func (s *Session) beginTurn(ctx context.Context, t *task, input string) {
	turn := store.Turn{Task: string(t.id), Input: input, Started: s.opts.Now()}
	if gitsnap.Available(ctx, s.root) == nil {
		snap, err := gitsnap.Snapshot(context.WithoutCancel(ctx), s.root, "coder-nvim: before "+string(t.id))
		if err != nil {
			s.notice(t, "workspace snapshot failed, /undo will not cover this turn: "+err.Error())
		}
		turn.Snapshot = snap
	}
	s.mu.Lock()
	s.turns = append(s.turns, turn)
	s.mu.Unlock()
}

// endTurn snapshots the workspace after the turn. It runs also when the
// turn was interrupted, so /undo covers whatever it changed.
func (s *Session) endTurn(t *task) {
	s.mu.Lock()
	i := len(s.turns) - 1
	// Hand-over targets and continuations extend the user turn that
	// started their chain.
	ok := i >= 0 && s.turns[i].Task == string(t.turnID()) && s.turns[i].Snapshot != ""
	s.mu.Unlock()
	if !ok {
		return
	}
	after, err := gitsnap.Snapshot(context.Background(), s.root, "coder-nvim: after "+string(t.turnID()))
	if err != nil {
		s.notice(t, "workspace snapshot failed, /undo will not cover this turn: "+err.Error())
		return
	}
	s.mu.Lock()
	s.turns[i].After = after
	s.mu.Unlock()
	s.save()
}

// cmdUndo takes back the file changes of the most recent turn not yet
// undone that changed files; run again, it takes back the turn before.
func (s *Session) cmdUndo(ctx context.Context, t *task, _ string) (string, error) {
	if err := gitsnap.Available(ctx, s.root); err != nil {
		return "", fmt.Errorf("/undo needs git and a git repository: %w", err)
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

		rep, err := gitsnap.Undo(ctx, s.root, turn.Snapshot, turn.After)
		if err != nil {
			return "", fmt.Errorf("/undo failed: %w", err)
		}
		s.mu.Lock()
		s.turns[i].Undone = true
		s.mu.Unlock()
		if len(rep.Restored)+len(rep.Removed)+len(rep.Skipped) == 0 {
			continue // that turn changed nothing: undo the one before
		}
		changed := append(append([]string(nil), rep.Restored...), rep.Removed...)
		if len(changed) > 0 {
			t.emit(event.Event{Kind: event.FilesChanged, Paths: changed})
		}
		// The model must not believe its old edits still stand.
		note := fmt.Sprintf("[undo] The user undid the file changes of the turn %q.\n%s\nThose changes no longer exist; re-read files before relying on them.", truncate(turn.Input, 200), rep.String())
		s.appendMessage(t.conv, llm.Message{Role: llm.RoleUser, Content: note})
		return fmt.Sprintf("undid the turn %q:\n%s", truncate(firstLine(turn.Input), 80), strings.TrimRight(rep.String(), "\n")), nil
	}
}

// cmdDiff summarises the workspace's changes; the full diff goes in the
// event's detail for front ends that expand it.
func (s *Session) cmdDiff(ctx context.Context, t *task, _ string) (string, error) {
	if err := gitsnap.Available(ctx, s.root); err != nil {
		return "", fmt.Errorf("/diff needs git and a git repository: %w", err)
	}
	ch, err := gitsnap.Diff(ctx, s.root)
	if err != nil {
		return "", fmt.Errorf("/diff failed: %w", err)
	}
	if len(ch.Files) == 0 {
		return "no changes in the workspace", nil
	}
	t.emit(event.Event{Kind: event.CommandOutput, Text: ch.Summary(), Detail: ch.Patch})
	return "", nil
}
