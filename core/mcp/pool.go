package mcp

import (
	"context"
	"errors"
	"fmt"
	"github.com/coder-nvim/coder-nvim/core/hostpath"
	"io"
	"os"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options configure a pool.
type Options struct {
	Servers map[string]ServerConfig
	Root    string // the workspace: base of relative cwds, what ${workspace} and a "." argument name
	// Dir is the neutral directory a server without "cwd" starts in (the
	// user's config directory): never the workspace, so that no npx or
	// python -m resolves a module the repository ships. One that does
	// not exist or lies in Root gives way to the temp directory, then /.
	Dir string
	// Programs: the command is looked up on its cleaned PATH, which the
	// server inherits (hostpath).
	Programs     hostpath.Programs
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
	// Auth enables OAuth for URL servers without an Authorization
	// header (auth.go); nil: none.
	Auth *AuthOptions
	// Elicit puts a server's elicitation/create to the user (elicit.go);
	// nil: the client does not offer elicitation.
	Elicit ElicitFunc
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
	// NoticePromptsChanged: a server's prompts were listed again.
	NoticePromptsChanged = "prompts_changed"
	// NoticeCloseFailed: a session the pool closed while idle did not
	// close cleanly (Close returns the same failures).
	NoticeCloseFailed = "close_failed"
)

// Notice is one change the pool reports.
type Notice struct {
	Server string
	Kind   string
	Text   string
	// Login: the notice ends a sign-in the user started (Command).
	Login bool
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
	Prompts   int
	Resources int // resources and resource templates
	Starts    int
	LastError string
	Trusted   bool
	Views     int    // live conversation views that can call it
	Auth      string // AuthNone, AuthHeader, AuthToken, AuthNeeded, AuthLoggingIn, AuthNoToken
}

type server struct {
	name string
	cfg  ServerConfig

	mu      sync.Mutex // guards the fields below
	state   string
	sess    *sdk.ClientSession
	tools   []*sdk.Tool // last listed; kept through an outage
	extras  extras      // prompts and resources, last listed
	lastErr string
	starts  int
	stderr  *tailWriter

	refs   int         // live views that can call it
	idle   *time.Timer // running while refs is 0 after a release
	idling bool        // the session is being closed for idleness
	wake   chan struct{}

	login     bool // the next start signs in (Pool.Login)
	loggingIn bool // a start with the sign-in runs
}

// session is the server's live session, nil while it is down.
func (srv *server) session() *sdk.ClientSession {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	return srv.sess
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

	calls     calls      // tool calls in flight, for elicitation
	mu        sync.Mutex // guards committed, dirty, closed
	committed *Catalog
	dirty     bool
	closed    bool

	loginMu    sync.Mutex      // guards userLogins
	userLogins map[string]bool // sign-ins the user started, until they end (Command)
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
	if opts.Programs.Path == "" && opts.Programs.Dropped == nil {
		opts.Programs = hostpath.Resolve(os.Getenv("PATH"), opts.Root)
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

// Close stops every server and waits for their processes to end. It
// returns the servers whose session did not close cleanly (seed 004 §14:
// a failed release is warned about).
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
	var errMu sync.Mutex
	var errs []error
	for _, srv := range p.servers {
		srv.mu.Lock()
		sess := srv.sess
		srv.mu.Unlock()
		if sess != nil {
			closing.Add(1)
			go func() { // in parallel: a stdio server may take seconds to exit
				defer closing.Done()
				if err := closeError(srv.name, sess.Close()); err != nil {
					errMu.Lock()
					errs = append(errs, err)
					errMu.Unlock()
				}
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
	return errors.Join(errs...)
}

// closeError is a session's failed close, named; nil when it closed.
func closeError(server string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("MCP server %s did not close cleanly: %w", server, err)
}

func (p *Pool) markDirty() {
	p.mu.Lock()
	p.dirty = true
	p.mu.Unlock()
}

func (p *Pool) notify(n Notice) {
	p.markLogin(&n)
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

// WaitStarted waits until no server is still in its first start, ctx
// ends or max (when > 0) has passed. The agent uses it, bounded, before
// its first turn and for a prompt or resource typed as the first line.
func (p *Pool) WaitStarted(ctx context.Context, max time.Duration) {
	if max > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, max)
		defer cancel()
	}
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
		st := ServerStatus{Name: name, Transport: "stdio", State: srv.state, Tools: len(srv.tools), Prompts: len(srv.extras.prompts), Resources: len(srv.extras.resources) + len(srv.extras.templates), Starts: srv.starts, LastError: srv.lastErr, Trusted: srv.cfg.Trusted, Views: srv.refs, Auth: p.authState(srv)}
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
