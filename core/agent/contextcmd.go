package agent

import (
	"context"
	"strings"

	"github.com/coder-nvim/coder-nvim/core/agent/compact"
	"github.com/coder-nvim/coder-nvim/core/breakdown"
	"github.com/coder-nvim/coder-nvim/core/llm"
)

// Context is /context: where the tokens of the conversation's next
// request go (core/breakdown), as it stands now.
func (c slash) Context(_ context.Context, _ string) (string, error) {
	s := c.s
	tc := s.turnContext(&task{s: s, conv: c.t.conv})
	req := s.request(tc)
	// What /compact would summarise: the history after the system and
	// AGENTS.md messages, cut as compaction cuts it.
	head := 0
	for head < len(req.Messages) && (req.Messages[head].Role == llm.RoleSystem ||
		req.Messages[head].Role == llm.RoleUser && strings.HasPrefix(req.Messages[head].Content, "<project_instructions>")) {
		head++
	}
	items, tokens := compact.Bounds(s.opts.Config, tc.window)
	cut := head + compact.Cut(req.Messages[head:], 0, items, tokens)
	return breakdown.Of(req, tc.window, cut).String(), nil
}
