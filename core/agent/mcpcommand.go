package agent

// /mcp: the MCP servers with their transport, state and authorization;
// /mcp login NAME signs in to a url server (OAuth: the sign-in page
// opens through the front end's opener), /mcp logout NAME forgets its
// token.

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/mcp"
)

// mcpAuth is OAuth for the session's url servers: tokens in the host's
// state directory; nil when there is none.
func (s *Session) mcpAuth() *mcp.AuthOptions {
	dir := s.opts.Config.StateDir
	if dir == "" {
		return nil
	}
	return &mcp.AuthOptions{Dir: filepath.Join(dir, "mcp-oauth"), Open: s.openSignIn}
}

// openSignIn hands a server's sign-in page to the front end.
func (s *Session) openSignIn(_ context.Context, server, url string) error {
	s.emit(event.Event{Kind: event.OpenURL, Conversation: string(s.RootConversation()), Text: url, Detail: "sign in to MCP server " + server})
	return nil
}

// mcpLoginNotice tells the outcome of a sign-in the user started.
func (s *Session) mcpLoginNotice(n mcp.Notice) {
	switch {
	case !n.Login:
	case n.Kind == mcp.NoticeStarted:
		s.emit(event.Event{Kind: event.Notice, Conversation: string(s.RootConversation()), Text: fmt.Sprintf("MCP server %s: signed in (%s)", n.Server, n.Text)})
	case n.Kind == mcp.NoticeFailed:
		s.emit(event.Event{Kind: event.Notice, Conversation: string(s.RootConversation()), Text: fmt.Sprintf("MCP server %s: sign-in failed: %s", n.Server, n.Text)})
	}
}

// MCP runs /mcp [login NAME | logout NAME] (mcp.Pool.Command).
func (c slash) MCP(ctx context.Context, arg string) (string, error) {
	if c.s.mcp == nil {
		return "No MCP servers are configured (see :help coder-mcp).", nil
	}
	return c.s.mcp.pool.Command(ctx, arg, c.s.opts.Prompter)
}
