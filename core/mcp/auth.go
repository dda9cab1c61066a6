package mcp

// OAuth of remote servers (mcpauth): an ordinary start sends the token
// kept for the server's address, if any, and a 401 it cannot answer
// leaves the server waiting for the user's /mcp login (StateNeedsLogin);
// Login restarts the server with the sign-in flow, which opens the
// authorization page through AuthOptions.Open.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/coder-nvim/coder-nvim/core/mcp/mcpauth"
	"github.com/modelcontextprotocol/go-sdk/auth"
)

// StateNeedsLogin: the server asks for OAuth and no usable token is
// kept; /mcp login starts it again.
const StateNeedsLogin = "needs_login"

// LoginTimeout bounds a start that includes the user's sign-in.
const LoginTimeout = 5 * time.Minute

// AuthOptions enable OAuth for URL servers.
type AuthOptions struct {
	// Dir keeps the tokens (the host's state directory's mcp-oauth).
	Dir string
	// Open shows a sign-in page to the user (vim.ui.open, a printed URL).
	Open func(ctx context.Context, server, url string) error
}

// OAuthConfig is a server's "oauth" entry: a client registered for it
// by the user (else the client registers itself).
type OAuthConfig struct {
	ClientID     string `json:"client_id,omitempty"`
	ClientSecret string `json:"client_secret,omitempty"`
	RedirectPort int    `json:"redirect_port,omitempty"`
}

// Auth states, as /mcp and :checkhealth show them.
const (
	AuthNone      = ""          // stdio, or OAuth not enabled
	AuthHeader    = "header"    // an Authorization header of the config
	AuthToken     = "logged in" // an OAuth token is kept
	AuthNeeded    = "needs login"
	AuthLoggingIn = "logging in"
	AuthNoToken   = "no token" // none kept; the server has not asked
)

func hasAuthHeader(cfg ServerConfig) bool {
	for k := range cfg.Headers {
		if strings.EqualFold(k, "Authorization") {
			return true
		}
	}
	return false
}

func (p *Pool) usesOAuth(srv *server) bool {
	return p.opts.Auth != nil && srv.cfg.URL != "" && !hasAuthHeader(srv.cfg)
}

func (p *Pool) authOptions(srv *server) mcpauth.Options {
	o := mcpauth.Options{Server: srv.name, URL: srv.cfg.URL, Store: mcpauth.Store{Dir: p.opts.Auth.Dir}}
	if c := srv.cfg.OAuth; c != nil {
		o.ClientID, o.ClientSecret, o.RedirectPort = c.ClientID, c.ClientSecret, c.RedirectPort
	}
	o.Open = func(ctx context.Context, url string) error { return p.opts.Auth.Open(ctx, srv.name, url) }
	return o
}

// oauthHandler is the handler of srv's next start, how long that start
// may take and what to call after it; nil when srv uses no OAuth.
func (p *Pool) oauthHandler(srv *server) (auth.OAuthHandler, time.Duration, func(), error) {
	if !p.usesOAuth(srv) {
		return nil, p.opts.StartTimeout, func() {}, nil
	}
	srv.mu.Lock()
	login := srv.login
	srv.login = false
	srv.loggingIn = login
	srv.mu.Unlock()
	done := func() {
		srv.mu.Lock()
		srv.loggingIn = false
		srv.mu.Unlock()
	}
	if !login {
		h, err := mcpauth.Stored(p.authOptions(srv))
		return h, p.opts.StartTimeout, done, err
	}
	h, closeFn, err := mcpauth.Login(p.authOptions(srv))
	if err != nil {
		done()
		return nil, 0, func() {}, err
	}
	return h, LoginTimeout, func() { closeFn(); done() }, nil
}

// Login signs in to server name: it starts again with the OAuth flow,
// in the background; the outcome is a notice (started or failed).
func (p *Pool) Login(name string) error {
	srv, err := p.oauthServer(name)
	if err != nil {
		return err
	}
	srv.mu.Lock()
	srv.login = true
	sess, state := srv.sess, srv.state
	if state == StateFailed || state == StateStopped {
		srv.state = StateStarting
	}
	srv.mu.Unlock()
	switch {
	case sess != nil:
		_ = sess.Close() // the run loop starts it again, now signing in
	case state == StateNeedsLogin || state == StateIdle:
		select {
		case srv.wake <- struct{}{}:
		default:
		}
	case state == StateFailed || state == StateStopped:
		p.wg.Add(1)
		go p.run(srv)
	}
	return nil
}

// Logout forgets server name's token and reconnects without it.
func (p *Pool) Logout(name string) error {
	srv, err := p.oauthServer(name)
	if err != nil {
		return err
	}
	if err := (mcpauth.Store{Dir: p.opts.Auth.Dir}).Delete(name, srv.cfg.URL); err != nil {
		return fmt.Errorf("forget the token of %s: %w", name, err)
	}
	srv.mu.Lock()
	sess := srv.sess
	srv.mu.Unlock()
	if sess != nil {
		_ = sess.Close()
	}
	return nil
}

func (p *Pool) oauthServer(name string) (*server, error) {
	srv, ok := p.servers[name]
	if !ok {
		return nil, fmt.Errorf("no MCP server %q", name)
	}
	if srv.cfg.Disabled {
		return nil, fmt.Errorf("MCP server %s is disabled", name)
	}
	if !p.usesOAuth(srv) {
		if srv.cfg.URL == "" {
			return nil, fmt.Errorf("MCP server %s runs a command: OAuth is for url servers", name)
		}
		return nil, fmt.Errorf("MCP server %s sends the Authorization header of its config: OAuth is not used", name)
	}
	return srv, nil
}

// authState is what /mcp shows of srv's authorization; srv.mu held.
func (p *Pool) authState(srv *server) string {
	switch {
	case srv.cfg.URL == "" || p.opts.Auth == nil:
		return AuthNone
	case hasAuthHeader(srv.cfg):
		return AuthHeader
	case srv.loggingIn || srv.login:
		return AuthLoggingIn
	case srv.state == StateNeedsLogin:
		return AuthNeeded
	}
	if rec, err := (mcpauth.Store{Dir: p.opts.Auth.Dir}).Load(srv.name, srv.cfg.URL); err == nil && rec != nil {
		return AuthToken
	}
	return AuthNoToken
}

// needsLogin reports whether a start failed for want of a sign-in.
func needsLogin(err error) bool { return errors.Is(err, mcpauth.ErrLoginNeeded) }

// waitLogin parks srv until the user's Login (or the pool's end, false).
func (p *Pool) waitLogin(srv *server, err error) bool {
	msg := err.Error()
	if i := strings.Index(msg, "MCP server "+srv.name+" needs login"); i >= 0 {
		msg = msg[i:] // the SDK's request summary says nothing to the user
	}
	srv.mu.Lock()
	srv.state, srv.lastErr = StateNeedsLogin, msg
	srv.mu.Unlock()
	p.logf("mcp %s: %s", srv.name, msg)
	p.notify(Notice{Server: srv.name, Kind: NoticeFailed, Text: msg})
	select {
	case <-srv.wake:
		srv.mu.Lock()
		srv.state = StateStarting
		srv.mu.Unlock()
		return true
	case <-p.ctx.Done():
		return false
	}
}
