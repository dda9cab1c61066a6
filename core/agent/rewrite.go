package agent

import (
	"context"
	"fmt"

	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/inline"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/review"
)

// RewriteRequest is one inline edit: the selection, the lines around it
// and the instruction.
type RewriteRequest = inline.Request

// RewriteEdit is an answered inline edit, its hunks and how to apply
// the accepted ones.
type RewriteEdit = inline.Edit

// Rewrite is the inline assistant (`:'<,'>Coder edit`): one model call,
// outside every conversation's history, that rewrites a selection and
// returns its new lines. It takes the path every model call takes: the
// session's endpoint and model (the root conversation's own model first),
// its tokens counted in the root's stats and reported as a TokenCount
// event of a task of its own, and its outcome recorded like a `/`
// command's result (kept in the session and shown on resume, never sent
// to the model; the live transcript stays the chat's). It runs beside a
// turn: it takes no place in the scheduler's queue. progress, when not
// nil, receives the hunks settled while the answer streams
// (inline.Progress), each time there are more; the edit returned holds
// the whole answer's.
func (s *Session) Rewrite(ctx context.Context, req RewriteRequest, progress func([]review.Hunk)) (RewriteEdit, error) {
	if err := req.Check(); err != nil {
		return RewriteEdit{}, err
	}
	s.mu.Lock()
	c := s.rootConv // read under s.mu: reset replaces it
	s.mu.Unlock()
	t := &task{s: s, id: TaskID(s.newID()), conv: c}
	model, window := s.modelOf(t)
	r := llm.Request{Model: model, Messages: req.Messages()}
	follow := inline.NewProgress(req.First, req.Selection)
	resp, err := s.currentEndpoint().provider.Stream(ctx, r, func(d llm.Delta) {
		if d.Retry != nil {
			t.emit(retryEvent(*d.Retry))
		}
		if progress != nil && d.Content != "" {
			if hunks := follow.Add(d.Content); hunks != nil {
				progress(hunks)
			}
		}
	})
	s.countRewrite(t, r, resp, window)
	if err != nil && ctx.Err() != nil {
		return RewriteEdit{}, fmt.Errorf("model: %w: %w", ErrCancelled, err)
	}
	if err != nil {
		return RewriteEdit{}, fmt.Errorf("model: %w", err)
	}
	lines, err := inline.Parse(resp.Message.Content, req.Selection)
	if err != nil {
		return RewriteEdit{}, err
	}
	edit := RewriteEdit{First: req.First, Old: req.Selection, New: lines}
	input := fmt.Sprintf("edit %s:%d-%d: %s", orUnnamed(req.Path), req.First, req.First+len(req.Selection)-1, req.Instruction)
	out := fmt.Sprintf("proposed %d lines for the %d selected, %d hunks to review", len(lines), len(req.Selection), len(edit.Hunks()))
	s.recordCommand(c, input, out)
	return edit, nil
}

// countRewrite counts an inline edit's model call in the conversation's
// stats and reports its tokens. Unlike a turn's call it leaves what the
// conversation sent (context size, tools, system message) as it was.
func (s *Session) countRewrite(t *task, req llm.Request, resp llm.Response, window int) {
	cost := s.costOf(req.Model, resp.Usage)
	t.conv.countModelCall(req, resp, cost)
	t.conv.mu.Lock()
	tok := &event.Tokens{Window: window, Context: t.conv.ctxTokens}
	t.conv.mu.Unlock()
	if u := resp.Usage; u != nil {
		reported(tok, u, cost)
	}
	var use event.TurnUsage
	addUsage(&use, tok)
	tok.Turn = &use
	t.emit(event.Event{Kind: event.TokenCount, Tokens: tok})
}

func orUnnamed(path string) string {
	if path == "" {
		return "[unnamed buffer]"
	}
	return path
}
