package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// View is what one conversation sees of the pool: an optional allowlist
// of FQNs and its own call limits, under the pool's session-wide cap.
type View struct {
	pool    *Pool
	allow   map[string]bool // nil: every tool
	lim     *limiter
	servers []*server // the servers it holds, until Release

	mu      sync.Mutex // guards found
	found   []string   // FQNs mcp_tool_search found, in order
	restore sync.Once  // past searches replayed (Offer)

	once sync.Once
}

// View makes a view; it holds the servers it can call until Release.
// allow holds FQNs (NormalizeAllowlist first); nil means every tool.
// Names that no configured server can provide are an error naming them.
func (p *Pool) View(allow []string) (*View, error) {
	if err := p.Check(allow); err != nil {
		return nil, err
	}
	v := &View{pool: p, lim: newLimiter("this conversation", p.opts.Limits.Concurrent, p.opts.Limits.CallsPerMinute, p.opts.Now)}
	if allow != nil {
		v.allow = map[string]bool{}
		for _, n := range allow {
			v.allow[n] = true
		}
	}
	for _, name := range sortedNames(p.servers) {
		srv := p.servers[name]
		if srv.cfg.Disabled || !v.covers(name) {
			continue
		}
		p.hold(srv)
		v.servers = append(v.servers, srv)
	}
	return v, nil
}

// Check reports names of allow that no configured server can provide,
// without making a view.
func (p *Pool) Check(allow []string) error {
	if unknown := p.unknown(allow); len(unknown) > 0 {
		return unknownError(unknown)
	}
	return nil
}

// covers reports whether the view may call some tool of server name.
func (v *View) covers(name string) bool {
	if v.allow == nil {
		return true
	}
	for fqn := range v.allow {
		if strings.HasPrefix(fqn, sanitize(name)+"__") {
			return true
		}
	}
	return false
}

// Release gives the view's servers back: a server no view holds idles
// out after Options.IdleTimeout. Calling it again does nothing.
func (v *View) Release() {
	v.once.Do(func() {
		for _, srv := range v.servers {
			v.pool.release(srv)
		}
	})
}

// unknown lists the names no enabled server defines. A server that has
// not listed its tools yet is given the benefit of the doubt.
func (p *Pool) unknown(names []string) []string {
	var out []string
	for _, n := range names {
		known := false
		for name, srv := range p.servers {
			if !strings.HasPrefix(n, sanitize(name)+"__") || srv.cfg.Disabled {
				continue
			}
			srv.mu.Lock()
			tools, listed := srv.tools, srv.tools != nil || srv.starts > 0
			srv.mu.Unlock()
			if !listed {
				known = true
				break
			}
			for _, t := range tools {
				if FQN(name, t.Name) == n {
					known = true
				}
			}
		}
		if !known {
			out = append(out, n)
		}
	}
	return out
}

// Allows reports whether the view may see and call fqn.
func (v *View) Allows(fqn string) bool { return v.allow == nil || v.allow[fqn] }

// Tools is the catalog as this view sees it, in catalog (FQN) order.
func (v *View) Tools(cat *Catalog) []Tool {
	if cat == nil {
		return nil
	}
	var out []Tool
	for _, t := range cat.Tools {
		if v.Allows(t.FQN) {
			out = append(out, t)
		}
	}
	return out
}

// Call runs one tool of the snapshot cat. Every failure is a Result with
// IsError set and a message for the model; it never hangs on a limit.
func (v *View) Call(ctx context.Context, cat *Catalog, fqn string, args json.RawMessage, maxBytes int) Result {
	t, ok := cat.Lookup(fqn)
	if !ok || !v.Allows(fqn) {
		return errorResult(fmt.Sprintf("MCP tool %s is not offered in this conversation", fqn))
	}
	release, err := v.acquire()
	if err != nil {
		return errorResult(err.Error())
	}
	defer release()
	sess, err := v.pool.liveSession(t.Server)
	if err != nil {
		return errorResult(err.Error())
	}
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	// A server that never answers must not hold the turn: the call is
	// abandoned after CallTimeout (an interrupt still ends it at once).
	callCtx, cancel, timer := withCallTimer(ctx, v.pool.opts.CallTimeout)
	defer cancel()
	defer v.pool.calls.track(t.Server, callCtx, timer)()
	res, err := sess.CallTool(callCtx, &sdk.CallToolParams{Name: t.Name, Arguments: args})
	if err != nil {
		if ctx.Err() == nil && callCtx.Err() != nil {
			return errorResult(fmt.Sprintf("MCP server %s did not answer %s within %s (mcp.call_timeout): the call was abandoned", t.Server, t.Name, v.pool.opts.CallTimeout))
		}
		if ctx.Err() != nil {
			return errorResult("canceled: " + ctx.Err().Error())
		}
		return errorResult(fmt.Sprintf("MCP server %s failed on %s: %v", t.Server, t.Name, err))
	}
	return convert(res, maxBytes)
}

// acquire takes a call under the view's limits and the session's.
func (v *View) acquire() (func(), error) {
	release, err := v.lim.acquire()
	if err != nil {
		return nil, err
	}
	releaseSession, err := v.pool.session.acquire()
	if err != nil {
		release()
		return nil, err
	}
	return func() { releaseSession(); release() }, nil
}

// limiter bounds concurrent calls and calls per sliding minute; over a
// limit it refuses at once.
type limiter struct {
	who    string
	max    int
	perMin int
	now    func() time.Time

	mu     sync.Mutex // guards active, recent
	active int
	recent []time.Time
}

func newLimiter(who string, max, perMin int, now func() time.Time) *limiter {
	return &limiter{who: who, max: max, perMin: perMin, now: now}
}

func (l *limiter) acquire() (func(), error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	keep := l.recent[:0]
	for _, t := range l.recent {
		if now.Sub(t) < time.Minute {
			keep = append(keep, t)
		}
	}
	l.recent = keep
	if l.active >= l.max {
		return nil, fmt.Errorf("MCP call limit: %s already has %d calls running (the limit); wait for them to finish", l.who, l.active)
	}
	if len(l.recent) >= l.perMin {
		wait := time.Minute - now.Sub(l.recent[0])
		return nil, fmt.Errorf("MCP rate limit: %s made %d calls in the last minute (the limit); try again in %s", l.who, len(l.recent), wait.Round(time.Second))
	}
	l.active++
	l.recent = append(l.recent, now)
	var once sync.Once
	return func() {
		once.Do(func() {
			l.mu.Lock()
			l.active--
			l.mu.Unlock()
		})
	}, nil
}
