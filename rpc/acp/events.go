package acp

// How each family of engine events (core/event) becomes session/update
// notifications: the agent's text, tool calls, approvals, the status and
// the end of a turn. Hand-overs are in handover.go.

import (
	"strings"

	"github.com/coder-nvim/coder-nvim/core/agent"
	"github.com/coder-nvim/coder-nvim/core/event"
	sdk "github.com/coder/acp-go-sdk"
	"github.com/google/uuid"
)

// handle maps one engine event onto the protocol. It runs on the pump.
func (s *session) handle(ev event.Event) {
	if ev.Kind != event.AgentMessageDelta && ev.Kind != event.ToolOutputDelta {
		s.flushBlocks() // the streamed text goes out before what follows it
	}
	switch ev.Kind {
	case event.AgentMessageDelta, event.TokenCount, event.StatusChanged:
	default:
		s.msgID = "" // something else is shown: the agent's next text is a message of its own
	}
	if s.handOverEvent(ev) {
		return
	}
	switch ev.Kind {
	case event.AgentMessageDelta, event.AgentReasoningDelta, event.CommandOutput, event.Notice, event.Retrying, event.Error:
		s.textEvent(ev)
	case event.ToolCallBegin, event.ToolOutputDelta, event.ToolCallEnd:
		if ev.Tool != nil {
			s.toolEvent(ev)
		}
	case event.ApprovalRequested, event.ApprovalResolved:
		if ev.Approval != nil {
			s.approvalEvent(ev)
		}
	case event.TodosUpdated:
		s.send(planUpdate(ev.Todos))
	case event.OpenURL:
		s.send(sdk.UpdateAgentMessageText("\nOpen this address to " + ev.Detail + ": " + ev.Text + "\n"))
	case event.StatusChanged:
		if ev.Status != nil {
			s.statusChanged(ev.Status)
		}
	case event.TaskComplete, event.TurnAborted:
		s.turnEnd(ev)
	case event.CommandsChanged:
		s.send(availableCommands(s.eng.PromptCommands()))
	}
}

// textEvent sends the agent's text and thoughts, command output, notes
// and errors.
func (s *session) textEvent(ev event.Event) {
	switch ev.Kind {
	case event.AgentMessageDelta:
		if s.msgID == "" {
			s.msgID = uuid.NewString()
		}
		u := sdk.UpdateAgentMessageText(ev.Text)
		u.AgentMessageChunk.MessageId = sdk.Ptr(s.msgID)
		s.send(u)
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
		// resume in plan mode): no thought of the model's, so a message of
		// its own, marked in its text and in _meta.
		s.send(noticeUpdate(ev.Text, s.lineOpen.Load()))
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
	}
}

// toolEvent sends a tool call's start, its streamed output and its end;
// ev.Tool is set.
func (s *session) toolEvent(ev event.Event) {
	switch ev.Kind {
	case event.ToolCallBegin:
		s.calls[ev.Tool.CallID] = true
		s.send(toolStart(s.root, ev.Tool))
	case event.ToolOutputDelta:
		limited := ev.Reason == event.ReasonOutputLimit
		if !s.mirrorOutput(ev.Tool, ev.Text, limited) {
			s.toolOutput(ev.Tool.CallID, ev.Text, limited)
		}
	case event.ToolCallEnd:
		s.toolCallEnd(ev.Tool)
	}
}

// toolCallEnd sends the end of a call; a hand-over's call keeps the
// target's text as its content.
func (s *session) toolCallEnd(tool *event.Tool) {
	delete(s.outputs, tool.CallID) // the end's content replaces it
	if !s.calls[tool.CallID] {
		// Calls skipped by an interrupt end without a beginning.
		s.send(toolStart(s.root, tool))
	}
	delete(s.calls, tool.CallID)
	u := toolEnd(s.root, tool)
	if term := s.endTerminal(tool); term != nil && u.ToolCallUpdate != nil {
		u.ToolCallUpdate.Content = term // the terminal shows the output and how it ended
	}
	if b := s.handed[tool.CallID]; b != nil && u.ToolCallUpdate != nil {
		// The content stays what the target wrote, not only its
		// last answer.
		delete(s.handed, tool.CallID)
		if b.text.Len() > 0 && tool.Status == event.ToolCompleted {
			u.ToolCallUpdate.Content = textContent(b.text.String())
		}
		u.ToolCallUpdate.Meta = map[string]any{"conversation_id": b.target}
	}
	s.send(u)
}

// approvalEvent puts an approval request to the client, and marks an
// allowed call as running again; ev.Approval is set.
func (s *session) approvalEvent(ev event.Event) {
	switch ev.Kind {
	case event.ApprovalRequested:
		t := s.currentTurn()
		if t == nil {
			s.answer(ev.Approval.ID, agent.Deny) // nobody waits for this turn
			return
		}
		if ev.Approval.Plan != nil {
			s.send(planMessage(ev.Approval)) // before its request, on the pump
		}
		go s.askPermission(t, ev.Approval)
	case event.ApprovalResolved:
		if approved(ev.Reason) {
			s.send(sdk.SessionUpdate{ToolCallUpdate: &sdk.SessionToolCallUpdate{
				ToolCallId: sdk.ToolCallId(ev.Approval.CallID),
				Status:     sdk.Ptr(sdk.ToolCallStatusInProgress),
			}})
		}
	}
}

// statusChanged announces a new mode, and the options when the mode or
// the model changed.
func (s *session) statusChanged(st *event.Status) {
	changed := false
	if st.Mode != "" && st.Mode != s.mode {
		s.mode, changed = st.Mode, true
		s.send(sdk.SessionUpdate{CurrentModeUpdate: &sdk.SessionCurrentModeUpdate{CurrentModeId: sdk.SessionModeId(st.Mode)}})
	}
	if st.Model != "" && st.Model != s.model {
		s.model, changed = st.Model, true
	}
	if changed {
		s.send(s.configUpdate())
	}
}

// turnEnd ends the prompt turn: with its stop reason when the task
// completed, as cancelled or with the model's error when it was aborted.
func (s *session) turnEnd(ev event.Event) {
	switch ev.Kind {
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
	s.closeTerminals()
}

// noticeUpdate is a notice as an agent message of its own: "Note: " leads
// its text, a fresh messageId sets it apart from the answer, _meta marks it;
// after text that ended mid-line, a blank line comes first.
func noticeUpdate(text string, afterOpenLine bool) sdk.SessionUpdate {
	lead := ""
	if afterOpenLine {
		lead = "\n\n"
	}
	u := sdk.UpdateAgentMessageText(lead + "Note: " + text + "\n\n")
	u.AgentMessageChunk.Meta = map[string]any{"coder-nvim": map[string]any{"notice": true}}
	u.AgentMessageChunk.MessageId = sdk.Ptr(uuid.NewString())
	return u
}
