package backend

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/agent"
	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/fakellm"
)

// slowOllama is an Ollama on loopback whose /api/tags answers only once
// release is closed; its OpenAI routes go to the fake model srv.
func slowOllama(t *testing.T, srv *fakellm.Server, release <-chan struct{}) *httptest.Server {
	t.Helper()
	o := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/tags" {
			select {
			case <-release:
			case <-r.Context().Done():
				return
			}
			json.NewEncoder(w).Encode(map[string]any{"models": []map[string]string{{"name": "qwen2.5-coder:7b"}}})
			return
		}
		http.Redirect(w, r, strings.TrimSuffix(srv.URL(), "/v1")+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	t.Cleanup(o.Close)
	return o
}

// TestSlowOllamaInBackground: start-up does not wait for an Ollama that
// answers late (New returns while it has not answered); the session runs
// the demo, and once Ollama answers, the next turn goes to it.
func TestSlowOllamaInBackground(t *testing.T) {
	srv := fakellm.New()
	defer srv.Close()
	release := make(chan struct{})
	ollama := slowOllama(t, srv, release)
	cfg := loadConfig(t, `{}`, nil)
	cfg.OllamaURL = ollama.URL

	be, err := New(cfg) // returns although /api/tags has not answered
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	if !be.Demo || be.Later == nil || !strings.Contains(be.Reason, "still asked in the background") {
		t.Fatalf("not a demo waiting for Ollama: demo %v later %v (%s)", be.Demo, be.Later, be.Reason)
	}

	events := make(chan event.Event, 256)
	sess, err := agent.Open(agent.Options{Config: be.Config, Root: t.TempDir(), Provider: be.Provider, Demo: be.Demo, Models: be.Models,
		OnEvent: func(e event.Event) {
			select {
			case events <- e:
			default:
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	switched := make(chan *Backend, 1)
	be.Follow(sess, func(nb *Backend) { switched <- nb })

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := sess.Run(ctx, "hello"); err != nil {
		t.Fatal(err)
	}
	if len(srv.Requests()) != 0 || !sess.Status().Demo {
		t.Fatalf("the first turn did not run on the demo")
	}

	close(release)
	var nb *Backend
	select {
	case nb = <-switched:
	case <-ctx.Done():
		t.Fatal("Ollama's late answer was not used")
	}
	if nb.Name != config.ProviderOllama || !strings.Contains(nb.Reason, "after start-up") {
		t.Errorf("switched to %q (%s)", nb.Name, nb.Reason)
	}
	if st := sess.Status(); st.Demo || st.Model != "qwen2.5-coder:7b" {
		t.Errorf("status after the switch: demo %v model %q", st.Demo, st.Model)
	}
	srv.Enqueue(fakellm.Reply{Content: "from ollama"})
	if err := sess.Run(ctx, "again"); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || reqs[0].Model != "qwen2.5-coder:7b" {
		t.Fatalf("the next turn did not go to Ollama: %d requests", len(reqs))
	}
	if h := sess.History(""); h[len(h)-1].Content != "from ollama" {
		t.Errorf("answer %q", h[len(h)-1].Content)
	}
	var noted bool
	for len(events) > 0 {
		e := <-events
		noted = noted || e.Kind == event.Notice && strings.Contains(e.Text, "provider: ollama at "+ollama.URL+"/v1") && strings.Contains(e.Text, "from the next turn")
	}
	if !noted {
		t.Error("the switch was not announced")
	}
}

// TestOllamaNeverAnswers: Close stops the probe; Later closes empty.
func TestOllamaNeverAnswers(t *testing.T) {
	srv := fakellm.New()
	defer srv.Close()
	ollama := slowOllama(t, srv, make(chan struct{}))
	cfg := loadConfig(t, `{}`, nil)
	cfg.OllamaURL = ollama.URL
	be, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	be.Close()
	if nb, ok := <-be.Later; ok {
		t.Fatalf("a backend after Close: %+v", nb)
	}
}

// BenchmarkDetectStartSlowOllama is how long New takes with nothing
// configured and an Ollama that does not answer: bounded by
// OllamaProbeWait (50 ms).
func BenchmarkDetectStartSlowOllama(b *testing.B) {
	srv := fakellm.New()
	defer srv.Close()
	release := make(chan struct{})
	defer close(release)
	o := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer o.Close()
	cfg := config.Defaults()
	cfg.Provider, cfg.Detected, cfg.OllamaURL = config.ProviderDemo, true, o.URL
	for b.Loop() {
		be, err := New(cfg)
		if err != nil {
			b.Fatal(err)
		}
		be.Close()
	}
}
