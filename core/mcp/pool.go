package mcp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options configure a pool.
type Options struct {
	Servers      map[string]ServerConfig
	Root         string        // base of relative cwds; the default cwd
	StartTimeout time.Duration // connect + initialize + first tools/list; 0: DefaultStartTimeout
	CallTimeout  time.Duration // one tools/call; 0: DefaultCallTimeout
	Limits       Limits
	// Log receives the servers' stderr, one prefixed line at a time, and
	// the pool's own messages. Nil: discarded.
	Log io.Writer
	// ClientName and ClientVersion are sent in initialize.
	ClientName, ClientVersion string
	// OnNotice is told of state changes (started, failed, exited, tools
	// changed), from the pool's goroutines; it must not block.
	OnNotice func(Notice)
	// Backoff is the wait before restart attempt n (from 1); nil: 0.5 s
	// doubling up to 30 s.
	Backoff func(n int) time.Duration
	// MaxAttempts is how many failed starts in a row end the retries;
	// 0: 5.
	MaxAttempts int
	Now         func() time.Time
	// IdleTimeout stops a server no view has used for this long once its
	// last view was released; a new view starts it again. 0: never.
	IdleTimeout time.Duration
}

// Notice kinds.
const (
	NoticeStarted      = "started"
	NoticeFailed       = "failed"
	NoticeExited       = "exited"
	NoticeToolsChanged = "tools_changed"
)

// Notice is one change the pool reports.
type Notice struct {
	Server string
	Kind   string
	Text   string
}

// Server states.
const (
	StateStarting   = "starting"
	StateReady      = "ready"
	StateRestarting = "restarting"
	StateFailed     = "failed"
	StateDisabled   = "disabled"
	StateStopped    = "stopped"
	StateIdle       = "idle" // stopped while no view uses it; a new view starts it
)

// ServerStatus is what /tools and :checkhealth show of one server.
type ServerStatus struct {
	Name      string
	Transport string // stdio or http
	State     string
	Tools     int
	Starts    int
	LastError string
	Trusted   bool
	Views     int // live conversation views that can call it
}

type server struct {
	name string
	cfg  ServerConfig

	mu      sync.Mutex // guards the fields below
	state   string
	sess    *sdk.ClientSession
	tools   []*sdk.Tool // last listed; kept through an outage
	lastErr string
	starts  int
	stderr  *tailWriter

	refs   int         // live views that can call it
	idle   *time.Timer // running while refs is 0 after a release
	idling bool        // the session is being closed for idleness
	wake   chan struct{}
}

// Pool owns the session's MCP servers.
type Pool struct {
	opts    Options
	servers map[string]*server // fixed at New
	session *limiter           // the session-wide cap
	logMu   sync.Mutex
	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup

	mu        sync.Mutex // guards committed, dirty, closed
	committed *Catalog
	dirty     bool
	closed    bool
}

// New starts every enabled server in the background and returns at once:
// a slow or failing server never holds up its caller. Servers must be
// valid (ValidateServers).
func New(opts Options) *Pool {
	if opts.CallTimeout <= 0 {
		opts.CallTimeout = DefaultCallTimeout
	}
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = DefaultStartTimeout
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Backoff == nil {
		opts.Backoff = func(n int) time.Duration {
			d := 500 * time.Millisecond << min(n-1, 6)
			return min(d, 30*time.Second)
		}
	}
	if opts.MaxAttempts <= 0 {
		opts.MaxAttempts = 5
	}
	if opts.ClientName == "" {
		opts.ClientName = "coder-nvim"
	}
	if opts.ClientVersion == "" {
		opts.ClientVersion = "dev"
	}
	opts.Limits = opts.Limits.WithDefaults()
	ctx, cancel := context.WithCancel(context.Background())
	p := &Pool{
		opts:      opts,
		servers:   map[string]*server{},
		session:   newLimiter("this session", opts.Limits.SessionConcurrent, opts.Limits.SessionCallsPerMinute, opts.Now),
		ctx:       ctx,
		cancel:    cancel,
		committed: buildCatalog(nil, nil),
	}
	for _, name := range sortedNames(opts.Servers) {
		cfg := opts.Servers[name]
		srv := &server{name: name, cfg: cfg, state: StateStarting, stderr: &tailWriter{p: p, prefix: "mcp " + name + ": "}, wake: make(chan struct{}, 1)}
		p.servers[name] = srv
		if cfg.Disabled {
			srv.state = StateDisabled
			continue
		}
		p.wg.Add(1)
		go p.run(srv)
	}
	return p
}

// Close stops every server and waits for their processes to end.
func (p *Pool) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	p.mu.Unlock()
	p.cancel()
	for _, srv := range p.servers {
		srv.mu.Lock()
		if srv.idle != nil {
			srv.idle.Stop()
		}
		srv.mu.Unlock()
	}
	var closing sync.WaitGroup
	for _, srv := range p.servers {
		srv.mu.Lock()
		sess := srv.sess
		srv.mu.Unlock()
		if sess != nil {
			closing.Add(1)
			go func() { // in parallel: a stdio server may take seconds to exit
				defer closing.Done()
				_ = sess.Close()
			}()
		}
	}
	closing.Wait()
	p.wg.Wait()
	for _, srv := range p.servers {
		srv.mu.Lock()
		if srv.state != StateDisabled {
			srv.state = StateStopped
		}
		srv.mu.Unlock()
	}
	return nil
}

// run keeps one server up: start, serve until it exits, restart with
// backoff; MaxAttempts failures in a row give up.
func (p *Pool) run(srv *server) {
	defer p.wg.Done()
	failures := 0
	for p.ctx.Err() == nil {
		began := p.opts.Now()
		sess, tools, err := p.start(srv)
		if err != nil {
			if p.ctx.Err() != nil {
				return
			}
			failures++
			msg := err.Error()
			if tail := srv.stderr.last(); tail != "" {
				msg += " (stderr: " + tail + ")"
			}
			giveUp := failures >= p.opts.MaxAttempts
			srv.mu.Lock()
			srv.lastErr = msg
			srv.state = StateRestarting
			if giveUp {
				srv.state = StateFailed
			}
			srv.mu.Unlock()
			p.logf("mcp %s: %s", srv.name, msg)
			p.notify(Notice{Server: srv.name, Kind: NoticeFailed, Text: msg})
			if giveUp || !p.sleep(p.opts.Backoff(failures)) {
				return
			}
			continue
		}
		srv.mu.Lock()
		if p.ctx.Err() != nil {
			// Close cancelled before it took srv.mu and so did not see
			// this session: it is ours to close, or Close waits forever.
			srv.mu.Unlock()
			_ = sess.Close()
			return
		}
		srv.sess, srv.tools, srv.state = sess, tools, StateReady
		srv.starts++
		srv.mu.Unlock()
		p.markDirty()
		p.notify(Notice{Server: srv.name, Kind: NoticeStarted, Text: fmt.Sprintf("%d tools", len(tools))})

		werr := sess.Wait()
		_ = sess.Close()
		srv.mu.Lock()
		srv.sess = nil
		idled := srv.idling
		srv.idling = false
		if idled {
			srv.state = StateIdle
		}
		srv.mu.Unlock()
		if p.ctx.Err() != nil {
			return
		}
		if idled {
			p.logf("mcp %s: idle for %s with no conversation using it: stopped", srv.name, p.opts.IdleTimeout)
			select {
			case <-srv.wake:
				failures = 0
				srv.mu.Lock()
				srv.state = StateStarting
				srv.mu.Unlock()
				continue
			case <-p.ctx.Done():
				return
			}
		}
		if p.opts.Now().Sub(began) > time.Minute {
			failures = 0 // it ran a while: start the backoff over
		}
		failures++
		msg := "the server exited"
		if werr != nil && !errors.Is(werr, sdk.ErrConnectionClosed) {
			msg += ": " + werr.Error()
		}
		if tail := srv.stderr.last(); tail != "" {
			msg += " (stderr: " + tail + ")"
		}
		srv.mu.Lock()
		srv.lastErr, srv.state = msg, StateRestarting
		srv.mu.Unlock()
		p.logf("mcp %s: %s; restarting", srv.name, msg)
		p.notify(Notice{Server: srv.name, Kind: NoticeExited, Text: msg})
		if failures >= p.opts.MaxAttempts {
			srv.mu.Lock()
			srv.state = StateFailed
			srv.mu.Unlock()
			return
		}
		if !p.sleep(p.opts.Backoff(failures)) {
			return
		}
	}
}

// hold counts one more view on srv; an idle server is woken.
func (p *Pool) hold(srv *server) {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	srv.refs++
	if srv.idle != nil {
		srv.idle.Stop()
		srv.idle = nil
	}
	srv.idling = false
	if srv.state == StateIdle {
		select {
		case srv.wake <- struct{}{}:
		default:
		}
	}
}

// release counts one view less on srv; the last one starts the idle
// timer.
func (p *Pool) release(srv *server) {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if srv.refs--; srv.refs > 0 || p.opts.IdleTimeout <= 0 {
		return
	}
	srv.idle = time.AfterFunc(p.opts.IdleTimeout, func() { p.idleOut(srv) })
}

// idleOut stops srv if no view took it up again meanwhile; its run loop
// then waits for a view to wake it.
func (p *Pool) idleOut(srv *server) {
	srv.mu.Lock()
	if srv.refs > 0 || srv.sess == nil || p.ctx.Err() != nil {
		srv.mu.Unlock()
		return
	}
	srv.idling = true
	sess := srv.sess
	srv.mu.Unlock()
	_ = sess.Close()
}

func (p *Pool) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-p.ctx.Done():
		return false
	}
}

// start connects (initialize, initialized, version negotiation are the
// SDK's) and lists the tools, all within StartTimeout.
func (p *Pool) start(srv *server) (*sdk.ClientSession, []*sdk.Tool, error) {
	ctx, cancel := context.WithTimeout(p.ctx, p.opts.StartTimeout)
	defer cancel()
	client := sdk.NewClient(&sdk.Implementation{Name: p.opts.ClientName, Version: p.opts.ClientVersion}, &sdk.ClientOptions{
		Capabilities: &sdk.ClientCapabilities{},
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
			go p.relist(srv)
		},
	})
	var transport sdk.Transport
	var cmd *exec.Cmd
	if srv.cfg.URL != "" {
		transport = &sdk.StreamableClientTransport{
			Endpoint:   srv.cfg.URL,
			HTTPClient: &http.Client{Transport: headerTransport{headers: srv.cfg.Headers, base: http.DefaultTransport}},
			MaxRetries: -1,
		}
	} else {
		cmd = exec.Command(srv.cfg.Command, srv.cfg.Args...)
		cmd.Dir = p.opts.Root
		if srv.cfg.Cwd != "" {
			cmd.Dir = srv.cfg.Cwd
			if !filepath.IsAbs(cmd.Dir) {
				cmd.Dir = filepath.Join(p.opts.Root, cmd.Dir)
			}
		}
		cmd.Env = os.Environ()
		for _, k := range sortedNames(srv.cfg.Env) {
			cmd.Env = append(cmd.Env, k+"="+srv.cfg.Env[k])
		}
		cmd.Stderr = srv.stderr
		// A child that keeps stderr open must not keep Wait (and Close)
		// waiting once the server itself is gone.
		cmd.WaitDelay = 3 * time.Second
		ownGroup(cmd)
		transport = &sdk.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}
	}
	sess, err := client.Connect(ctx, transport, nil)
	if err != nil {
		killGroup(cmd)
		return nil, nil, startError(ctx, p.opts.StartTimeout, err)
	}
	var tools []*sdk.Tool
	for t, err := range sess.Tools(ctx, nil) {
		if err != nil {
			_ = sess.Close()
			killGroup(cmd)
			return nil, nil, startError(ctx, p.opts.StartTimeout, fmt.Errorf("tools/list: %w", err))
		}
		tools = append(tools, t)
	}
	if cmd != nil {
		// When the server ends, so do the processes it started (npx
		// starts node): nothing outlives the pool.
		go func() {
			_ = sess.Wait()
			killGroup(cmd)
		}()
	}
	return sess, tools, nil
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
	srv.mu.Lock()
	sess := srv.sess
	srv.mu.Unlock()
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

func (p *Pool) markDirty() {
	p.mu.Lock()
	p.dirty = true
	p.mu.Unlock()
}

func (p *Pool) notify(n Notice) {
	if p.opts.OnNotice != nil {
		p.opts.OnNotice(n)
	}
}

func (p *Pool) logf(format string, args ...any) {
	if p.opts.Log == nil {
		return
	}
	p.logMu.Lock()
	defer p.logMu.Unlock()
	fmt.Fprintf(p.opts.Log, format+"\n", args...)
}

// Catalog is the snapshot in force: it changes only in Advance.
func (p *Pool) Catalog() *Catalog {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.committed
}

// Advance is the turn boundary: servers that started, exited with a new
// list or announced tools/list_changed since the last call are folded
// into a new snapshot. changed is false when the tools are as before.
func (p *Pool) Advance() (cat *Catalog, changed bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.dirty {
		return p.committed, false
	}
	p.dirty = false
	lists := map[string][]*sdk.Tool{}
	trusted := map[string]bool{}
	for name, srv := range p.servers {
		srv.mu.Lock()
		if srv.tools != nil {
			lists[name] = srv.tools
		}
		srv.mu.Unlock()
		trusted[name] = srv.cfg.Trusted
	}
	next := buildCatalog(lists, trusted)
	if next.equal(p.committed) {
		return p.committed, false
	}
	p.committed = next
	return next, true
}

// WaitStarted waits until no server is still in its first start, or ctx
// ends. The agent uses it, bounded, before its first turn.
func (p *Pool) WaitStarted(ctx context.Context) {
	t := time.NewTicker(20 * time.Millisecond)
	defer t.Stop()
	for {
		starting := false
		for _, srv := range p.servers {
			srv.mu.Lock()
			if srv.state == StateStarting {
				starting = true
			}
			srv.mu.Unlock()
		}
		if !starting {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Status describes every configured server, by name.
func (p *Pool) Status() []ServerStatus {
	var out []ServerStatus
	for _, name := range sortedNames(p.servers) {
		srv := p.servers[name]
		srv.mu.Lock()
		st := ServerStatus{Name: name, Transport: "stdio", State: srv.state, Tools: len(srv.tools), Starts: srv.starts, LastError: srv.lastErr, Trusted: srv.cfg.Trusted, Views: srv.refs}
		srv.mu.Unlock()
		if srv.cfg.URL != "" {
			st.Transport = "http"
		}
		out = append(out, st)
	}
	return out
}

func (p *Pool) liveSession(name string) (*sdk.ClientSession, error) {
	srv, ok := p.servers[name]
	if !ok {
		return nil, fmt.Errorf("no MCP server %q", name)
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if srv.sess != nil {
		return srv.sess, nil
	}
	why := srv.state
	if srv.lastErr != "" {
		why += " after: " + srv.lastErr
	}
	switch srv.state {
	case StateRestarting, StateStarting:
		return nil, fmt.Errorf("MCP server %s is not available right now (%s); it is being restarted, try again shortly", name, why)
	}
	return nil, fmt.Errorf("MCP server %s is not available (%s)", name, why)
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
