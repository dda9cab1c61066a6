package acp

import (
	"context"
	"errors"
	"os"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/coder-nvim/coder-nvim/core/agent"
	"github.com/coder-nvim/coder-nvim/core/backend"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/llm"
	sdk "github.com/coder/acp-go-sdk"
)

// session is one ACP session: an engine session plus the pump that turns
// its events, in order, into session/update notifications.
type session struct {
	id   sdk.SessionId
	root string
	srv  *server
	eng  *agent.Session
	be   *backend.Backend
	mcp  []sdk.McpServer // as the client sent them; the engine runs them

	// slot is held by the one prompt whose turn runs; the others wait
	// in waiting, oldest first (queue.go).
	slot    chan struct{}
	waiting []*turn

	mu      sync.Mutex
	queue   []event.Event
	wake    chan struct{}
	stop    chan struct{}
	stopped chan struct{}
	turn    *turn
	mode    string
	calls   map[string]bool       // tool call ids the client has seen
	depth   int                   // hand-overs in progress (pump only)
	blocks  []*handBlock          // their tool calls, innermost last (pump only)
	handed  map[string]*handBlock // finished blocks by call id, until the call ends (pump only)
	// outputs are running calls' streamed output (output.go; pump only).
	outputs map[string]*liveOutput
	// terminals mirror running bash calls into client terminals, their
	// files in termDir (terminal.go; pump only, then close).
	terminals map[string]*terminal
	termDir   string
	// workspaceNotice names the workspace settings ignored as untrusted.
	workspaceNotice string
	models          []string // the endpoint's models (GET /models), if it lists them
	model           string   // the model last announced (pump only)
	msgID           string   // the id of the agent message being streamed (pump only)
	name            string   // the session's title, once found (pump only)
	// lineOpen: the agent text sent last in this turn ended mid-line. A
	// notice then starts on a line of its own: clients such as
	// codecompanion.nvim run messages together, messageId or not.
	lineOpen atomic.Bool
}

// turn is one session/prompt, queued or in flight.
type turn struct {
	// ctx is the turn's own: cancelled by session/cancel, the session's
	// close or the connection's end, never by a later prompt (queue.go).
	ctx       context.Context
	cancelCtx context.CancelFunc
	done      chan result
	stop      chan struct{} // closed by cancel
	stopOnce  sync.Once
	cancelled atomic.Bool
	errs      []string // Error events, shown or returned at the end (pump only)
}

// cancel asks the turn's prompt to stop the engine. The prompt does it
// itself, while it holds the session, so a late cancel never stops the
// next turn.
func (t *turn) cancel() {
	t.cancelled.Store(true)
	t.stopOnce.Do(func() { close(t.stop) })
	t.cancelCtx()
}

type result struct {
	stop sdk.StopReason
	err  error
}

func newSession(srv *server, root string) *session {
	return &session{
		srv:       srv,
		root:      root,
		wake:      make(chan struct{}, 1),
		stop:      make(chan struct{}),
		stopped:   make(chan struct{}),
		slot:      make(chan struct{}, 1),
		calls:     map[string]bool{},
		handed:    map[string]*handBlock{},
		outputs:   map[string]*liveOutput{},
		terminals: map[string]*terminal{},
	}
}

// onEvent is the engine's event sink: it only queues, so the engine never
// waits on the client.
func (s *session) onEvent(ev event.Event) {
	s.mu.Lock()
	s.queue = append(s.queue, ev)
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// pump delivers queued events until close.
func (s *session) pump() {
	defer close(s.stopped)
	for {
		select {
		case <-s.wake:
		case <-s.stop:
			return
		}
		for {
			s.mu.Lock()
			batch := s.queue
			s.queue = nil
			s.mu.Unlock()
			if len(batch) == 0 {
				break
			}
			for _, ev := range coalesce(batch) {
				s.handle(ev)
			}
			s.flushBlocks() // one content update per batch, not per delta
		}
	}
}

// maxChunk bounds the text coalesce merges into one delta.
const maxChunk = 64 << 10

// coalesce merges runs of text deltas of one task into one event each, up
// to maxChunk: a client whose notification queue is bounded (the SDK's
// holds 1,024) is never sent a notification per token faster than it
// reads them — a long streamed answer overflowed it and the connection
// was closed.
func coalesce(batch []event.Event) []event.Event {
	out := batch[:0:0]
	for _, ev := range batch {
		if n := len(out); n > 0 && (ev.Kind == event.AgentMessageDelta || ev.Kind == event.AgentReasoningDelta) {
			last := &out[n-1]
			if last.Kind == ev.Kind && last.Task == ev.Task && last.Conversation == ev.Conversation && len(last.Text)+len(ev.Text) <= maxChunk {
				last.Text += ev.Text
				continue
			}
		}
		out = append(out, ev)
	}
	return out
}

// close stops the engine's task and the pump.
func (s *session) close() {
	s.eng.Close()
	close(s.stop)
	<-s.stopped
	s.closeTerminals()
	if s.termDir != "" {
		os.RemoveAll(s.termDir) // a follower still reading keeps its open file on Unix
	}
	s.finish(result{stop: sdk.StopReasonCancelled}) // a prompt still waiting
	s.cancelQueued()
	s.mu.Lock()
	be := s.be
	s.mu.Unlock()
	be.Close()
}

func (s *session) send(u sdk.SessionUpdate) {
	if c := u.AgentMessageChunk; c != nil && c.Content.Text != nil && c.Content.Text.Text != "" {
		s.lineOpen.Store(!strings.HasSuffix(c.Content.Text.Text, "\n"))
	}
	if err := s.srv.conn.SessionUpdate(s.srv.ctx, sdk.SessionNotification{SessionId: s.id, Update: u}); err != nil {
		s.srv.log.Debug("session/update not sent", "session", s.id, "err", err)
	}
}

func (s *session) currentTurn() *turn {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.turn
}

// finish ends the current turn with r, after every earlier event was sent.
func (s *session) finish(r result) {
	s.mu.Lock()
	t := s.turn
	s.turn = nil
	s.mu.Unlock()
	if t != nil {
		t.done <- r
	}
}

// askPermission puts one approval to the client and answers the engine.
func (s *session) askPermission(t *turn, a *event.Approval) {
	ctx := t.ctx
	if a.Elicitation != nil {
		s.askElicit(ctx, t, a)
		return
	}
	if a.Plan != nil {
		if d, ok := s.askPlan(ctx, t, a); ok {
			s.answer(a.ID, d)
		}
		return
	}
	id, ok := s.choose(ctx, t, permissionRequest(s.id, s.root, a))
	if ok {
		s.answer(a.ID, decision(id))
	}
}

// choose puts one permission request to the client and returns the
// option selected ("" when the request failed: a denial). ok is false
// when the turn was cancelled: the engine resolves the request itself.
func (s *session) choose(ctx context.Context, t *turn, req sdk.RequestPermissionRequest) (sdk.PermissionOptionId, bool) {
	resp, err := s.srv.conn.RequestPermission(ctx, req)
	switch {
	case ctx.Err() != nil:
		return "", false
	case err != nil:
		s.srv.log.Warn("session/request_permission failed; denying", "session", s.id, "err", err)
		return "", true
	case resp.Outcome.Cancelled != nil:
		// A client answers "cancelled" when it cancels the prompt turn.
		t.cancel()
		return "", false
	case resp.Outcome.Selected != nil:
		return resp.Outcome.Selected.OptionId, true
	}
	return "", true
}

func (s *session) answer(id string, d agent.Decision) {
	if err := s.eng.Answer(id, agent.Answer{Decision: d}); err != nil {
		s.srv.log.Debug("approval answer not delivered", "session", s.id, "err", err)
	}
}

// prompt runs one input as the turn t once the turns before it ended, and
// returns its stop reason.
func (s *session) prompt(t *turn, input, typed string, images []llm.Image) (sdk.StopReason, error) {
	if !s.acquire(t) {
		return sdk.StopReasonCancelled, nil // cancelled while it waited
	}
	defer s.releaseSlot()
	if msg := refusedCommand(input); msg != "" {
		s.mu.Lock()
		s.turn = nil
		s.mu.Unlock()
		s.send(sdk.UpdateAgentMessageText(msg))
		return sdk.StopReasonEndTurn, nil
	}
	if _, err := s.eng.SubmitPrompt(input, typed, images); err != nil {
		s.mu.Lock()
		s.turn = nil
		s.mu.Unlock()
		if errors.Is(err, agent.ErrPromptTooLarge) {
			// The message itself says it: clients show the message.
			return "", &sdk.RequestError{Code: codeInvalidParams, Message: err.Error(), Data: map[string]any{"error": err.Error(), "field": "prompt"}}
		}
		return "", sdk.NewInternalError(map[string]any{"error": err.Error()})
	}
	var r result
	select {
	case r = <-t.done:
	case <-t.ctx.Done():
		t.cancelled.Store(true)
		s.eng.Cancel()
		r = <-t.done
	}
	// The engine clears its running task just after the final event; wait
	// for that so the client's next prompt is not refused as busy.
	s.eng.Wait()
	if t.cancelled.Load() {
		return sdk.StopReasonCancelled, nil
	}
	return r.stop, r.err
}

// modelError is the prompt's error when the model call failed: the text
// says what went wrong (HTTP status, network, bad key).
func modelError(msg string) *sdk.RequestError {
	if msg == "" {
		msg = "the model request failed"
	}
	return &sdk.RequestError{Code: -32603, Message: msg, Data: map[string]any{"error": msg}}
}

// refusedCommand explains why input, a command that would swap the engine's
// session behind the client's session id (/new, /resume ID), is not run;
// "" for any other input. The client owns the session list.
func refusedCommand(input string) string {
	f := strings.Fields(input)
	switch {
	case len(f) == 0:
		return ""
	case f[0] == "/new":
		return "/new is not available here: start a new session from the editor instead.\n"
	case f[0] == "/resume" && len(f) > 1:
		return "/resume is not available here: open the saved session from the editor's session list instead (it loads it with session/load).\n"
	}
	return ""
}
