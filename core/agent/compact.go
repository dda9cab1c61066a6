package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/store"
)

// compactInstructions apply to the compaction call only; they are never
// written back as the conversation's instructions (seed 002).
const compactInstructions = `You summarise a coding session so that it can continue in a fresh, shorter context.
Write a concise summary with: the user's goals and constraints; decisions made; files read, created and changed (paths); commands run and their results, especially the last one; what is done, what is open, and the next step. Do not call tools. Do not address the user.`

// compactedNote opens the summary message of a compacted history.
const compactedNote = "[context compacted] The earlier conversation was summarised below. Everything it mentions has already happened: do not repeat it, and do not re-run the last command; its result is in the summary. Continue from here."

// keptUserMessages bounds how many recent user messages of the summarised
// part are sent beside the summary.
const keptUserMessages = 3

// Cuts applied to the summary input, so a chunk's size is known: message
// text, tool-call arguments and tool outputs.
const (
	compactInputCap = 4000
	compactArgsCap  = 300
	compactToolCap  = 1000
)

// promptView is what a compacted conversation sends in place of its first
// upto messages: prefix (its last user messages and the summary). The
// history itself is never shortened: compaction changes what is sent,
// never what is kept. Guarded by Conversation.mu.
type promptView struct {
	upto    int
	summary string
	prefix  []llm.Message
}

// hist is the history in memory, which starts at message base; older are
// the last user messages before base (on disk only).
func newView(hist []llm.Message, base int, older []llm.Message, upto int, summary string) *promptView {
	var recent []llm.Message
	take := func(m llm.Message) {
		if m.Role == llm.RoleUser && !strings.HasPrefix(m.Content, compactedNote) && len(recent) < keptUserMessages {
			recent = append([]llm.Message{{Role: llm.RoleUser, Content: truncate(m.Content, compactInputCap)}}, recent...)
		}
	}
	for i := min(upto, base+len(hist)) - 1; i >= base; i-- {
		take(hist[i-base])
	}
	for i := len(older) - 1; i >= 0; i-- {
		take(older[i])
	}
	prefix := append(recent, llm.Message{Role: llm.RoleUser, Content: compactedNote + "\n\n" + summary})
	return &promptView{upto: upto, summary: summary, prefix: prefix}
}

// sentLocked is the part of c's history a request carries: the view's
// prefix and the messages after it. c.mu is held.
func (c *Conversation) sentLocked() (prefix, tail []llm.Message) {
	if c.view == nil || c.view.upto > c.base+len(c.history) || c.view.upto < c.base {
		return nil, c.history
	}
	return c.view.prefix, c.history[c.view.upto-c.base:]
}

// historyBounds are the conversation's prompt bounds (seed 004 §4.1): past
// either the oldest segments are summarised.
func (s *Session) historyBounds(window int) (items, tokens int) {
	cfg := s.opts.Config
	tokens = int(float64(window) * cfg.CompactThreshold)
	if cfg.History.MaxTokens > 0 && cfg.History.MaxTokens < tokens {
		tokens = cfg.History.MaxTokens
	}
	return cfg.History.MaxItems, tokens
}

// compactIfNeeded builds the next request, compacting the conversation
// first when the request would exceed the bounds.
func (s *Session) compactIfNeeded(ctx context.Context, t *task) (llm.Request, error) {
	tc := s.turnContext(t) // compaction changes the history, not the context
	req := s.request(tc)
	items, limit := s.historyBounds(tc.window)
	if requestTokens(req) < limit && (items <= 0 || len(req.Messages) <= items) {
		return req, nil
	}
	if _, err := s.compact(ctx, t, false); err != nil {
		return llm.Request{}, err
	}
	return s.request(tc), nil
}

// requestTokens estimates a request's size at chars/4.
func requestTokens(req llm.Request) int {
	n := estimateTokens(req.Messages)
	if data, err := json.Marshal(req.Tools); err == nil {
		n += len(data) / 4
	}
	return n
}

// compactCut is where the summarised part of hist ends: the kept tail is
// the newest messages within a quarter of the bounds, starting on a
// message that is not a tool result, so a call and its result stay
// together (both summarised or both sent).
func compactCut(hist []llm.Message, from, items, tokens int) int {
	keepTok, keepItems := tokens/4, items/4
	cut, tok := len(hist), 0
	for cut > from {
		mt := estimateTokens(hist[cut-1 : cut])
		if tok+mt > keepTok || keepItems > 0 && len(hist)-cut+1 > keepItems {
			break
		}
		tok += mt
		cut--
	}
	for cut < len(hist) && hist[cut].Role == llm.RoleTool {
		cut++ // results go with their call, into the summary
	}
	return cut
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
	if prev != nil && prev.upto <= base+len(hist) && prev.upto >= base {
		from, prevSummary = prev.upto-base, prev.summary
	}
	_, window := s.modelOf(t)
	items, tokens := s.historyBounds(window)
	cut := compactCut(hist, from, items, tokens)
	if all {
		cut = len(hist) // /compact: everything so far
	}
	if cut <= from {
		return "", errors.New("nothing to compact: the recent messages are all that is sent")
	}
	t.emit(event.Event{Kind: event.Notice, Text: "compacting the conversation…"})

	input := compactInput(prevSummary, hist[from:cut])
	summary, err := s.summarise(ctx, t, input, window)
	if ctx.Err() != nil {
		return "", ctx.Err()
	}
	if err != nil {
		summary = localSummary(prevSummary, hist[from:cut])
		t.emit(event.Event{Kind: event.Notice, Text: "the model's summary failed (" + err.Error() + "); compacted with a local summary of the user's requests and the files touched"})
	}

	v := newView(hist, base, older, base+cut, summary)
	s.mu.Lock()
	system := s.systemPromptLocked(c)
	c.mu.Lock()
	c.view = v
	_, tail := c.sentLocked()
	c.ctxTokens = estimateTokens(append(append([]llm.Message{{Role: llm.RoleSystem, Content: system}}, v.prefix...), tail...))
	tokensNow := c.ctxTokens
	c.mu.Unlock()
	rerr := s.recordLocked(store.Record{Kind: store.KindView, Conv: s.convKeyLocked(c), View: &store.View{Conv: s.convKeyLocked(c), Upto: base + cut, Summary: summary}})
	st := s.statusLocked()
	s.mu.Unlock()
	s.reportSave(rerr)
	t.emit(event.Event{Kind: event.StatusChanged, Status: &st})
	t.emit(event.Event{Kind: event.Notice, Text: fmt.Sprintf("conversation compacted: %d messages sent as a summary, %d after it (about %d tokens); the full history is kept", base+cut, len(hist)-cut, tokensNow)})
	return summary, nil
}

// compactInput is the summary input: the earlier summary, then each
// message with its text, tool-call arguments and tool output cut and its
// reasoning and images dropped.
func compactInput(prevSummary string, msgs []llm.Message) []llm.Message {
	var out []llm.Message
	if prevSummary != "" {
		out = append(out, llm.Message{Role: llm.RoleUser, Content: "Summary of the conversation before this point:\n" + prevSummary})
	}
	for _, m := range msgs {
		cp := llm.Message{Role: m.Role, Name: m.Name, ToolCallID: m.ToolCallID, Content: truncate(m.Content, compactInputCap)}
		if m.Role == llm.RoleTool {
			cp.Content = truncate(m.Content, compactToolCap)
		}
		for _, tc := range m.ToolCalls {
			tc.Function.Arguments = truncate(tc.Function.Arguments, compactArgsCap)
			cp.ToolCalls = append(cp.ToolCalls, tc)
		}
		out = append(out, cp)
	}
	return out
}

// summarise asks the model for a summary of msgs within the context
// window: in one request when they fit half of it, else chunk by chunk
// and then the chunk summaries (recursively).
func (s *Session) summarise(ctx context.Context, t *task, msgs []llm.Message, window int) (string, error) {
	budget := window/2 - estimateTokens([]llm.Message{{Content: compactInstructions}}) - 64
	if estimateTokens(msgs) <= budget {
		return s.summaryCall(ctx, t, msgs)
	}
	var parts []string
	for start := 0; start < len(msgs); {
		end, tok := start, 0
		for end < len(msgs) {
			mt := estimateTokens(msgs[end : end+1])
			if end > start && tok+mt > budget {
				break
			}
			tok += mt
			end++
		}
		// A chunk ends after the results of its last call: the provider
		// rejects a call without its result.
		for end < len(msgs) && msgs[end].Role == llm.RoleTool {
			end++
		}
		part, err := s.summaryCall(ctx, t, msgs[start:end])
		if err != nil {
			return "", err
		}
		parts = append(parts, part)
		start = end
	}
	var sums []llm.Message
	for i, p := range parts {
		sums = append(sums, llm.Message{Role: llm.RoleUser, Content: fmt.Sprintf("Summary of part %d of %d of the conversation:\n%s", i+1, len(parts), truncate(p, compactInputCap))})
	}
	if len(parts) == 1 {
		return parts[0], nil
	}
	return s.summarise(ctx, t, sums, window)
}

// summaryCall is one summary request.
func (s *Session) summaryCall(ctx context.Context, t *task, msgs []llm.Message) (string, error) {
	req := append([]llm.Message{{Role: llm.RoleSystem, Content: compactInstructions}}, msgs...)
	req = append(req, llm.Message{Role: llm.RoleUser, Content: "Summarise the conversation above now, following your instructions."})
	model, _ := s.modelOf(t)
	resp, err := t.provider().Stream(ctx, llm.Request{Model: model, Messages: req}, func(d llm.Delta) {
		if d.Retry != nil {
			t.emit(retryEvent(*d.Retry))
		}
	})
	t.conv.countModelCall(llm.Request{Messages: req}, resp)
	if err != nil {
		return "", fmt.Errorf("compaction failed: %w", err)
	}
	summary := strings.TrimSpace(resp.Message.Content)
	if summary == "" {
		return "", errors.New("compaction failed: the model returned an empty summary")
	}
	return summary, nil
}

// localSummary stands in for a failed model summary: the earlier summary,
// the user's requests and the files the tool calls touched.
func localSummary(prevSummary string, msgs []llm.Message) string {
	var b strings.Builder
	b.WriteString("(local summary: the model's summary failed)\n")
	if prevSummary != "" {
		b.WriteString("Earlier: " + truncate(prevSummary, compactInputCap) + "\n")
	}
	var reqs []string
	files := map[string]bool{}
	for _, m := range msgs {
		if m.Role == llm.RoleUser && !strings.HasPrefix(m.Content, compactedNote) {
			reqs = append(reqs, truncate(strings.TrimSpace(m.Content), 300))
		}
		for _, c := range m.ToolCalls {
			var args struct {
				Path string `json:"path"`
			}
			if json.Unmarshal([]byte(c.Function.Arguments), &args) == nil && args.Path != "" {
				files[c.Function.Name+" "+args.Path] = true
			}
		}
	}
	if len(reqs) > 20 {
		reqs = reqs[len(reqs)-20:]
	}
	b.WriteString("User requests:\n")
	for _, r := range reqs {
		b.WriteString("- " + r + "\n")
	}
	var fs []string
	for f := range files {
		fs = append(fs, f)
	}
	sort.Strings(fs)
	if len(fs) > 100 {
		fs = fs[:100]
	}
	if len(fs) > 0 {
		b.WriteString("Files touched: " + strings.Join(fs, ", ") + "\n")
	}
	return b.String()
}

func (s *Session) cmdCompact(ctx context.Context, t *task, _ string) (string, error) {
	summary, err := s.compact(ctx, t, true)
	if err != nil {
		return "", err
	}
	return "Summary:\n" + summary, nil
}
