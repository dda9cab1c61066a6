// Package backend chooses the model endpoint a configuration names: a
// provider preset (an OpenAI-compatible endpoint, GitHub Copilot), or the
// offline demo served by the built-in scripted fake server.
package backend

import (
	"context"
	"fmt"
	"strings"

	"github.com/coder-nvim/coder-nvim/core/agent"
	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/provider"
)

// Backend is a ready provider and how to release it.
type Backend struct {
	Provider agent.Provider
	Demo     bool
	Close    func()
	// Models lists the endpoint's models (GET /models) with the context
	// window each entry gives; an error means no list, not a broken
	// provider.
	Models func(ctx context.Context) ([]llm.Model, error)
	// Name is the provider used and Reason why it was chosen ("ANTHROPIC_API_KEY
	// is set"), for exec and :checkhealth.
	Name, Reason string
	// Config is the configuration the provider was built for: cfg, or
	// after detection found Ollama, cfg switched to it. Sessions use it.
	Config config.Config
}

// New builds the provider of cfg. A configuration that named no provider
// and found no key (cfg.Detected) first probes Ollama (probeOllama).
func New(cfg config.Config) (*Backend, error) {
	return NewContext(context.Background(), cfg)
}

// NewContext is New with a context bounding the Ollama probe.
func NewContext(ctx context.Context, cfg config.Config) (*Backend, error) {
	if cfg.Provider == config.ProviderDemo && cfg.Detected {
		reason, models, ok := probeOllama(ctx, cfg.OllamaURL)
		if ok {
			return newPreset(cfg.UseLocal(config.ProviderOllama, strings.TrimRight(cfg.OllamaURL, "/")+"/v1", models, reason))
		}
		cfg.ProviderReason += "; " + reason
	}
	switch cfg.Provider {
	case config.ProviderDemo:
		srv := fakellm.New()
		srv.SetScript(fakellm.DemoScript)
		p := provider.NewOpenAI(provider.Options{BaseURL: srv.URL(), APIKey: "demo"})
		return &Backend{Provider: p, Demo: true, Close: srv.Close, Models: func(context.Context) ([]llm.Model, error) { return []llm.Model{{ID: "demo"}}, nil },
			Name: config.ProviderDemo, Reason: cfg.ProviderReason, Config: cfg}, nil
	}
	return newPreset(cfg)
}

// newPreset builds the provider of a preset other than the demo.
func newPreset(cfg config.Config) (*Backend, error) {
	preset, ok := config.LookupPreset(cfg.Provider)
	if !ok {
		return nil, fmt.Errorf("unknown provider %q", cfg.Provider)
	}
	opts := provider.Options{
		BaseURL:         cfg.BaseURL,
		APIKey:          cfg.APIKey,
		IdleTimeout:     cfg.IdleTimeout(),
		Provider:        preset.Name,
		KeyEnv:          cfg.APIKeyEnv,
		Headers:         preset.Headers,
		ReasoningEffort: cfg.ReasoningEffort,
		Wire:            cfg.WireAPI,
	}
	closer := func() {}
	if preset.Name == config.ProviderCopilot {
		var err error
		if closer, err = copilotOptions(cfg, &opts); err != nil {
			return nil, err
		}
	}
	p := provider.NewOpenAI(opts)
	return &Backend{Provider: p, Close: closer, Models: p.Models, Name: preset.Name, Reason: cfg.ProviderReason, Config: cfg}, nil
}
