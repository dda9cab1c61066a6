package agent

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/coder-nvim/coder-nvim/core/agent/conv"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/store"
)

// planKind says what a task plan runs.
type planKind int

const (
	planInput    planKind = iota // the user's input: a message, `/` or `!` command
	planTarget                   // a hand-over's target: its input, then the model loop
	planContinue                 // a caller's continuation: the call's result, then the loop
	planExternal                 // a change the user makes through a front end (external.go)
)

// taskPlan is one queued task (seed 000: TaskPlan).
type taskPlan struct {
	id     TaskID
	kind   planKind
	conv   ConversationID // "" is the root
	input  string         // planInput: the line; planTarget: the message text
	typed  string         // planInput: the user's own words in input, when not all of it
	images []llm.Image    // image parts of the input
	turn   TaskID         // the user task whose git turn this belongs to
	depth  int            // nested hand-overs above this task
	// closure, on a continuation, is the interrupting call it closes.
	closure *closure
	// returnsTo is the call waiting for this conversation's answer: set on
	// a target, inherited by its continuation when the target itself hands
	// over. When a task carrying it ends for good, HandBack follows.
	returnsTo *closure
	// snaps is the snapshot state of the chain's user turn (turns.go).
	snaps *turnSnaps
	// fresh, on a target, makes it a user turn of its own (a conversation
	// the user opened runs on its first message): snapshotted for /undo.
	fresh bool
	// external and done: a planExternal's change and where its error goes.
	external *ExternalChange
	done     chan error
}

// trace is the trace of p's events: its chain's user task.
func (p *taskPlan) trace() string {
	if p.turn != "" {
		return string(p.turn)
	}
	return string(p.id)
}

// closure is an interrupting tool call waiting for its result.
type closure struct {
	callID     string
	tool       string // conv_create or conv_send
	arguments  string
	caller     ConversationID
	target     ConversationID
	create     bool
	first      string // conv_create: first_user_message
	firstItems int    // conv_create: first_items_count
	notes      []string
	// Set when the target's work ends (guarded by scheduler.mu).
	answered   bool
	answer     string
	failure    string
	status     string // "" (answered), max_steps, interrupted or error
	statusNote string // why, for the caller's model
	// before is the target's metrics when the hand-over began; stats what
	// its work for this call added (set when it ends).
	before Stats
	stats  *Stats
}

// endStatus says why a target ended without an answer ("" when it
// answered): the caller's model gets the reason, not only an empty
// last_assistant_message.
func endStatus(end event.Event, answer string) (string, string) {
	switch {
	case end.Kind == event.TaskComplete && end.Reason == event.StopMaxSteps:
		return "max_steps", "the conversation stopped at max_steps before it answered; its last message may be a tool call"
	case end.Kind == event.TurnAborted && end.Reason == event.ReasonInterrupted:
		return "interrupted", "the conversation was interrupted before it answered"
	case end.Kind == event.TurnAborted && end.Reason == event.ReasonError:
		return "error", "the conversation failed: " + end.Text
	case end.Kind == event.TaskComplete && answer == "":
		return "error", "the conversation ended without an answer"
	}
	return "", ""
}

// handover is what an interrupting call leaves on its task.
type handover struct {
	closure *closure
	target  *taskPlan
}

// scheduler runs one task at a time from a FIFO of plans (seed 000, seed
// 004 §6). It is the only place that emits task start, completion and
// abort events.
type scheduler struct {
	s *Session

	// mu guards the fields below it. Lock order: sc.mu before s.mu (the
	// worker looks conversations up while it holds sc.mu), so nothing
	// called with s.mu held may take sc.mu: see busy.
	mu          sync.Mutex
	queue       []*taskPlan
	current     *task
	tasks       map[TaskID]*task // registry: the running task by id
	chainDone   chan struct{}    // closed when the running chain ends; nil when idle
	interrupted bool             // the user interrupted the running chain

	active atomic.Bool // chainDone != nil, readable without mu (Status holds s.mu)
}

func newScheduler(s *Session) *scheduler {
	return &scheduler{s: s, tasks: map[TaskID]*task{}}
}

// submit starts a chain with one plan; ErrBusy while one runs.
func (sc *scheduler) submit(p *taskPlan) (chan struct{}, error) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if sc.chainDone != nil {
		return nil, ErrBusy
	}
	done := make(chan struct{})
	sc.chainDone, sc.interrupted = done, false
	sc.active.Store(true)
	sc.queue = []*taskPlan{p}
	go sc.work(done)
	return done, nil
}

// busy reports whether a chain runs. It does not take sc.mu: it is called
// with s.mu held, and the worker takes s.mu under sc.mu.
func (sc *scheduler) busy() bool { return sc.active.Load() }

// wait blocks until the running chain, if any, has ended.
func (sc *scheduler) wait() {
	sc.mu.Lock()
	done := sc.chainDone
	sc.mu.Unlock()
	if done != nil {
		<-done
	}
}

// interrupt is the user's interrupt: the queue is cleared (its pending
// calls answered "interrupted by the user" by the worker) and the running
// task cancelled. It returns the chain's done channel (nil when idle).
func (sc *scheduler) interrupt() chan struct{} {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if sc.chainDone == nil {
		return nil
	}
	sc.interrupted = true
	if sc.current != nil {
		sc.current.cancel()
	}
	return sc.chainDone
}

// dropConversation removes a closed conversation's queued plans: targets
// are dropped (their callers' continuations report the close), its own
// continuations are dropped with it.
func (sc *scheduler) dropConversation(id ConversationID) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	kept := sc.queue[:0]
	for _, p := range sc.queue {
		// A plan carrying the way back to a caller stays, skipped when
		// its turn comes, to hand back there (seed 000 §5: the caller's
		// continuation follows, and front ends un-nest on it).
		if p.conv != id || p.returnsTo != nil {
			kept = append(kept, p)
		}
	}
	sc.queue = kept
}

// waiting reports whether a conversation has a continuation queued: it
// is waiting for a hand-over it started.
func (sc *scheduler) waiting(id ConversationID) bool {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	for _, p := range sc.queue {
		if p.conv == id && p.kind == planContinue {
			return true
		}
	}
	return false
}

// continues reports whether the chain goes on after t: it handed over, or
// a continuation waits for it (and the user did not interrupt).
func (sc *scheduler) continues(t *task) bool {
	if t.handover != nil {
		return true
	}
	sc.mu.Lock()
	defer sc.mu.Unlock()
	return !sc.interrupted && len(sc.queue) > 0
}

// imagesOf are the images of a user input plan.
func imagesOf(p *taskPlan) []llm.Image {
	if p.kind == planInput {
		return p.images
	}
	return nil
}

// running returns the task running in a conversation, if any.
func (sc *scheduler) running(id ConversationID) *task {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	for _, t := range sc.tasks {
		if t.conv.ID == id {
			return t
		}
	}
	return nil
}

// work runs the chain's plans in order until the queue is empty.
func (sc *scheduler) work(done chan struct{}) {
	s := sc.s
	ran := false
	for {
		sc.mu.Lock()
		if sc.interrupted || len(sc.queue) == 0 {
			var end *event.Event
			if !ran && len(sc.queue) > 0 {
				// Interrupted before its first task started: the task
				// still ends, or whoever waits for its end waits forever.
				p := sc.queue[0]
				conv := p.conv
				if conv == "" {
					conv = s.RootConversation()
				}
				end = &event.Event{Kind: event.TurnAborted, Reason: event.ReasonInterrupted, Task: string(p.id), Conversation: string(conv), Trace: p.trace(), Span: string(p.id)}
			}
			sc.finishLocked(done, end, nil)
			return
		}
		ran = true
		p := sc.queue[0]
		sc.queue = sc.queue[1:]
		conv, err := s.conversation(p.conv)
		if err != nil {
			sc.mu.Unlock()
			// Closed while queued: dropped, but for the way back.
			if back := p.returnsTo; back != nil {
				tool := handTool(back)
				tool.Status, tool.Summary = event.ToolFailed, "the conversation was destroyed before it answered"
				s.emit(event.Event{Kind: event.HandBack, Conversation: string(back.caller), Task: string(p.id), Target: string(back.target), Tool: tool, Trace: p.trace(), Span: string(p.id)})
			}
			continue
		}
		ctx, cancel := context.WithCancel(context.Background())
		t := &task{s: s, id: p.id, conv: conv, plan: p, cancel: cancel, done: make(chan struct{}), images: imagesOf(p), ep: s.currentEndpoint()}
		if p.snaps == nil {
			p.snaps = &turnSnaps{}
		}
		t.snaps = p.snaps
		ctx = withTask(ctx, t)
		sc.current, sc.tasks[t.id] = t, t
		sc.mu.Unlock()
		conv.mu.Lock()
		conv.task = t.id
		conv.mu.Unlock()

		t.emit(event.Event{Kind: event.TaskStarted, Text: p.input})
		began := s.opts.Now()
		s.runPlan(ctx, t)
		cancel()
		if t.changed != nil && t.end.Kind != "" {
			t.end.Turn = t.changed
		}
		conv.countTask(t.end, s.opts.Now().Sub(began))
		s.snapshotNow() // the task's record is one durable snapshot before it is reported done
		conv.mu.Lock()
		conv.task = ""
		conv.mu.Unlock()
		if t.end.Kind == event.TaskComplete {
			conv.touch(s.opts.Now())
		}
		close(t.done)

		sc.mu.Lock()
		sc.current = nil
		delete(sc.tasks, t.id)
		var back, late *closure
		ho := t.handover
		switch {
		case ho != nil && !sc.interrupted:
			cont := &taskPlan{id: TaskID(s.newID()), kind: planContinue, conv: conv.ID, turn: p.turn, depth: p.depth, closure: ho.closure, returnsTo: p.returnsTo, snaps: t.snaps}
			ho.target.snaps = t.snaps
			sc.queue = append([]*taskPlan{ho.target, cont}, sc.queue...)
		case ho != nil:
			late = ho.closure // answered once sc.mu is released
		case p.returnsTo != nil:
			back = p.returnsTo
			back.answered, back.answer = true, conv.lastAssistant()
			if t.end.Kind == event.TurnAborted {
				back.failure = t.end.Text
				if back.failure == "" {
					back.failure = "the conversation's task was " + t.end.Reason
				}
			}
			back.status, back.statusNote = endStatus(t.end, back.answer)
			back.stats = new(conv.Stats().Sub(back.before))
		}
		if sc.interrupted || len(sc.queue) == 0 {
			sc.finishLocked(done, &t.end, late)
			return
		}
		sc.mu.Unlock()
		if t.end.Kind != "" {
			s.emit(t.end)
		}
		if ho != nil {
			t.emit(event.Event{Kind: event.HandOver, Target: string(ho.closure.target), Tool: handTool(ho.closure)})
		}
		if back != nil {
			tool := handTool(back)
			if back.status != "" {
				tool.Status, tool.Summary = event.ToolFailed, back.statusNote
			}
			if back.failure != "" {
				tool.Status, tool.Summary = event.ToolFailed, back.failure
			}
			ev := t.with(event.Event{Kind: event.HandBack, Target: string(back.target), Tool: tool})
			ev.Conversation = string(back.caller)
			s.emit(ev)
		}
	}
}

// finishLocked ends the chain; called with mu held, it releases it. After
// a user interrupt the interrupted hand-over's call (late) and the dropped
// plans' calls are answered, without mu (answering writes the journal under
// s.mu and emits); the session accepts input again before the final event
// goes out.
func (sc *scheduler) finishLocked(done chan struct{}, end *event.Event, late *closure) {
	s := sc.s
	var dropped []*taskPlan
	if sc.interrupted {
		dropped, sc.queue = sc.queue, nil
	}
	sc.mu.Unlock()
	if late != nil {
		s.closeCallLater(late, interruptedResult)
	}
	for _, p := range dropped {
		if p.closure != nil {
			s.closeCallLater(p.closure, interruptedResult)
		}
	}
	s.ws.Shells().Release() // no bash waits between turns
	s.saver.flush()
	sc.mu.Lock()
	sc.chainDone, sc.queue = nil, nil
	sc.active.Store(false)
	sc.mu.Unlock()
	st := s.Status()
	s.emit(event.Event{Kind: event.StatusChanged, Conversation: string(s.RootConversation()), Status: &st})
	if end != nil && end.Kind != "" {
		s.emit(*end)
	}
	close(done)
}

// interruptedResult answers calls whose hand-over the user interrupted.
const interruptedResult = "interrupted by the user"

// closeCallLater writes a pending call's result without a continuation
// (the chain was interrupted or the caller is gone).
func (s *Session) closeCallLater(c *closure, text string) {
	conv, err := s.conversation(c.caller)
	if err != nil {
		return
	}
	s.setToolResult(conv, c.callID, "error: "+text)
	info := handTool(c)
	info.Status, info.Summary = event.ToolAborted, text
	s.emit(event.Event{Kind: event.ToolCallEnd, Conversation: string(c.caller), Tool: info})
}

// setToolResult replaces the placeholder tool message of a call, in the
// history and, durably, in the journal.
func (s *Session) setToolResult(c *Conversation, callID, content string) {
	s.mu.Lock()
	var err error
	c.mu.Lock()
	for i := len(c.history) - 1; i >= 0; i-- {
		if m := &c.history[i]; m.Role == llm.RoleTool && m.ToolCallID == callID {
			m.Content = content
			c.times = alignTimes(c.times, len(c.history))
			c.times[i] = s.opts.Now().UnixMilli() // written now: aged from now
			msg := *m
			c.mu.Unlock()
			err = s.recordLocked(store.Record{Kind: store.KindResult, Conv: s.convKeyLocked(c), Call: callID, Msg: &msg})
			c.mu.Lock()
			break
		}
	}
	c.mu.Unlock()
	s.mu.Unlock()
	s.reportSave(err)
}

// handTool describes an interrupting call for events.
func handTool(c *closure) *event.Tool {
	name := event.ToolDisplayName(c.tool)
	return &event.Tool{CallID: c.callID, Name: c.tool, Kind: "think", Title: fmt.Sprintf("%s → conversation %s", name, conv.ShortID(string(c.target))), Arguments: c.arguments}
}
