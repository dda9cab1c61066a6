package provider

import (
	"errors"
	"fmt"
	"io"
	"time"
)

// errIdle is the cancel cause of an attempt that received nothing for the
// idle timeout.
var errIdle = errors.New("stream idle timeout")

// idleWatch cancels an attempt when the server keeps it waiting: before the
// response headers arrive, and then while a read of the body waits for
// data. Time spent by the caller between reads does not count, so a slow
// front end never looks like a silent server.
type idleWatch struct {
	d     time.Duration
	timer *time.Timer
}

// newIdleWatch arms a watch that calls fire after d without progress.
func newIdleWatch(d time.Duration, fire func()) *idleWatch {
	return &idleWatch{d: d, timer: time.AfterFunc(d, fire)}
}

// reading re-arms the watch: a body read starts waiting.
func (w *idleWatch) reading() { w.timer.Reset(w.d) }

// stop pauses the watch: a read returned, or the attempt is over.
func (w *idleWatch) stop() { w.timer.Stop() }

// watchedBody is a response body whose reads keep an idleWatch informed.
type watchedBody struct {
	io.ReadCloser
	w *idleWatch
}

func (b *watchedBody) Read(p []byte) (int, error) {
	b.w.reading()
	n, err := b.ReadCloser.Read(p)
	b.w.stop()
	return n, err
}

// idleError is the failure of an attempt cut by the idle watch. headers
// tells whether the server had answered at all.
func (p *OpenAI) idleError(headers bool) *Error {
	what := fmt.Sprintf("provider: no response from %s for %s", p.baseURL, seconds(p.opts.IdleTimeout))
	if headers {
		what = fmt.Sprintf("provider: the server stopped sending for %s", seconds(p.opts.IdleTimeout))
	}
	return &Error{
		Message:   what + " (stream_idle_timeout); the server may be overloaded — try again later, or raise stream_idle_timeout",
		Retryable: true,
		Err:       errIdle,
		idle:      true,
	}
}

// seconds formats d the way people say it: "120 s", "1.5 s".
func seconds(d time.Duration) string {
	if d%time.Second == 0 {
		return fmt.Sprintf("%d s", d/time.Second)
	}
	return fmt.Sprintf("%.1f s", d.Seconds())
}
