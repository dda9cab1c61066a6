package nvimhost

import (
	"context"
	"sync"
	"time"
)

// flushInterval bounds how often streamed text reaches Neovim: at most ~30
// updates per second whatever the delta rate. Other operations (approvals,
// turn boundaries) flush at once.
const flushInterval = 33 * time.Millisecond

// outbox collects operations for Neovim and merges streamed text, so a
// fast stream becomes a few large appends instead of thousands of calls.
type outbox struct {
	mu     sync.Mutex
	ops    []op
	text   []*chunk // pending text at the end of ops, merged by highlight
	urgent bool
	wake   chan struct{}
}

func newOutbox() *outbox {
	return &outbox{wake: make(chan struct{}, 1)}
}

// addText appends streamed text, merging it with the pending text.
func (o *outbox) addText(hl, s string) {
	o.mu.Lock()
	if n := len(o.text); n > 0 && o.text[n-1].hl == hl {
		o.text[n-1].b.WriteString(s)
	} else {
		c := &chunk{hl: hl}
		c.b.WriteString(s)
		o.text = append(o.text, c)
	}
	o.mu.Unlock()
	o.signal()
}

// add queues an operation after the pending text; urgent ones are sent
// without waiting for the next tick.
func (o *outbox) add(x op, urgent bool) {
	o.mu.Lock()
	o.sealText()
	o.ops = append(o.ops, x)
	if urgent {
		o.urgent = true
	}
	o.mu.Unlock()
	o.signal()
}

// sealText turns the pending text into one text operation. o.mu is held.
func (o *outbox) sealText() {
	if len(o.text) == 0 {
		return
	}
	chunks := make([]any, 0, len(o.text))
	for _, c := range o.text {
		chunks = append(chunks, []any{c.b.String(), c.hl})
	}
	o.ops = append(o.ops, op{"t": "text", "c": chunks})
	o.text = nil
}

func (o *outbox) signal() {
	select {
	case o.wake <- struct{}{}:
	default:
	}
}

// take removes and returns everything queued.
func (o *outbox) take() []op {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.sealText()
	ops := o.ops
	o.ops, o.urgent = nil, false
	return ops
}

func (o *outbox) isUrgent() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.urgent
}

// run sends queued operations with send until ctx ends. send blocks until
// Neovim has applied them, which is the back-pressure: while Neovim is
// busy, text keeps merging here.
func (o *outbox) run(ctx context.Context, send func([]op) error, logf func(string, ...any)) {
	var last time.Time
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-o.wake:
		}
		for !o.isUrgent() {
			wait := time.Until(last.Add(flushInterval))
			if wait <= 0 {
				break
			}
			timer.Reset(wait)
			select {
			case <-ctx.Done():
				timer.Stop()
				return
			case <-timer.C:
			case <-o.wake:
				timer.Stop()
			}
		}
		ops := o.take()
		if len(ops) == 0 {
			continue
		}
		last = time.Now()
		if err := send(ops); err != nil {
			logf("send to neovim: %v", err)
		}
	}
}
