// Package outstream passes a running command's output on as it comes: it
// buffers what the command writes and hands it to a send function at most
// once an interval, up to a budget, never splitting a character. It knows
// nothing of events or sessions; it may not import any engine package.
package outstream

import (
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// A bash call in a conversation whose use_streamable_shell_tool is on
// streams its output to front ends as ToolOutputDelta events while it
// runs; the model still gets the capped result at the end.
const (
	// Interval: at most one delta per call this often, so a flood
	// of output is a few events, not one per read.
	Interval = 50 * time.Millisecond
	// Budget is the most a call streams; the rest is only in its
	// result.
	Budget = 1 << 20
)

// Stream is the io.Writer a streaming bash call's output goes
// through (tools.Invocation.Output). Write only buffers, so the command's
// pipe is never held up by a front end; a timer sends what was buffered.
type Stream struct {
	send     func(text string, atLimit bool)
	interval time.Duration
	budget   int

	flushMu sync.Mutex // orders the sends
	mu      sync.Mutex // guards the fields below
	pending []byte
	taken   int  // bytes accepted toward the budget
	full    bool // the budget is spent
	told    bool // the delta at the limit was sent
	timer   *time.Timer
	last    time.Time // of the last send
	closed  bool
}

// New is a stream with the standard interval and budget.
func New(send func(text string, atLimit bool)) *Stream {
	return &Stream{interval: Interval, budget: Budget, send: send}
}

// Write buffers p (up to the budget) and makes sure a send follows within
// the interval. It never fails.
func (o *Stream) Write(p []byte) (int, error) {
	n := len(p)
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed || o.full {
		return n, nil
	}
	if room := o.budget - o.taken; len(p) > room {
		p, o.full = p[:room], true
	}
	o.pending = append(o.pending, p...)
	o.taken += len(p)
	if o.timer == nil {
		wait := min(max(o.interval-time.Since(o.last), 0), o.interval)
		o.timer = time.AfterFunc(wait, func() { o.flush(false) })
	}
	return n, nil
}

// flush sends what is buffered; a character cut by the read waits for its
// other bytes unless this is the last send.
func (o *Stream) flush(final bool) {
	o.flushMu.Lock()
	defer o.flushMu.Unlock()
	o.mu.Lock()
	o.timer = nil
	o.last = time.Now()
	keep := 0
	if !final && !o.full {
		keep = partialRune(o.pending)
	}
	chunk := o.pending[:len(o.pending)-keep]
	text := strings.ToValidUTF8(string(chunk), "\uFFFD")
	o.pending = append(o.pending[:0], o.pending[len(chunk):]...)
	atLimit := o.full && !o.told
	o.told = o.told || atLimit
	o.mu.Unlock()
	if text != "" || atLimit {
		o.send(text, atLimit)
	}
}

// Close sends the rest; nothing is sent after it returns. Nil-safe.
func (o *Stream) Close() {
	if o == nil {
		return
	}
	o.mu.Lock()
	o.closed = true
	if o.timer != nil {
		o.timer.Stop()
	}
	o.mu.Unlock()
	o.flush(true)
}

// partialRune is how many bytes at the end of b begin a UTF-8 character
// that is not complete yet.
func partialRune(b []byte) int {
	for i := 1; i <= min(utf8.UTFMax-1, len(b)); i++ {
		c := b[len(b)-i]
		if c < utf8.RuneSelf {
			return 0 // ASCII: nothing open
		}
		if utf8.RuneStart(c) {
			if utf8.FullRune(b[len(b)-i:]) {
				return 0
			}
			return i
		}
	}
	return 0
}
