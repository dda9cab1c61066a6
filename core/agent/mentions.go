package agent

import (
	"context"
	"fmt"
	"strings"

	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/mcp"
	"github.com/coder-nvim/coder-nvim/core/mention"
)

// SubmitMentions is SubmitTo for input that may point at context: the
// workspace mentions in text (`@path`, `@path:10-40`, `#diff`) are
// resolved here, editor holds what the front end gathered itself (`#buffer`
// with its unsaved text, `#diagnostics` …), and both follow the user's
// words in the message the model sees (core/mention). It returns the items
// as attached, each cut or refusal said in it. A `/` or `!` command line
// takes no context: it runs as typed.
func (s *Session) SubmitMentions(ctx context.Context, convID ConversationID, text string, editor []mention.Item) (string, []mention.Item, error) {
	if isCommandLine(text) {
		id, err := s.SubmitTo(convID, text)
		return id, nil, err
	}
	content, images, items := s.withMentions(ctx, convID, text, editor)
	id, _, err := s.start(convID, content, text, images...)
	return string(id), items, err
}

// RunMentions is Run with the workspace mentions of text resolved (exec).
func (s *Session) RunMentions(ctx context.Context, text string) ([]mention.Item, error) {
	if isCommandLine(text) {
		return nil, s.Run(ctx, text)
	}
	content, images, items := s.withMentions(ctx, "", text, nil)
	_, done, err := s.start("", content, text, images...)
	if err != nil {
		return items, err
	}
	select {
	case <-done:
	case <-ctx.Done():
		s.Cancel()
		return items, fmt.Errorf("%w: %w", ErrCancelled, ctx.Err())
	}
	return items, nil
}

// ResolveMentions resolves the workspace mentions of text (`@path`,
// `#diff`) with this session's workspace and image setting, for a front
// end that attaches them itself (mention.Attach): ACP, whose prompt text
// and attached files arrive apart.
func (s *Session) ResolveMentions(ctx context.Context, text string) []mention.Item {
	if isCommandLine(text) {
		return nil
	}
	return s.resolver("").Resolve(ctx, text)
}

// ResolveFiles resolves files a client attached by path as `@path`
// mentions (ACP's resource links); paths outside the workspace are left
// out.
func (s *Session) ResolveFiles(ctx context.Context, paths []string) []mention.Item {
	return s.resolver("").Files(ctx, paths)
}

// resolver resolves mentions typed in conversation conv: its MCP view
// decides which servers' resources `@server:uri` reaches.
func (s *Session) resolver(conv ConversationID) mention.Resolver {
	r := mention.Resolver{WS: s.ws, Images: s.opts.Config.AcceptsImages(), Limits: mention.DefaultLimits}
	if c, err := s.conversation(conv); err == nil && s.mcp != nil {
		r.Resources = mcp.ResourceMentions{Pool: s.mcp.pool, View: func() (*mcp.View, error) { return s.mcpView(c) }, Wait: s.opts.Config.MCPFirstTurnWait()}
	}
	return r
}

func (s *Session) withMentions(ctx context.Context, conv ConversationID, text string, editor []mention.Item) (string, []llm.Image, []mention.Item) {
	r := s.resolver(conv)
	items := append(r.Confine(editor), r.Resolve(ctx, text)...)
	return mention.Attach(text, items, mention.DefaultLimits)
}

func isCommandLine(text string) bool {
	t := strings.TrimSpace(text)
	return strings.HasPrefix(t, "/") || strings.HasPrefix(t, "!")
}
