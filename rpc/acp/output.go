package acp

import (
	"bytes"
	"strings"
	"unicode/utf8"

	sdk "github.com/coder/acp-go-sdk"
)

// A running bash call's output (core/event ToolOutputDelta) is shown as it
// arrives: a tool_call_update whose content is the output so far (an
// update replaces a call's content), at most one per call per batch of
// events. Its end replaces it with the result the model gets.

// maxStreamText is how much of a running call's output a client is sent:
// its last part, as a terminal shows it.
const maxStreamText = 32 << 10

// liveOutput is a running call's output so far (pump only).
type liveOutput struct {
	b       []byte
	cut     bool // earlier output was dropped
	limited bool // the engine streams no more of it
	dirty   bool // not sent since it grew
}

func (o *liveOutput) add(s string) {
	o.b = append(o.b, s...)
	if len(o.b) > 2*maxStreamText { // compact rarely
		o.b = append(o.b[:0], o.b[len(o.b)-maxStreamText:]...)
		o.cut = true
	}
	o.dirty = true
}

// text is the last maxStreamText bytes, from a line start when cut.
func (o *liveOutput) text() string {
	if o.limited {
		return strings.TrimSuffix(o.shown(), "\n") + "\n… (more output: the rest comes when the command ends)"
	}
	return o.shown()
}

func (o *liveOutput) shown() string {
	b, cut := o.b, o.cut
	if len(b) > maxStreamText {
		b, cut = b[len(b)-maxStreamText:], true
	}
	if !cut {
		return string(b)
	}
	if i := bytes.IndexByte(b, '\n'); i >= 0 && i+1 < len(b) {
		b = b[i+1:]
	}
	for len(b) > 0 && !utf8.RuneStart(b[0]) {
		b = b[1:]
	}
	return "… (earlier output not shown)\n" + string(b)
}

// toolOutput adds a delta to its call's output; limited: the last one
// streamed.
func (s *session) toolOutput(callID, text string, limited bool) {
	if callID == "" || !s.calls[callID] {
		return // not announced (or already ended): nothing to update
	}
	o := s.outputs[callID]
	if o == nil {
		o = &liveOutput{}
		s.outputs[callID] = o
	}
	o.add(text)
	o.limited = o.limited || limited
}

// flushOutputs sends the output of calls that grew.
func (s *session) flushOutputs() {
	for id, o := range s.outputs {
		if !o.dirty {
			continue
		}
		o.dirty = false
		s.send(sdk.SessionUpdate{ToolCallUpdate: &sdk.SessionToolCallUpdate{
			ToolCallId: sdk.ToolCallId(id),
			Content:    textContent(o.text()),
		}})
	}
}
