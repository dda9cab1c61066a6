package mcp

import (
	"sync"

	"github.com/coder-nvim/coder-nvim/core/event"
)

// OpenForms are the servers' questions waiting for the user, by approval
// id, so that an answer that does not fit its form is refused while the
// question stays open.
type OpenForms struct {
	mu   sync.Mutex
	open map[string]*event.Elicitation
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
