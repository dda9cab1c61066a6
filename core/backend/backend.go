// Package backend chooses the model endpoint a configuration names: an
// OpenAI-compatible provider, or the offline demo served by the built-in
// scripted fake server.
package backend

import (
	"context"
	"fmt"

	"github.com/coder-nvim/coder-nvim/core/agent"
	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/provider"
)

// Backend is a ready provider and how to release it.
type Backend struct {
	Provider agent.Provider
	Demo     bool
	Close    func()
	// Models lists the endpoint's models (GET /models); an error means
	// no list, not a broken provider.
	Models func(ctx context.Context) ([]string, error)
}

// New builds the provider of cfg.
func New(cfg config.Config) (*Backend, error) {
	switch cfg.Provider {
	case config.ProviderDemo:
		srv := fakellm.New()
		srv.SetScript(fakellm.DemoScript)
		p := provider.NewOpenAI(provider.Options{BaseURL: srv.URL(), APIKey: "demo"})
		return &Backend{Provider: p, Demo: true, Close: srv.Close, Models: func(context.Context) ([]string, error) { return []string{"demo"}, nil }}, nil
	case config.ProviderOpenAI:
		p := provider.NewOpenAI(provider.Options{BaseURL: cfg.BaseURL, APIKey: cfg.APIKey, IdleTimeout: cfg.IdleTimeout()})
		return &Backend{Provider: p, Close: func() {}, Models: p.Models}, nil
	}
	return nil, fmt.Errorf("unknown provider %q", cfg.Provider)
}
