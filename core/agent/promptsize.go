package agent

import (
	"errors"
	"fmt"

	"github.com/coder-nvim/coder-nvim/core/agent/compact"
	"github.com/coder-nvim/coder-nvim/core/llm"
)

// ErrPromptTooLarge refuses a prompt that cannot be sent whole: larger
// alone than what a request may hold before compaction. Compaction
// shortens the history, never the prompt being sent (issue 48: a 5 MB
// prompt reached the model as its first 4,000 characters).
var ErrPromptTooLarge = errors.New("prompt too large for the model's context window")

// checkPromptSize refuses input, before any model call, when it alone is
// past the request bound of the session's model (compact_threshold of its
// context window, or history.max_tokens), saying both sizes.
func (s *Session) checkPromptSize(input string) error {
	window := s.ContextWindow()
	_, limit := compact.Bounds(s.opts.Config, window)
	n := compact.EstimateTokens([]llm.Message{{Role: llm.RoleUser, Content: input}})
	if limit <= 0 || n <= limit {
		return nil
	}
	return fmt.Errorf("%w: this prompt is about %d tokens (%d bytes), and one request may hold about %d tokens (compact_threshold of the %d-token context window); nothing was sent: send less, or mention files with @path instead of pasting them", ErrPromptTooLarge, n, len(input), limit, window)
}
