// Package backend chooses the model endpoint a configuration names: a
// provider preset (an OpenAI-compatible endpoint, GitHub Copilot), or the
// offline demo served by the built-in scripted fake server.
package backend

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

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
	// Later, for a detected demo, delivers the Ollama backend when the
	// probe answers only after New returned (then closes); it is closed
	// without one when no Ollama answers. nil when nothing was probed.
	// Follow hands it to a session.
	Later <-chan *Backend
}

// Follow switches sess to the backend Later delivers, from its next turn,
// and then calls switched with it (nil: nothing more): its Close releases
// b's resources too, so the caller may keep it in b's place. It returns
// at once.
func (b *Backend) Follow(sess *agent.Session, switched func(*Backend)) {
	if b.Later == nil {
		return
	}
	go func() {
		nb, ok := <-b.Later
		if !ok {
			return
		}
		own, old := nb.Close, b.Close
		nb.Close = func() { own(); old() }
		sess.SwitchEndpoint(nb.Provider, nb.Models, nb.Demo, nb.Config)
		if switched != nil {
			switched(nb)
		}
	}()
}

// New builds the provider of cfg. A configuration that named no provider
// and found no key (cfg.Detected) first probes Ollama (probeOllama).
func New(cfg config.Config) (*Backend, error) {
	return NewContext(context.Background(), cfg)
}

// NewContext is New with a context bounding the Ollama probe: the probe
// runs in the background, New waits for it at most OllamaProbeWait, and
// an answer after that comes through Backend.Later.
func NewContext(ctx context.Context, cfg config.Config) (*Backend, error) {
	if cfg.Provider == config.ProviderDemo && cfg.Detected {
		probe := startOllamaProbe(ctx, cfg.OllamaURL)
		timer := time.NewTimer(OllamaProbeWait)
		defer timer.Stop()
		select {
		case r := <-probe.done:
			probe.stop()
			if r.ok {
				return newPreset(cfg.UseLocal(config.ProviderOllama, strings.TrimRight(cfg.OllamaURL, "/")+"/v1", r.models, r.reason))
			}
			cfg.ProviderReason += "; " + r.reason
			return newDemo(cfg, nil, func() {}), nil
		case <-timer.C:
		}
		cfg.ProviderReason += fmt.Sprintf("; no answer from Ollama at %s within %v (still asked in the background)", cfg.OllamaURL, OllamaProbeWait)
		later := make(chan *Backend, 1)
		go func() {
			defer close(later)
			r := <-probe.done
			if !r.ok {
				return
			}
			if b, err := newPreset(cfg.UseLocal(config.ProviderOllama, strings.TrimRight(cfg.OllamaURL, "/")+"/v1", r.models, r.reason+" (after start-up)")); err == nil {
				later <- b
			}
		}()
		return newDemo(cfg, later, probe.stop), nil
	}
	if cfg.Provider == config.ProviderDemo {
		return newDemo(cfg, nil, func() {}), nil
	}
	b, err := newPreset(cfg)
	if err == nil {
		chooseListedModel(ctx, b)
	}
	return b, err
}

// newDemo serves the offline demo; stop ends what else runs for it.
func newDemo(cfg config.Config, later <-chan *Backend, stop func()) *Backend {
	srv := fakellm.New()
	srv.SetScript(fakellm.DemoScript)
	p := provider.NewOpenAI(provider.Options{BaseURL: srv.URL(), APIKey: "demo"})
	var once sync.Once
	return &Backend{Provider: p, Demo: true, Close: func() { once.Do(func() { stop(); srv.Close() }) },
		Models: func(context.Context) ([]llm.Model, error) { return []llm.Model{{ID: "demo"}}, nil },
		Name:   config.ProviderDemo, Reason: cfg.ProviderReason, Config: cfg, Later: later}
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
