package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/llm"
)

// compactInstructions apply to the compaction call only; they are never
// written back as the conversation's instructions (seed 002).
const compactInstructions = `You summarise a coding session so that it can continue in a fresh, shorter context.
Write a concise summary with: the user's goals and constraints; decisions made; files read, created and changed (paths); commands run and their results, especially the last one; what is done, what is open, and the next step. Do not call tools. Do not address the user.`

// compactedNote opens the summary message of a compacted history.
const compactedNote = "[context compacted] The earlier conversation was summarised below. Everything it mentions has already happened: do not repeat it, and do not re-run the last command; its result is in the summary. Continue from here."

// keptUserMessages bounds how many recent user messages survive compaction.
const keptUserMessages = 3

// compactInputCap bounds each message's text in the compaction request, so
// the request fits even when the history does not.
const compactInputCap = 4000

// compactIfNeeded builds the next request, compacting the conversation
// first when the request would exceed the threshold share of the context
// window.
func (s *Session) compactIfNeeded(ctx context.Context, t *task) (llm.Request, error) {
	req := s.request(s.turnContext(t))
	limit := int(float64(s.opts.Config.ContextWindow) * s.opts.Config.CompactThreshold)
	if requestTokens(req) < limit {
		return req, nil
	}
	if _, err := s.compact(ctx, t); err != nil {
		return llm.Request{}, err
	}
	return s.request(s.turnContext(t)), nil
}

// requestTokens estimates a request's size at chars/4.
func requestTokens(req llm.Request) int {
	n := estimateTokens(req.Messages)
	if data, err := json.Marshal(req.Tools); err == nil {
		n += len(data) / 4
	}
	return n
}

// compact summarises the conversation and rebuilds its history as the most
// recent user messages plus the summary. Only whole messages are kept, so a
// tool call is never separated from its result.
func (s *Session) compact(ctx context.Context, t *task) (string, error) {
	hist := t.conv.messages()
	model := s.turnContext(t).model
	if len(hist) == 0 {
		return "", errors.New("nothing to compact: the conversation is empty")
	}
	t.emit(event.Event{Kind: event.Notice, Text: "compacting the conversation…"})

	msgs := []llm.Message{{Role: llm.RoleSystem, Content: compactInstructions}}
	for _, m := range hist {
		m.Content = truncate(m.Content, compactInputCap)
		m.Reasoning = ""
		msgs = append(msgs, m)
	}
	msgs = append(msgs, llm.Message{Role: llm.RoleUser, Content: "Summarise the conversation above now, following your instructions."})
	resp, err := s.opts.Provider.Stream(ctx, llm.Request{Model: model, Messages: msgs}, func(d llm.Delta) {
		if d.Retry != nil {
			t.emit(retryEvent(*d.Retry))
		}
	})
	if err != nil {
		return "", fmt.Errorf("compaction failed: %w", err)
	}
	summary := strings.TrimSpace(resp.Message.Content)
	if summary == "" {
		return "", errors.New("compaction failed: the model returned an empty summary")
	}

	var recent []llm.Message
	for i := len(hist) - 1; i >= 0 && len(recent) < keptUserMessages; i-- {
		m := hist[i]
		if m.Role == llm.RoleUser && !strings.HasPrefix(m.Content, compactedNote) {
			recent = append([]llm.Message{{Role: llm.RoleUser, Content: truncate(m.Content, compactInputCap)}}, recent...)
		}
	}
	rebuilt := append(recent, llm.Message{Role: llm.RoleUser, Content: compactedNote + "\n\n" + summary})

	s.mu.Lock()
	system := s.systemPromptLocked(t.conv)
	t.conv.mu.Lock()
	t.conv.history = rebuilt
	t.conv.ctxTokens = estimateTokens(append([]llm.Message{{Role: llm.RoleSystem, Content: system}}, rebuilt...))
	tokens := t.conv.ctxTokens
	t.conv.mu.Unlock()
	st := s.statusLocked()
	s.mu.Unlock()
	s.save()
	t.emit(event.Event{Kind: event.StatusChanged, Status: &st})
	t.emit(event.Event{Kind: event.Notice, Text: fmt.Sprintf("conversation compacted: %d messages → %d (about %d tokens)", len(hist), len(rebuilt), tokens)})
	return summary, nil
}

func (s *Session) cmdCompact(ctx context.Context, t *task, _ string) (string, error) {
	summary, err := s.compact(ctx, t)
	if err != nil {
		return "", err
	}
	return "Summary:\n" + summary, nil
}
