package agent

import (
	"context"
	"fmt"

	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/llm"
)

// endpoint is the model endpoint the session calls: the one it was opened
// with, or the local server a late start-up probe found (SwitchEndpoint).
// It is never changed, only replaced.
type endpoint struct {
	provider Provider
	models   func(ctx context.Context) ([]llm.Model, error)
	demo     bool
	// cfg is the configuration the endpoint was built for: the provider,
	// its base URL and why it was chosen, the wire API, the default model
	// and its context window.
	cfg config.Config
}

// currentEndpoint is the endpoint new tasks call.
func (s *Session) currentEndpoint() *endpoint {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ep
}

// provider is the endpoint the task calls: the session's when it started,
// so a switch applies from the next task on.
func (t *task) provider() Provider {
	if t.ep == nil {
		t.ep = t.s.currentEndpoint()
	}
	return t.ep.provider
}

// SwitchEndpoint makes later tasks call p (a local server found after
// start-up; see backend.Backend.Later): cfg is the configuration it was
// built for. A running task finishes on the endpoint it started with.
// The model becomes cfg.Model unless the user chose one.
func (s *Session) SwitchEndpoint(p Provider, models func(ctx context.Context) ([]llm.Model, error), demo bool, cfg config.Config) {
	if s.life.Err() != nil {
		return // closed
	}
	s.mu.Lock()
	old := s.ep
	s.ep = &endpoint{provider: p, models: models, demo: demo, cfg: cfg}
	s.windows = nil
	if s.model == old.cfg.Model {
		s.model = cfg.Model
	}
	model := s.model
	st := s.statusLocked()
	conv := s.rootConv.ID
	s.mu.Unlock()
	s.emit(event.Event{Kind: event.StatusChanged, Conversation: string(conv), Status: &st})
	s.emit(event.Event{Kind: event.Notice, Conversation: string(conv),
		Text: fmt.Sprintf("provider: %s at %s, model %s (%s); used from the next turn", cfg.Provider, cfg.BaseURL, model, cfg.ProviderReason)})
	// Not saved here: an empty session gets no file for it; the next
	// task's snapshot holds the model.
	s.listModelsInBackground()
}
