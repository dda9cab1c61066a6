package agent

// /mcp: the MCP servers with their transport, state and authorization;
// /mcp login NAME signs in to a url server (OAuth: the sign-in page
// opens through the front end's opener), /mcp logout NAME forgets its
// token.

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

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

// mcpLoginNotice tells the outcome of a login the user started.
func (s *Session) mcpLoginNotice(n mcp.Notice) {
	s.mcp.failMu.Lock()
	waiting := s.mcp.logins[n.Server]
	if n.Kind == mcp.NoticeStarted || n.Kind == mcp.NoticeFailed {
		delete(s.mcp.logins, n.Server)
	}
	s.mcp.failMu.Unlock()
	if !waiting {
		return
	}
	switch n.Kind {
	case mcp.NoticeStarted:
		s.emit(event.Event{Kind: event.Notice, Conversation: string(s.RootConversation()), Text: fmt.Sprintf("MCP server %s: signed in (%s)", n.Server, n.Text)})
	case mcp.NoticeFailed:
		s.emit(event.Event{Kind: event.Notice, Conversation: string(s.RootConversation()), Text: fmt.Sprintf("MCP server %s: sign-in failed: %s", n.Server, n.Text)})
	}
}

// MCP runs /mcp [login NAME | logout NAME].
func (c slash) MCP(ctx context.Context, arg string) (string, error) {
	s := c.s
	if s.mcp == nil {
		return "No MCP servers are configured (see :help coder-mcp).", nil
	}
	verb, name, _ := strings.Cut(arg, " ")
	name = strings.TrimSpace(name)
	switch verb {
	case "":
		return s.mcp.pool.AuthReport(), nil
	case "login":
		if name == "" {
			return "", fmt.Errorf("usage: /mcp login NAME")
		}
		if err := s.mcp.pool.Login(name); err != nil {
			return "", err
		}
		if !s.opts.Prompter {
			// exec: the address is printed; the command waits for the
			// sign-in, or the process would end before it.
			return s.mcp.pool.WaitSignIn(ctx, name)
		}
		s.mcp.failMu.Lock()
		s.mcp.logins[name] = true
		s.mcp.failMu.Unlock()
		return fmt.Sprintf("signing in to MCP server %s: the sign-in page opens in your browser; the server starts once you have signed in", name), nil
	case "logout":
		if name == "" {
			return "", fmt.Errorf("usage: /mcp logout NAME")
		}
		if err := s.mcp.pool.Logout(name); err != nil {
			return "", err
		}
		return fmt.Sprintf("MCP server %s: token forgotten; /mcp login %s signs in again", name, name), nil
	}
	return "", fmt.Errorf("usage: /mcp, /mcp login NAME, /mcp logout NAME")
}
