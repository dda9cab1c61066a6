package nvimhost

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/coder-nvim/coder-nvim/core/agent"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/mention"
)

// inputQueue holds what the user sent while a turn ran (as Codex CLI
// does): each is sent, in order, once the session takes input again;
// an interrupt clears it.
type inputQueue struct {
	mu    sync.Mutex
	items []queued
}

// queued is one input waiting: the text and the editor's context items,
// gathered when it was sent.
type queued struct {
	text  string
	items []mention.Item
}

func (q *inputQueue) push(in queued) int {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.items = append(q.items, in)
	return len(q.items)
}

func (q *inputQueue) pushFront(in queued) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.items = append([]queued{in}, q.items...)
}

func (q *inputQueue) pop() (queued, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.items) == 0 {
		return queued{}, false
	}
	text := q.items[0]
	q.items = q.items[1:]
	return text, true
}

func (q *inputQueue) len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.items)
}

func (q *inputQueue) clear() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	n := len(q.items)
	q.items = nil
	return n
}

// queueInput keeps text for after the running turn and says so in the
// transcript.
func (h *host) queueInput(text string, items []mention.Item) {
	n := h.queue.push(queued{text, items})
	line, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
	h.renderMu.Lock()
	if h.render != nil {
		h.render.queued(fmt.Sprintf("⧗ queued (%d): %s — sent when the turn ends; <C-c> clears", n, oneLine(line, 80)))
	}
	h.renderMu.Unlock()
	h.showQueued()
}

// showQueued updates the queue's count in the status line.
func (h *host) showQueued() {
	h.renderMu.Lock()
	defer h.renderMu.Unlock()
	if h.render != nil {
		h.render.queuedN = h.queue.len()
		h.out.add(h.render.statusOp(), true)
	}
}

// sendQueued sends the next queued input once a turn has ended. Run on its
// own goroutine: events are delivered while the engine holds its task.
func (h *host) sendQueued(ev event.Event) {
	if ev.Kind != event.TaskComplete && !(ev.Kind == event.TurnAborted && ev.Reason != event.ReasonReplaced) {
		return
	}
	in, ok := h.queue.pop()
	if !ok {
		return
	}
	go func() {
		defer h.showQueued()
		sess, err := h.session()
		if err != nil {
			return
		}
		h.renderMu.Lock()
		target := h.render.target
		h.renderMu.Unlock()
		if _, _, err := sess.SubmitMentions(h.ctx, agent.ConversationID(target), in.text, in.items); errors.Is(err, agent.ErrBusy) {
			h.queue.pushFront(in) // a hand-over goes on: at its end
		} else if err != nil {
			h.out.add(op{"t": "input_rejected", "text": in.text, "msg": "coder: " + err.Error()}, true)
		}
	}()
}

// dropQueued clears the queue on an interrupt and says so.
func (h *host) dropQueued() {
	if n := h.queue.clear(); n > 0 {
		h.renderMu.Lock()
		if h.render != nil {
			h.render.queued(fmt.Sprintf("⧗ %d queued input(s) dropped (interrupted)", n))
		}
		h.renderMu.Unlock()
		h.showQueued()
	}
}
