package nvimhost

// How the renderer shows each family of engine events (core/event): the
// turn, the agent's text and tools, approvals, the status, transcript
// notes and what the editor is asked to do. Hand-overs are in handover.go.

import (
	"fmt"
	"strings"

	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/mention"
)

// event renders one engine event.
func (r *renderer) event(ev event.Event) {
	prev := r.session
	if ev.Session != "" {
		r.session = ev.Session
	}
	if r.sf.size > 0 && !r.continuesStream(ev.Kind) {
		r.endStream()
	}
	r.writeHeld(ev.Kind)
	if r.handOverEvent(ev) {
		return
	}
	switch ev.Kind {
	case event.TaskStarted, event.UserMessage, event.TurnAborted, event.TaskComplete:
		r.turnEvent(ev)
	case event.AgentReasoningDelta:
		r.agentText("reasoning", hlReasoning, ev.Text, ev.Conversation)
	case event.AgentMessageDelta:
		r.agentText("message", "", ev.Text, ev.Conversation)
	case event.ToolCallBegin:
		r.toolBegin(ev.Tool)
	case event.ToolCallEnd:
		r.toolEnd(ev.Tool)
	case event.ToolOutputDelta:
		r.toolOutput(ev)
	case event.ApprovalRequested, event.ApprovalResolved:
		r.approvalEvent(ev)
	case event.TokenCount, event.StatusChanged:
		r.statusEvent(ev, prev)
	case event.TodosUpdated, event.CommandOutput, event.Notice, event.Retrying, event.Error:
		r.noteEvent(ev)
	case event.FilesChanged, event.ModelChoices, event.UndoOthers:
		r.editorEvent(ev)
	case event.OpenURL:
		r.openURL(ev)
	}
}

// turnEvent renders the start of a turn, the user's message and the end
// of the turn.
func (r *renderer) turnEvent(ev event.Event) {
	switch ev.Kind {
	case event.TaskStarted:
		r.status.Busy = true
		r.emitOp(op{"t": "turn_start", "task": ev.Task, "input": ev.Text}, true)
		r.emitOp(r.statusOp(), true)
	case event.UserMessage:
		r.userMessage(ev.Text)
	case event.TurnAborted:
		switch ev.Reason {
		case event.ReasonInterrupted:
			r.line(hlNotice, "⏹ interrupted")
		case event.ReasonError:
			// The Error event before it already said why.
		default:
			r.line(hlNotice, "⏹ "+ev.Reason)
		}
		r.turnDone(ev)
	case event.TaskComplete:
		if ev.Reason == event.StopMaxSteps {
			r.newline()
		}
		r.turnDone(ev)
	}
}

// userMessage writes the user's section: the text, the context items
// attached to it and what followed them.
func (r *renderer) userMessage(msg string) {
	r.paragraph()
	// A turn sent to another conversation says so, as the prompt does.
	r.turnConv = ""
	if r.target != "" {
		r.turnConv = event.ShortConversation(r.target)
	}
	r.line(hlUser, "## You"+r.turnMark())
	text, items, rest := mention.Split(msg)
	r.line("", text)
	for _, it := range items {
		r.contextLine(it)
	}
	if rest != "" {
		r.line("", rest)
	}
	r.section, r.stream = "you", ""
}

func (r *renderer) turnDone(ev event.Event) {
	r.newline()
	for r.depth() > 0 {
		r.handBack() // interrupted mid-chain: no HandBack comes
	}
	r.chain = false
	r.ts = nil
	if c := ev.Turn; c != nil {
		// The turn's summary line; the plugin's review key works on it.
		r.line(hlNotice, turnSummary(c))
		r.emitOp(op{"t": "review_mark", "n": c.N}, false)
	}
	r.section, r.stream = "", ""
	r.status.Busy = false
	r.emitOp(op{"t": "turn_done", "task": ev.Task, "reason": ev.Reason}, true)
}

// turnSummary is the line ending a turn that changed files.
func turnSummary(c *event.TurnChanges) string {
	const shown = 3
	names := strings.Join(c.Paths[:min(len(c.Paths), shown)], ", ")
	if len(c.Paths) > shown {
		names += fmt.Sprintf(" and %d more", len(c.Paths)-shown)
	}
	files := "files"
	if len(c.Paths) == 1 {
		files = "file"
	}
	return fmt.Sprintf("✎ turn %d changed %d %s: %s (:Coder review %d)", c.N, len(c.Paths), files, names, c.N)
}

// toolBegin writes a call's running line; toolEnd completes it.
func (r *renderer) toolBegin(t *event.Tool) {
	r.agentSection()
	r.newline()
	r.write(hlToolRunning, "▸ "+toolTitle(t)+" …")
	r.toolLine = t.CallID
	r.stream = ""
}

// approvalEvent writes an approval request and its answer, and opens and
// closes the plugin's approval float.
func (r *renderer) approvalEvent(ev event.Event) {
	a := ev.Approval
	switch ev.Kind {
	case event.ApprovalRequested:
		r.agentSection()
		if a.Elicitation != nil {
			r.line(hlApprovalLine, "? "+a.Title+": "+a.Reason)
		} else {
			r.line(hlApprovalLine, "? approval needed: "+a.Title+" — "+a.Reason)
		}
		r.emitOp(op{"t": "approval", "approval": approvalOp(r.root, a)}, true)
	case event.ApprovalResolved:
		text := map[string]string{"once": "allowed once", "always": "allowed always (" + a.Scope + ")", "deny": "denied", "cancelled": "cancelled"}[ev.Reason]
		if a.Plan != nil && planAnswerText[ev.Reason] != "" {
			text = planAnswerText[ev.Reason]
		}
		if a.Elicitation != nil && elicitAnswerText[ev.Reason] != "" {
			text = elicitAnswerText[ev.Reason]
		}
		if text == "" {
			text = ev.Reason
		}
		r.line(hlApprovalLine, "  → "+text)
		r.emitOp(op{"t": "approval_closed", "id": a.ID, "decision": ev.Reason}, true)
	}
}

// statusEvent updates the status line; prev is the session shown before
// the event, and another one (/resume) replays what it holds.
func (r *renderer) statusEvent(ev event.Event, prev string) {
	switch ev.Kind {
	case event.TokenCount:
		if ev.Tokens != nil {
			r.status.ContextTokens = ev.Tokens.Context
			r.status.Turn = ev.Tokens.Turn
			r.emitOp(r.statusOp(), true)
		}
	case event.StatusChanged:
		if ev.Status != nil {
			r.status = *ev.Status
			r.emitOp(r.statusOp(), true)
		}
		// Another session was loaded (/resume): show what it holds. Its
		// conversations are others: input goes to the root again.
		if prev != "" && r.session != prev {
			r.target = ""
			r.emitOp(r.statusOp(), true)
		}
		if prev != "" && r.session != prev {
			r.replayHistory()
		}
	}
}

// noteEvent writes what is said in the transcript outside the agent's
// answer: todos, command output, notices, retries and errors.
func (r *renderer) noteEvent(ev event.Event) {
	switch ev.Kind {
	case event.TodosUpdated:
		r.agentSection()
		r.paragraph()
		r.line(hlTodo, "Todos:")
		for _, td := range ev.Todos {
			mark := map[string]string{"completed": "[x]", "in_progress": "[~]"}[td.Status]
			if mark == "" {
				mark = "[ ]"
			}
			r.line(hlTodo, "  "+mark+" "+td.Content)
		}
	case event.CommandOutput:
		r.paragraph()
		r.line(hlCommandOutput, ev.Text)
		if ev.Detail != "" {
			// The expandable part (the full /diff) opens in its own
			// buffer, folded per file.
			r.line(hlNotice, "(full diff opened in a new tab, folded per file: zo opens a file, zR all)")
			r.emitOp(op{"t": "diff_view", "diff": ev.Detail}, true)
		}
	case event.Notice:
		r.line(hlNotice, "ℹ "+ev.Text)
	case event.Retrying:
		// Says why nothing arrives yet; the turn is still busy.
		r.line(hlNotice, "⟳ "+ev.Text)
	case event.Error:
		r.line(hlError, "✗ "+ev.Text)
	}
	r.stream = ""
}

// editorEvent asks the editor to act: reload changed files, offer the
// endpoint's models, ask about reverting others' edits.
func (r *renderer) editorEvent(ev event.Event) {
	switch ev.Kind {
	case event.FilesChanged:
		paths := make([]string, 0, len(ev.Paths))
		for _, p := range ev.Paths {
			paths = append(paths, r.abs(p))
		}
		r.emitOp(op{"t": "reload", "paths": paths}, true)
	case event.ModelChoices:
		// /model without a name: the plugin offers the endpoint's models.
		r.emitOp(op{"t": "pick_model", "models": ev.Paths, "current": ev.Text}, true)
	case event.UndoOthers:
		// The plugin asks whether to revert them too (/undo others).
		r.emitOp(op{"t": "undo_others", "paths": ev.Paths}, true)
	}
}
