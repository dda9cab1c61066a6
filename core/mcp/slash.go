package mcp

import (
	"context"
	"fmt"
	"strings"
)

// Command runs the user's /mcp: the servers with their transport, state
// and authorization; `login NAME` signs in to a url server (the sign-in
// page opens through AuthOptions.Open), `logout NAME` forgets its token.
// Where nobody sees later notices (exec, interactive false) login waits
// for the sign-in, or the process would end before it; else it returns at
// once, and the outcome comes as a notice with Login set.
func (p *Pool) Command(ctx context.Context, arg string, interactive bool) (string, error) {
	verb, name, _ := strings.Cut(arg, " ")
	name = strings.TrimSpace(name)
	switch verb {
	case "":
		return p.AuthReport(), nil
	case "login":
		if name == "" {
			return "", fmt.Errorf("usage: /mcp login NAME")
		}
		if err := p.Login(name); err != nil {
			return "", err
		}
		if !interactive {
			return p.WaitSignIn(ctx, name)
		}
		p.loginMu.Lock()
		if p.userLogins == nil {
			p.userLogins = map[string]bool{}
		}
		p.userLogins[name] = true
		p.loginMu.Unlock()
		return fmt.Sprintf("signing in to MCP server %s: the sign-in page opens in your browser; the server starts once you have signed in", name), nil
	case "logout":
		if name == "" {
			return "", fmt.Errorf("usage: /mcp logout NAME")
		}
		if err := p.Logout(name); err != nil {
			return "", err
		}
		return fmt.Sprintf("MCP server %s: token forgotten; /mcp login %s signs in again", name, name), nil
	}
	return "", fmt.Errorf("usage: /mcp, /mcp login NAME, /mcp logout NAME")
}

// markLogin sets n.Login when n ends a sign-in the user started with
// Command (once).
func (p *Pool) markLogin(n *Notice) {
	if n.Kind != NoticeStarted && n.Kind != NoticeFailed {
		return
	}
	p.loginMu.Lock()
	n.Login = p.userLogins[n.Server]
	delete(p.userLogins, n.Server)
	p.loginMu.Unlock()
}
