package mcp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/coder-nvim/coder-nvim/core/proc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// start connects (initialize, initialized, version negotiation are the
// SDK's) and lists the tools, all within StartTimeout.
func (p *Pool) start(srv *server) (*sdk.ClientSession, []*sdk.Tool, extras, error) {
	oauth, timeout, authDone, err := p.oauthHandler(srv)
	if err != nil {
		return nil, nil, extras{}, err
	}
	defer authDone()
	ctx, cancel := context.WithTimeout(p.ctx, timeout)
	defer cancel()
	copts := &sdk.ClientOptions{
		Capabilities: &sdk.ClientCapabilities{},
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
			go p.relist(srv)
		},
		PromptListChangedHandler: func(context.Context, *sdk.PromptListChangedRequest) {
			go p.relistExtras(srv)
		},
		ResourceListChangedHandler: func(context.Context, *sdk.ResourceListChangedRequest) {
			go p.relistExtras(srv)
		},
	}
	if p.opts.Elicit != nil {
		copts.Capabilities.Elicitation = elicitCapabilities()
		copts.ElicitationHandler = p.elicitHandler(srv)
	}
	client := sdk.NewClient(&sdk.Implementation{Name: p.opts.ClientName, Version: p.opts.ClientVersion}, copts)
	var transport sdk.Transport
	var cmd *exec.Cmd
	if srv.cfg.URL != "" {
		transport = &sdk.StreamableClientTransport{
			Endpoint:   srv.cfg.URL,
			HTTPClient: &http.Client{Transport: headerTransport{headers: srv.cfg.Headers, base: http.DefaultTransport}},
			MaxRetries: -1,
		}
		if oauth != nil {
			transport.(*sdk.StreamableClientTransport).OAuthHandler = oauth
		}
	} else {
		cmd = p.command(srv.cfg)
		cmd.Stderr = srv.stderr
		// A child that keeps stderr open must not keep Wait (and Close)
		// waiting once the server itself is gone.
		cmd.WaitDelay = 3 * time.Second
		proc.OwnGroup(cmd)
		transport = &sdk.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}
	}
	sess, err := client.Connect(ctx, transport, nil)
	if err != nil {
		proc.KillGroupOf(cmd)
		return nil, nil, extras{}, startError(ctx, timeout, err)
	}
	var tools []*sdk.Tool
	for t, err := range sess.Tools(ctx, nil) {
		if err != nil {
			_ = sess.Close()
			proc.KillGroupOf(cmd)
			return nil, nil, extras{}, startError(ctx, timeout, fmt.Errorf("tools/list: %w", err))
		}
		tools = append(tools, t)
	}
	x := p.listExtras(ctx, srv.name, sess)
	if cmd != nil {
		// When the server ends, so do the processes it started (npx
		// starts node): nothing outlives the pool.
		go func() {
			_ = sess.Wait()
			proc.KillGroupOf(cmd)
		}()
	}
	return sess, tools, x, nil
}

func startError(ctx context.Context, timeout time.Duration, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("did not start within %s: %w", timeout, err)
	}
	return fmt.Errorf("start: %w", err)
}

// relist applies notifications/tools/list_changed to the server's live
// list; the catalog takes it at the next turn boundary (Advance).
func (p *Pool) relist(srv *server) {
	sess := srv.session()
	if sess == nil {
		return
	}
	ctx, cancel := context.WithTimeout(p.ctx, p.opts.StartTimeout)
	defer cancel()
	var tools []*sdk.Tool
	for t, err := range sess.Tools(ctx, nil) {
		if err != nil {
			p.logf("mcp %s: tools/list after list_changed: %v", srv.name, err)
			return
		}
		tools = append(tools, t)
	}
	srv.mu.Lock()
	if srv.sess == sess {
		srv.tools = tools
	}
	srv.mu.Unlock()
	p.markDirty()
	p.notify(Notice{Server: srv.name, Kind: NoticeToolsChanged, Text: fmt.Sprintf("%d tools", len(tools))})
}

// headerTransport adds configured headers (e.g. Authorization) to every
// request of an HTTP server.
type headerTransport struct {
	headers map[string]string
	base    http.RoundTripper
}

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if len(h.headers) > 0 {
		r = r.Clone(r.Context())
		for k, v := range h.headers {
			r.Header.Set(k, v)
		}
	}
	return h.base.RoundTrip(r)
}

// tailWriter copies a server's stderr to the pool log, line by line with
// the server's name, and keeps the last line for error messages.
type tailWriter struct {
	p      *Pool
	prefix string
	mu     sync.Mutex
	buf    []byte
	lines  []string
}

func (w *tailWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	w.buf = append(w.buf, b...)
	var out []string
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		line := strings.TrimRight(string(w.buf[:i]), "\r")
		w.buf = w.buf[i+1:]
		if strings.TrimSpace(line) == "" {
			continue
		}
		out = append(out, line)
		w.lines = append(w.lines, line)
		if len(w.lines) > 5 {
			w.lines = w.lines[1:]
		}
	}
	if len(w.buf) > 8<<10 {
		w.buf = w.buf[:0] // a line without end: do not grow without bound
	}
	w.mu.Unlock()
	for _, l := range out {
		w.p.logf("%s%s", w.prefix, l)
	}
	return len(b), nil
}

func (w *tailWriter) last() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.lines) == 0 {
		return ""
	}
	return truncate(w.lines[len(w.lines)-1], 200)
}
