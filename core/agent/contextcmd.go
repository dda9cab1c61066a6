package agent

import (
	"context"

	"github.com/coder-nvim/coder-nvim/core/agent/compact"
	"github.com/coder-nvim/coder-nvim/core/breakdown"
)

// Context is /context: where the tokens of the conversation's next
// request go (core/breakdown), as it stands now.
func (c slash) Context(_ context.Context, _ string) (string, error) {
	s := c.s
	tc := s.turnContext(&task{s: s, conv: c.t.conv})
	req := s.request(tc)
	// What /compact would summarise, cut as compaction cuts it.
	head := breakdown.HistoryStart(req.Messages)
	items, tokens := compact.Bounds(s.opts.Config, tc.window)
	cut := head + compact.Cut(req.Messages[head:], 0, items, tokens)
	return breakdown.Of(req, tc.window, cut).String(), nil
}
