package mcp

import (
	"errors"
	"fmt"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// run keeps one server up: start, serve until it exits, restart with
// backoff; MaxAttempts failures in a row give up.
func (p *Pool) run(srv *server) {
	defer p.wg.Done()
	failures := 0
	for p.ctx.Err() == nil {
		began := p.opts.Now()
		sess, tools, x, err := p.start(srv)
		if err != nil {
			if p.ctx.Err() != nil {
				return
			}
			if needsLogin(err) {
				if !p.waitLogin(srv, err) {
					return
				}
				failures = 0
				continue
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
		srv.sess, srv.tools, srv.extras, srv.state = sess, tools, x, StateReady
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
	if err := sess.Close(); err != nil {
		p.logf("mcp %s: did not close cleanly: %v", srv.name, err)
		p.notify(Notice{Server: srv.name, Kind: NoticeCloseFailed, Text: "did not close cleanly: " + err.Error()})
	}
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
