package agent

import (
	"github.com/coder-nvim/coder-nvim/core/llm"
)

// The context window follows the model: the endpoint's model list when it
// gives one for the model (OpenRouter's context_length), else the built-in
// table, else the preset's or the default (config.WindowFor). A configured
// context_window always wins.

// windowLocked is the context window of model. s.mu is held.
func (s *Session) windowLocked(model string) int {
	cfg := s.ep.cfg
	if cfg.ContextWindowSet() {
		return cfg.ContextWindow
	}
	if w := s.windows[model]; w > 0 {
		return w
	}
	if model == cfg.Model {
		return cfg.ContextWindow
	}
	return cfg.WindowFor(model)
}

// ContextWindow is the context window of the session's current model.
func (s *Session) ContextWindow() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.windowLocked(s.model)
}

// modelOf is the model the task's conversation calls and its window.
func (s *Session) modelOf(t *task) (string, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	model := s.model
	if t.conv.Model != "" {
		model = t.conv.Model
	}
	return model, s.windowLocked(model)
}

// noteWindows keeps the context windows an endpoint's model list gives.
func (s *Session) noteWindows(models []llm.Model) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range models {
		if m.ContextWindow > 0 {
			if s.windows == nil {
				s.windows = map[string]int{}
			}
			s.windows[m.ID] = m.ContextWindow
		}
	}
}

// listModelsInBackground asks the endpoint for its model list once, so
// the current model's window is the endpoint's from the first turn that
// starts after the answer. Nothing waits for it; Close stops it (s.life).
func (s *Session) listModelsInBackground() {
	ep := s.currentEndpoint()
	if ep.models == nil || ep.demo || ep.cfg.ContextWindowSet() || s.life.Err() != nil {
		return
	}
	s.bg.Add(1)
	go func() {
		defer s.bg.Done()
		s.endpointModels(s.life)
	}()
}
