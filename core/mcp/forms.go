package mcp

import (
	"fmt"
	"sync"

	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/google/uuid"
)

// OpenForms are the servers' questions waiting for the user, by approval
// id, so that an answer that does not fit its form is refused while the
// question stays open.
type OpenForms struct {
	mu   sync.Mutex
	open map[string]*event.Elicitation
}

// Open makes the approval request that puts server's question e to the
// user (kind: the approvals' kind for MCP; callID: the tool call it came
// during) and records it open until the returned func is called.
func (f *OpenForms) Open(server, callID, kind string, e *event.Elicitation) (*event.Approval, func()) {
	req := &event.Approval{
		ID:          uuid.NewString(),
		CallID:      callID,
		Tool:        "elicitation",
		Kind:        kind,
		Title:       fmt.Sprintf("MCP server %s asks", server),
		Reason:      e.Message,
		Elicitation: e,
	}
	if e.Mode == event.ElicitURL {
		req.Command = e.URL
	}
	return req, f.Add(req.ID, e)
}

// Add records e as open under id until the returned func is called.
func (f *OpenForms) Add(id string, e *event.Elicitation) (remove func()) {
	f.mu.Lock()
	if f.open == nil {
		f.open = map[string]*event.Elicitation{}
	}
	f.open[id] = e
	f.mu.Unlock()
	return func() {
		f.mu.Lock()
		delete(f.open, id)
		f.mu.Unlock()
	}
}

// Check converts an accepted answer's values to the form's types (none
// for a URL question); known reports whether id is an open question. An
// answer that is not an acceptance passes unchecked.
func (f *OpenForms) Check(id string, accepted bool, values map[string]any) (checked map[string]any, known bool, err error) {
	f.mu.Lock()
	e := f.open[id]
	f.mu.Unlock()
	switch {
	case e == nil:
		return nil, false, nil
	case !accepted:
		return values, true, nil
	case e.Mode != event.ElicitForm:
		return nil, true, nil
	}
	checked, err = CheckElicitValues(e, values)
	return checked, true, err
}
