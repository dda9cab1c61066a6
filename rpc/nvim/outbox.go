package nvimhost

import (
	"context"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// flushInterval bounds how often streamed text reaches Neovim: at most ~30
// updates per second whatever the delta rate. Other operations (approvals,
// turn boundaries) flush at once.
const flushInterval = 33 * time.Millisecond

// A batch carries at most this much text: Neovim applies one batch in one
// go on its main loop, so a bounded batch keeps it answering other clients
// (and the user) within a few milliseconds. The rest follows in the next
// batches at once; each is its own request, so Neovim serves what queued
// up in between.
const (
	maxBatchBytes = 32 << 10
	maxBatchLines = 500
)

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

// take removes and returns the next batch: everything queued, up to
// maxBatchBytes and maxBatchLines of text. What does not fit stays queued
// and marked urgent, so it follows without waiting for the next tick.
func (o *outbox) take() []op {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.sealText()
	budget := textBudget{bytes: maxBatchBytes, lines: maxBatchLines}
	for i, x := range o.ops {
		if x["t"] != "text" {
			continue
		}
		head, rest := budget.cut(x["c"].([]any))
		if rest == nil {
			continue
		}
		batch := append([]op(nil), o.ops[:i]...)
		if len(head) > 0 {
			batch = append(batch, op{"t": "text", "c": head})
		}
		o.ops = append([]op{{"t": "text", "c": rest}}, o.ops[i+1:]...)
		o.urgent = true
		o.signal()
		return batch
	}
	ops := o.ops
	o.ops, o.urgent = nil, false
	return ops
}

// textBudget is what is left of a batch's text allowance.
type textBudget struct{ bytes, lines int }

// cut splits text chunks ({text, hl} pairs) at the budget: head fits, rest
// (nil when everything fits) follows in a later batch. A cut falls after
// a newline when one is in reach, else on a character boundary; the first
// chunk of an empty batch always yields something, so batches progress.
func (b *textBudget) cut(chunks []any) (head, rest []any) {
	for j, c := range chunks {
		pair := c.([]any)
		s := pair[0].(string)
		// Counting lines only in text that fits the bytes keeps a huge
		// backlog from being rescanned for every batch.
		if len(s) <= b.bytes {
			if n := strings.Count(s, "\n"); n <= b.lines {
				b.bytes -= len(s)
				b.lines -= n
				continue
			}
		}
		k := cutPoint(s, b.bytes, b.lines, b.bytes == maxBatchBytes && b.lines == maxBatchLines)
		head = chunks[:j:j]
		if k > 0 {
			head = append(head, []any{s[:k], pair[1]})
		}
		rest = append([]any{[]any{s[k:], pair[1]}}, chunks[j+1:]...)
		b.bytes, b.lines = 0, 0
		return head, rest
	}
	return chunks, nil
}

// cutPoint is where s is cut to fit maxBytes and maxLines: after the last
// newline in reach, else (whole: nothing else is in the batch, a long line
// must be cut somewhere) at the last character boundary in reach.
func cutPoint(s string, maxBytes, maxLines int, whole bool) int {
	end, lines := 0, 0
	for lines < maxLines {
		i := strings.IndexByte(s[end:], '\n')
		if i < 0 || end+i+1 > maxBytes {
			break
		}
		end += i + 1
		lines++
	}
	if end > 0 || !whole {
		return end
	}
	k := min(maxBytes, len(s))
	for k > 0 && !utf8.RuneStart(s[k]) {
		k--
	}
	if k == 0 {
		_, k = utf8.DecodeRuneInString(s)
	}
	return k
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
