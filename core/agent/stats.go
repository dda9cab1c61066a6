package agent

import (
	"fmt"
	"strings"
	"time"

	"github.com/coder-nvim/coder-nvim/core/agent/compact"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/store"
)

// Stats are a conversation's metrics (seed 004 §9): tokens, model and tool
// calls, MCP latency, cancellations, failures and wall time, summed over
// its life and saved with the session.
type Stats = store.Stats

// countModelCall adds one model call that cost cost: the endpoint's
// usage, or estimates (chars/4) of the request and the answer when it
// reports none.
func (c *Conversation) countModelCall(req llm.Request, resp llm.Response, cost float64) {
	in, out, cached := 0, 0, 0
	if u := resp.Usage; u != nil {
		in, out, cached = u.PromptTokens, u.CompletionTokens, u.Cached()
	} else {
		in, out = compact.EstimateTokens(req.Messages), compact.EstimateTokens([]llm.Message{resp.Message})
	}
	c.mu.Lock()
	c.stats.ModelCalls++
	c.stats.TokensIn += in
	c.stats.TokensOut += out
	c.stats.TokensCached += cached
	c.stats.Cost += cost
	c.mu.Unlock()
}

// countToolCall adds one tool call that ended with status; an MCP call's
// duration is its latency.
func (c *Conversation) countToolCall(name, status string, mcp bool, d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stats.ToolCalls == nil {
		c.stats.ToolCalls = map[string]int{}
	}
	c.stats.ToolCalls[name]++
	switch status {
	case event.ToolFailed, event.ToolDenied, event.ToolAborted:
		c.stats.ToolFailures++
	}
	if mcp {
		ms := d.Milliseconds()
		c.stats.MCPCalls++
		c.stats.MCPLatencyMS += ms
		c.stats.MCPMaxMS = max(c.stats.MCPMaxMS, ms)
	}
}

// countTask adds one task that ran for wall and ended with end.
func (c *Conversation) countTask(end event.Event, wall time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stats.Tasks++
	c.stats.WallMS += wall.Milliseconds()
	if end.Kind == event.TurnAborted {
		switch end.Reason {
		case event.ReasonInterrupted:
			c.stats.Cancelled++
		case event.ReasonError:
			c.stats.Failed++
		}
	}
}

// Stats returns a copy of the conversation's metrics.
func (c *Conversation) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stats.Clone()
}

// ConversationStats returns a conversation's metrics ("" is the root).
func (s *Session) ConversationStats(id ConversationID) (Stats, error) {
	c, err := s.conversation(id)
	if err != nil {
		return Stats{}, err
	}
	return c.Stats(), nil
}

// writeConversationStats is the second part of /status: each
// conversation's metrics.
func (s *Session) writeConversationStats(b *strings.Builder, t *task) {
	fmt.Fprintf(b, "\nsession %s\n", s.ID())
	root := s.RootConversation()
	for _, c := range s.Conversations() {
		name := "conversation " + string(c.ID)
		if c.ID == root {
			name = "root conversation " + string(c.ID)
		}
		if c.ID == t.conv.ID {
			name += " (this one)"
		}
		if c.Running && c.ID != t.conv.ID {
			// This conversation's running task is this /status itself.
			name += " (running)"
		}
		fmt.Fprintf(b, "\n%s: %d messages\n", name, c.Messages)
		for _, l := range c.Stats.Lines() {
			b.WriteString("  " + l + "\n")
		}
	}
}
