package acp

import (
	"context"
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

	promptMu sync.Mutex // one prompt turn at a time

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
	// workspaceNotice names the workspace settings ignored as untrusted.
	workspaceNotice string
	models          []string // the endpoint's models (GET /models), if it lists them
	model           string   // the model last announced (pump only)
}

// handBlock is a hand-over shown as a think tool call: the target's text
// streams into its content (seed 000 over ACP).
type handBlock struct {
	callID string
	target string
	text   strings.Builder
	dirty  bool // text not yet sent
}

// turn is one session/prompt in flight.
type turn struct {
	ctx       context.Context // the prompt's; cancelled by session/cancel
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
}

type result struct {
	stop sdk.StopReason
	err  error
}

func newSession(srv *server, root string) *session {
	return &session{
		srv:     srv,
		root:    root,
		wake:    make(chan struct{}, 1),
		stop:    make(chan struct{}),
		stopped: make(chan struct{}),
		calls:   map[string]bool{},
		handed:  map[string]*handBlock{},
		outputs: map[string]*liveOutput{},
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
			for _, ev := range batch {
				s.handle(ev)
			}
			s.flushBlocks() // one content update per batch, not per delta
		}
	}
}

// close stops the engine's task and the pump.
func (s *session) close() {
	s.eng.Close()
	close(s.stop)
	<-s.stopped
	s.finish(result{stop: sdk.StopReasonCancelled}) // a prompt still waiting
	s.mu.Lock()
	be := s.be
	s.mu.Unlock()
	be.Close()
}

func (s *session) send(u sdk.SessionUpdate) {
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

// handle maps one engine event onto the protocol. It runs on the pump.
func (s *session) handle(ev event.Event) {
	// Hand-overs (core/event): the prompt goes on through
	// TurnAborted(Replaced) and the target's own end; the target's text
	// streams as thought.
	if ev.Kind != event.AgentMessageDelta && ev.Kind != event.ToolOutputDelta {
		s.flushBlocks() // the streamed text goes out before what follows it
	}
	switch {
	case ev.Kind == event.HandOver:
		s.depth++
		s.handOver(ev)
		return
	case ev.Kind == event.HandBack:
		s.depth = max(0, s.depth-1)
		if n := len(s.blocks); n > 0 {
			b := s.blocks[n-1]
			s.blocks = s.blocks[:n-1]
			s.handed[b.callID] = b
		}
		return
	case ev.Kind == event.TurnAborted && ev.Reason == event.ReasonReplaced:
		return
	case s.depth > 0 && (ev.Kind == event.TaskComplete || ev.Kind == event.TurnAborted && ev.Reason != event.ReasonInterrupted):
		return
	case s.depth > 0 && ev.Kind == event.AgentMessageDelta:
		s.blockText(ev.Text)
		return
	case s.depth > 0 && ev.Kind == event.Error:
		s.blockText("\nError in conversation " + ev.Conversation + ": " + ev.Text + "\n")
		s.flushBlocks()
		return
	case ev.Kind == event.TurnAborted:
		s.depth, s.blocks = 0, nil
	}
	switch ev.Kind {
	case event.AgentMessageDelta:
		s.send(sdk.UpdateAgentMessageText(ev.Text))
	case event.AgentReasoningDelta:
		s.send(sdk.UpdateAgentThoughtText(ev.Text))
	case event.CommandOutput:
		text := ev.Text
		if ev.Detail != "" {
			// ACP has no expandable output: the full diff follows.
			text += "\n\n```diff\n" + strings.TrimRight(ev.Detail, "\n") + "\n```\n"
		}
		s.send(sdk.UpdateAgentMessageText(text))
	case event.Notice:
		// A note about the turn (a todo list started, compaction, a
		// resume in plan mode), not part of the answer a client keeps.
		s.send(sdk.UpdateAgentThoughtText(ev.Text + "\n\n"))
	case event.Retrying:
		// A thought, not the answer: it says why nothing arrives yet and
		// must not become part of the text a client keeps as the reply.
		s.send(sdk.UpdateAgentThoughtText(ev.Text + "\n\n"))
	case event.Error:
		// Held until the end: a failed model turn returns it as the
		// prompt's error; a command shows it as its answer.
		if t := s.currentTurn(); t != nil {
			t.errs = append(t.errs, ev.Text)
		} else {
			s.send(sdk.UpdateAgentMessageText("Error: " + ev.Text + "\n"))
		}
	case event.ToolCallBegin:
		if ev.Tool == nil {
			return
		}
		s.calls[ev.Tool.CallID] = true
		s.send(toolStart(s.root, ev.Tool))
	case event.ToolOutputDelta:
		if ev.Tool != nil {
			s.toolOutput(ev.Tool.CallID, ev.Text, ev.Reason == event.ReasonOutputLimit)
		}
	case event.ToolCallEnd:
		if ev.Tool == nil {
			return
		}
		delete(s.outputs, ev.Tool.CallID) // the end's content replaces it
		if !s.calls[ev.Tool.CallID] {
			// Calls skipped by an interrupt end without a beginning.
			s.send(toolStart(s.root, ev.Tool))
		}
		delete(s.calls, ev.Tool.CallID)
		u := toolEnd(s.root, ev.Tool)
		if b := s.handed[ev.Tool.CallID]; b != nil && u.ToolCallUpdate != nil {
			// The content stays what the target wrote, not only its
			// last answer.
			delete(s.handed, ev.Tool.CallID)
			if b.text.Len() > 0 && ev.Tool.Status == event.ToolCompleted {
				u.ToolCallUpdate.Content = textContent(b.text.String())
			}
			u.ToolCallUpdate.Meta = map[string]any{"conversation_id": b.target}
		}
		s.send(u)
	case event.ApprovalRequested:
		if ev.Approval == nil {
			return
		}
		t := s.currentTurn()
		if t == nil {
			s.answer(ev.Approval.ID, agent.Deny) // nobody waits for this turn
			return
		}
		go s.askPermission(t, ev.Approval)
	case event.ApprovalResolved:
		if ev.Approval != nil && (ev.Reason == string(agent.AllowOnce) || ev.Reason == string(agent.AllowAlways)) {
			s.send(sdk.SessionUpdate{ToolCallUpdate: &sdk.SessionToolCallUpdate{
				ToolCallId: sdk.ToolCallId(ev.Approval.CallID),
				Status:     sdk.Ptr(sdk.ToolCallStatusInProgress),
			}})
		}
	case event.TodosUpdated:
		s.send(planUpdate(ev.Todos))
	case event.StatusChanged:
		if ev.Status == nil {
			return
		}
		changed := false
		if ev.Status.Mode != "" && ev.Status.Mode != s.mode {
			s.mode, changed = ev.Status.Mode, true
			s.send(sdk.SessionUpdate{CurrentModeUpdate: &sdk.SessionCurrentModeUpdate{CurrentModeId: sdk.SessionModeId(ev.Status.Mode)}})
		}
		if ev.Status.Model != "" && ev.Status.Model != s.model {
			s.model, changed = ev.Status.Model, true
		}
		if changed {
			s.send(s.configUpdate())
		}
	case event.TaskComplete:
		t := s.currentTurn()
		if t != nil && len(t.errs) > 0 {
			s.send(sdk.UpdateAgentMessageText("Error: " + strings.Join(t.errs, "\nError: ") + "\n"))
		}
		s.sendStats()
		stop := sdk.StopReasonEndTurn
		switch ev.Reason {
		case event.StopMaxSteps:
			stop = sdk.StopReasonMaxTurnRequests
		case event.StopRefusal:
			stop = sdk.StopReasonRefusal
		}
		s.finish(result{stop: stop})
	case event.TurnAborted:
		s.clearCalls()
		s.sendStats()
		if ev.Reason == event.ReasonError {
			msg := ev.Text
			if t := s.currentTurn(); t != nil && msg == "" && len(t.errs) > 0 {
				msg = t.errs[len(t.errs)-1]
			}
			s.finish(result{err: modelError(msg)})
			return
		}
		s.finish(result{stop: sdk.StopReasonCancelled})
	}
}

func (s *session) clearCalls() {
	for id := range s.calls {
		delete(s.calls, id)
	}
	for id := range s.handed {
		delete(s.handed, id)
	}
	for id := range s.outputs {
		delete(s.outputs, id)
	}
}

// handOver turns the interrupting call into the target's think tool call.
func (s *session) handOver(ev event.Event) {
	if ev.Tool == nil {
		return
	}
	b := &handBlock{callID: ev.Tool.CallID, target: ev.Target}
	s.blocks = append(s.blocks, b)
	title := handTitle(ev.Tool.Name, ev.Target)
	if !s.calls[b.callID] {
		s.calls[b.callID] = true
		s.send(toolStart(s.root, ev.Tool))
	}
	s.send(sdk.SessionUpdate{ToolCallUpdate: &sdk.SessionToolCallUpdate{
		ToolCallId: sdk.ToolCallId(b.callID),
		Kind:       sdk.Ptr(sdk.ToolKindThink),
		Title:      sdk.Ptr(title),
		Status:     sdk.Ptr(sdk.ToolCallStatusInProgress),
		Meta:       map[string]any{"conversation_id": ev.Target},
	}})
}

// blockText adds the target's text to the innermost hand-over.
func (s *session) blockText(text string) {
	if n := len(s.blocks); n > 0 {
		b := s.blocks[n-1]
		b.text.WriteString(text)
		b.dirty = true
	}
}

// flushBlocks sends the content of hand-overs with new text: the whole
// text so far (an update replaces the content); and the output of
// running calls that grew.
func (s *session) flushBlocks() {
	defer s.flushOutputs()
	for _, b := range s.blocks {
		if !b.dirty {
			continue
		}
		b.dirty = false
		s.send(sdk.SessionUpdate{ToolCallUpdate: &sdk.SessionToolCallUpdate{
			ToolCallId: sdk.ToolCallId(b.callID),
			Content:    textContent(b.text.String()),
			Meta:       map[string]any{"conversation_id": b.target},
		}})
	}
}

// askPermission puts one approval to the client and answers the engine.
func (s *session) askPermission(t *turn, a *event.Approval) {
	ctx := t.ctx
	resp, err := s.srv.conn.RequestPermission(ctx, permissionRequest(s.id, s.root, a))
	switch {
	case ctx.Err() != nil:
		return // the prompt was cancelled: the engine resolves the request itself
	case err != nil:
		s.srv.log.Warn("session/request_permission failed; denying", "session", s.id, "err", err)
		s.answer(a.ID, agent.Deny)
	case resp.Outcome.Cancelled != nil:
		// A client answers "cancelled" when it cancels the prompt turn.
		t.cancel()
	case resp.Outcome.Selected != nil:
		s.answer(a.ID, decision(resp.Outcome.Selected.OptionId))
	default:
		s.answer(a.ID, agent.Deny)
	}
}

func (s *session) answer(id string, d agent.Decision) {
	if err := s.eng.Answer(id, agent.Answer{Decision: d}); err != nil {
		s.srv.log.Debug("approval answer not delivered", "session", s.id, "err", err)
	}
}

// prompt runs one input as a turn and returns its stop reason.
func (s *session) prompt(ctx context.Context, input, typed string, images []llm.Image) (sdk.StopReason, error) {
	s.promptMu.Lock()
	defer s.promptMu.Unlock()
	if ctx.Err() != nil {
		return sdk.StopReasonCancelled, nil // replaced before it started
	}
	if msg := refusedCommand(input); msg != "" {
		s.send(sdk.UpdateAgentMessageText(msg))
		return sdk.StopReasonEndTurn, nil
	}
	t := &turn{ctx: ctx, done: make(chan result, 1), stop: make(chan struct{})}
	s.mu.Lock()
	s.turn = t
	s.mu.Unlock()
	if _, err := s.eng.SubmitPrompt(input, typed, images); err != nil {
		s.mu.Lock()
		s.turn = nil
		s.mu.Unlock()
		return "", sdk.NewInternalError(map[string]any{"error": err.Error()})
	}
	var r result
	select {
	case r = <-t.done:
	case <-ctx.Done():
		t.cancelled.Store(true)
		s.eng.Cancel()
		r = <-t.done
	case <-t.stop:
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
