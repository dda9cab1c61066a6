package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/coder-nvim/coder-nvim/core/agent/compact"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/store"
)

// sentLocked is the part of c's history a request carries: the view's
// prefix and the messages after it. c.mu is held.
func (c *Conversation) sentLocked() (prefix, tail []llm.Message) {
	if c.view == nil || c.view.Upto > c.base+len(c.history) || c.view.Upto < c.base {
		return nil, c.history
	}
	return c.view.Prefix, c.history[c.view.Upto-c.base:]
}

// compactIfNeeded builds the next request, compacting the conversation
// first when the request would exceed the bounds.
func (s *Session) compactIfNeeded(ctx context.Context, t *task) (llm.Request, error) {
	tc := s.turnContext(t) // compaction changes the history, not the context
	req := s.request(tc)
	items, limit := compact.Bounds(s.opts.Config, tc.window)
	if compact.RequestTokens(req) < limit && (items <= 0 || len(req.Messages) <= items) {
		return req, nil
	}
	if _, err := s.compact(ctx, t, false); err != nil {
		return llm.Request{}, err
	}
	return s.request(tc), nil
}

// compact summarises the conversation's oldest messages (and any earlier
// summary) into a new view. The request fits the context window: its
// input is cut and, when still too large, summarised in chunks and then
// the chunk summaries summarised. A failed summary falls back to a local
// one; only an interrupt is an error.
func (s *Session) compact(ctx context.Context, t *task, all bool) (string, error) {
	c := t.conv
	c.mu.Lock()
	hist := c.history[:len(c.history):len(c.history)]
	base, older := c.base, c.skipped.LastUsers
	prev := c.view
	c.mu.Unlock()
	if len(hist) == 0 {
		return "", errors.New("nothing to compact: the conversation is empty")
	}
	// Indices below are into hist, which starts at message base.
	from, prevSummary := 0, ""
	if prev != nil && prev.Upto <= base+len(hist) && prev.Upto >= base {
		from, prevSummary = prev.Upto-base, prev.Summary
	}
	_, window := s.modelOf(t)
	items, tokens := compact.Bounds(s.opts.Config, window)
	cut := compact.Cut(hist, from, items, tokens)
	if all {
		cut = len(hist) // /compact: everything so far
	}
	if cut <= from {
		return "", errors.New("nothing to compact: the recent messages are all that is sent")
	}
	t.emit(event.Event{Kind: event.Notice, Text: "compacting the conversation…"})

	input := compact.Input(prevSummary, hist[from:cut])
	summary, err := compact.Summarise(ctx, func(ctx context.Context, msgs []llm.Message) (string, error) {
		return s.summaryCall(ctx, t, msgs)
	}, input, window)
	if ctx.Err() != nil {
		return "", ctx.Err()
	}
	if err != nil {
		summary = compact.Local(prevSummary, hist[from:cut])
		t.emit(event.Event{Kind: event.Notice, Text: "the model's summary failed (" + err.Error() + "); compacted with a local summary of the user's requests and the files touched"})
	}

	v := compact.NewView(hist, base, older, base+cut, summary)
	s.mu.Lock()
	system := s.systemPromptLocked(c)
	c.mu.Lock()
	c.view = v
	_, tail := c.sentLocked()
	sent := append([]llm.Message{{Role: llm.RoleSystem, Content: system}}, agentsMessage(c)...)
	c.ctxTokens = compact.EstimateTokens(append(append(sent, v.Prefix...), tail...))
	tokensNow := c.ctxTokens
	c.mu.Unlock()
	rerr := s.recordLocked(store.Record{Kind: store.KindView, Conv: s.convKeyLocked(c), View: &store.View{Conv: s.convKeyLocked(c), Upto: base + cut, Summary: summary}})
	st := s.statusLocked()
	s.mu.Unlock()
	s.reportSave(rerr)
	t.emit(event.Event{Kind: event.StatusChanged, Status: &st})
	whole := ""
	if lastUser(hist) >= from && lastUser(hist) < cut {
		whole = "; your last message is sent whole beside it"
	}
	t.emit(event.Event{Kind: event.Notice, Text: fmt.Sprintf("conversation compacted: %d messages sent as a summary, %d after it (about %d tokens)%s; the full history is kept", base+cut, len(hist)-cut, tokensNow, whole)})
	return summary, nil
}

// summaryCall is one summary request.
func (s *Session) summaryCall(ctx context.Context, t *task, msgs []llm.Message) (string, error) {
	req := compact.Request(msgs)
	model, _ := s.modelOf(t)
	resp, err := t.provider().Stream(ctx, llm.Request{Model: model, Messages: req}, func(d llm.Delta) {
		if d.Retry != nil {
			t.emit(retryEvent(*d.Retry))
		}
	})
	t.conv.countModelCall(llm.Request{Messages: req}, resp, s.costOf(model, resp.Usage))
	if err != nil {
		return "", fmt.Errorf("compaction failed: %w", err)
	}
	summary := strings.TrimSpace(resp.Message.Content)
	if summary == "" {
		return "", errors.New("compaction failed: the model returned an empty summary")
	}
	return summary, nil
}

func (c slash) Compact(ctx context.Context, _ string) (string, error) {
	s, t := c.s, c.t
	summary, err := s.compact(ctx, t, true)
	if err != nil {
		return "", err
	}
	return "Summary:\n" + summary, nil
}

// lastUser is the index in hist of its last user message, -1 without one.
func lastUser(hist []llm.Message) int {
	for i := len(hist) - 1; i >= 0; i-- {
		if hist[i].Role == llm.RoleUser {
			return i
		}
	}
	return -1
}
