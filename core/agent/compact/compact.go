// Package compact decides what a compacted conversation sends in place of
// its oldest messages: where the summarised part ends, the summary
// request's input (chunked to fit the context window), the view that
// replaces the summarised part, and the local summary used when the
// model's fails. The model call itself is the caller's (Summarise takes
// it as a function). It may not import core/agent.
package compact

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/text"
)

// Instructions apply to the compaction call only; they are never written
// back as the conversation's instructions (seed 002).
const Instructions = `You summarise a coding session so that it can continue in a fresh, shorter context.
Write a concise summary with: the user's goals and constraints; decisions made; files read, created and changed (paths); commands run and their results, especially the last one; what is done, what is open, and the next step. Do not call tools. Do not address the user.`

// Note opens the summary message of a compacted history.
const Note = "[context compacted] The earlier conversation was summarised below. Everything it mentions has already happened: do not repeat it, and do not re-run the last command; its result is in the summary. Continue from here."

// keptUserMessages bounds how many recent user messages of the summarised
// part are sent beside the summary.
const keptUserMessages = 3

// Cuts applied to the summary input, so a chunk's size is known: message
// text, tool-call arguments and tool outputs.
const (
	inputCap = 4000
	argsCap  = 300
	toolCap  = 1000
)

// View is what a compacted conversation sends in place of its first Upto
// messages: Prefix (its last user messages and the summary). The history
// itself is never shortened: compaction changes what is sent, never what
// is kept.
type View struct {
	Upto    int
	Summary string
	Prefix  []llm.Message
}

// NewView is the view of a history whose part in memory, hist, starts at
// message base; older are the last user messages before base (on disk
// only).
func NewView(hist []llm.Message, base int, older []llm.Message, upto int, summary string) *View {
	var recent []llm.Message
	take := func(m llm.Message) {
		if m.Role == llm.RoleUser && !strings.HasPrefix(m.Content, Note) && len(recent) < keptUserMessages {
			content := m.Content
			if len(recent) > 0 {
				// The earlier ones are cut; the newest is sent whole, so a
				// long prompt is never cut to a prefix (agent.ErrPromptTooLarge
				// refuses one that cannot fit).
				content = text.Truncate(content, inputCap)
			}
			recent = append([]llm.Message{{Role: llm.RoleUser, Content: content}}, recent...)
		}
	}
	for i := min(upto, base+len(hist)) - 1; i >= base; i-- {
		take(hist[i-base])
	}
	for i := len(older) - 1; i >= 0; i-- {
		take(older[i])
	}
	prefix := append(recent, llm.Message{Role: llm.RoleUser, Content: Note + "\n\n" + summary})
	return &View{Upto: upto, Summary: summary, Prefix: prefix}
}

// Bounds are a conversation's prompt bounds (seed 004 §4.1) for a context
// window: past either the oldest segments are summarised.
func Bounds(cfg config.Config, window int) (items, tokens int) {
	tokens = int(float64(window) * cfg.CompactThreshold)
	if cfg.History.MaxTokens > 0 && cfg.History.MaxTokens < tokens {
		tokens = cfg.History.MaxTokens
	}
	return cfg.History.MaxItems, tokens
}

// EstimateTokens is the chars/4 estimate used where the provider reports
// nothing.
func EstimateTokens(msgs []llm.Message) int {
	n := 0
	for _, m := range msgs {
		n += len(m.Content) + len(m.Reasoning)
		for _, c := range m.ToolCalls {
			n += len(c.Function.Name) + len(c.Function.Arguments)
		}
	}
	return n / 4
}

// RequestTokens estimates a request's size at chars/4.
func RequestTokens(req llm.Request) int {
	n := EstimateTokens(req.Messages)
	if data, err := json.Marshal(req.Tools); err == nil {
		n += len(data) / 4
	}
	return n
}

// Cut is where the summarised part of hist ends: the kept tail is the
// newest messages within a quarter of the bounds, starting on a message
// that is not a tool result, so a call and its result stay together (both
// summarised or both sent).
func Cut(hist []llm.Message, from, items, tokens int) int {
	keepTok, keepItems := tokens/4, items/4
	cut, tok := len(hist), 0
	for cut > from {
		mt := EstimateTokens(hist[cut-1 : cut])
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

// Input is the summary input: the earlier summary, then each message with
// its text, tool-call arguments and tool output cut and its reasoning and
// images dropped.
func Input(prevSummary string, msgs []llm.Message) []llm.Message {
	var out []llm.Message
	if prevSummary != "" {
		out = append(out, llm.Message{Role: llm.RoleUser, Content: "Summary of the conversation before this point:\n" + prevSummary})
	}
	for _, m := range msgs {
		cp := llm.Message{Role: m.Role, Name: m.Name, ToolCallID: m.ToolCallID, Content: text.Truncate(m.Content, inputCap)}
		if m.Role == llm.RoleTool {
			cp.Content = text.Truncate(m.Content, toolCap)
		}
		for _, tc := range m.ToolCalls {
			tc.Function.Arguments = text.Truncate(tc.Function.Arguments, argsCap)
			cp.ToolCalls = append(cp.ToolCalls, tc)
		}
		out = append(out, cp)
	}
	return out
}

// Request is the messages of one summary call over msgs.
func Request(msgs []llm.Message) []llm.Message {
	req := append([]llm.Message{{Role: llm.RoleSystem, Content: Instructions}}, msgs...)
	return append(req, llm.Message{Role: llm.RoleUser, Content: "Summarise the conversation above now, following your instructions."})
}

// Summarise asks for a summary of msgs within the context window, through
// call (one summary request): in one request when they fit half of it,
// else chunk by chunk and then the chunk summaries (recursively).
func Summarise(ctx context.Context, call func(context.Context, []llm.Message) (string, error), msgs []llm.Message, window int) (string, error) {
	budget := window/2 - EstimateTokens([]llm.Message{{Content: Instructions}}) - 64
	if EstimateTokens(msgs) <= budget {
		return call(ctx, msgs)
	}
	var parts []string
	for start := 0; start < len(msgs); {
		end, tok := start, 0
		for end < len(msgs) {
			mt := EstimateTokens(msgs[end : end+1])
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
		part, err := call(ctx, msgs[start:end])
		if err != nil {
			return "", err
		}
		parts = append(parts, part)
		start = end
	}
	var sums []llm.Message
	for i, p := range parts {
		sums = append(sums, llm.Message{Role: llm.RoleUser, Content: fmt.Sprintf("Summary of part %d of %d of the conversation:\n%s", i+1, len(parts), text.Truncate(p, inputCap))})
	}
	if len(parts) == 1 {
		return parts[0], nil
	}
	return Summarise(ctx, call, sums, window)
}

// Local stands in for a failed model summary: the earlier summary, the
// user's requests and the files the tool calls touched.
func Local(prevSummary string, msgs []llm.Message) string {
	var b strings.Builder
	b.WriteString("(local summary: the model's summary failed)\n")
	if prevSummary != "" {
		b.WriteString("Earlier: " + text.Truncate(prevSummary, inputCap) + "\n")
	}
	var reqs []string
	files := map[string]bool{}
	for _, m := range msgs {
		if m.Role == llm.RoleUser && !strings.HasPrefix(m.Content, Note) {
			reqs = append(reqs, text.Truncate(strings.TrimSpace(m.Content), 300))
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
