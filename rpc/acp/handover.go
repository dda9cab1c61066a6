package acp

// Hand-overs between conversations (core/event HandOver, HandBack): the
// interrupting call becomes a think tool call the target's text streams
// into.

import (
	"strings"

	"github.com/coder-nvim/coder-nvim/core/event"
	sdk "github.com/coder/acp-go-sdk"
)

// handBlock is a hand-over shown as a think tool call: the target's text
// streams into its content (seed 000 over ACP).
type handBlock struct {
	callID string
	target string
	text   strings.Builder
	dirty  bool // text not yet sent
}

// handOverEvent sends what a hand-over changes and reports that the
// event is done with: the prompt goes on through TurnAborted(Replaced)
// and the target's own end; the target's text streams as thought.
func (s *session) handOverEvent(ev event.Event) bool {
	switch {
	case ev.Kind == event.HandOver:
		s.depth++
		s.handOver(ev)
	case ev.Kind == event.HandBack:
		s.depth = max(0, s.depth-1)
		if n := len(s.blocks); n > 0 {
			b := s.blocks[n-1]
			s.blocks = s.blocks[:n-1]
			s.handed[b.callID] = b
		}
	case ev.Kind == event.TurnAborted && ev.Reason == event.ReasonReplaced:
	case s.depth > 0 && (ev.Kind == event.TaskComplete || ev.Kind == event.TurnAborted && ev.Reason != event.ReasonInterrupted):
	case s.depth > 0 && ev.Kind == event.AgentMessageDelta:
		s.blockText(ev.Text)
	case s.depth > 0 && ev.Kind == event.Error:
		s.blockText("\nError in conversation " + ev.Conversation + ": " + ev.Text + "\n")
		s.flushBlocks()
	default:
		if ev.Kind == event.TurnAborted {
			s.depth, s.blocks = 0, nil
		}
		return false
	}
	return true
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
