package agent

import (
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/provider"
)

const summaryMarker = "summarise a coding session"

// countSummaries counts the summary requests the model received.
func countSummaries(f *fixture) int {
	n := 0
	for _, r := range f.srv.Requests() {
		if len(r.Messages) > 0 && strings.Contains(r.Messages[0].Content, summaryMarker) {
			n++
		}
	}
	return n
}

// TestContextWindowFollowsModel: /model takes the context window the
// endpoint's model list gives (context_length), else the built-in table,
// else the default; compaction and the token counts follow it at once.
func TestContextWindowFollowsModel(t *testing.T) {
	f := newFixture(t, func(c *config.Config, o *Options) {
		c.CompactThreshold = 0.5
		o.AllowAsks = true
	})
	f.srv.SetModelList([]fakellm.Model{{ID: "test-model"}, {ID: "small-model", ContextLength: 4000}, {ID: "gpt-4o"}, {ID: "unknown-model"}})
	f.srv.SetScript(func(req fakellm.Request) fakellm.Reply {
		if strings.Contains(req.Messages[0].Content, summaryMarker) {
			return fakellm.Reply{Content: "SUMMARY"}
		}
		last := req.Messages[len(req.Messages)-1]
		if last.Role == llm.RoleUser && strings.Contains(last.Content, "write the big file") {
			return fakellm.Reply{ToolCalls: []llm.ToolCall{call("w1", "write", map[string]any{"path": "big.txt", "content": strings.Repeat("x", 8000)})}}
		}
		return fakellm.Reply{Content: "done"}
	})

	// ~2,000 tokens of history: far under half of the default 128k.
	f.run(t, "write the big file")
	if n := countSummaries(f); n != 0 {
		t.Fatalf("%d summaries under the default window", n)
	}

	f.run(t, "/model small-model")
	if out := lastOutput(f); !strings.Contains(out, "model: small-model, context window 4000 tokens") {
		t.Errorf("/model output = %q", out)
	}
	if w := f.sess.ContextWindow(); w != 4000 {
		t.Errorf("window after /model small-model = %d, want the listed 4000", w)
	}
	f.run(t, "/status")
	if out := lastOutput(f); !strings.Contains(out, "of 4000 tokens") {
		t.Errorf("/status = %q", out)
	}
	f.run(t, "go on")
	if n := countSummaries(f); n == 0 {
		t.Errorf("no compaction at half of the new 4000-token window")
	}
	toks := f.rec.find(event.TokenCount)
	if len(toks) == 0 || toks[len(toks)-1].Tokens.Window != 4000 {
		t.Errorf("token counts do not carry the new window: %+v", toks)
	}

	for _, c := range []struct {
		cmd    string
		window int
	}{
		{"/model gpt-4o", config.ModelWindow("gpt-4o")},              // listed without a window: the table
		{"/model unknown-model", config.Defaults().ContextWindow},    // in neither: the default
		{"/model test-model", config.Defaults().ContextWindow},       // the configured model: its configured window
		{"/model! not-listed-4000", config.Defaults().ContextWindow}, // not listed at all
	} {
		f.run(t, c.cmd)
		if w := f.sess.ContextWindow(); w != c.window {
			t.Errorf("%s: window %d, want %d", c.cmd, w, c.window)
		}
	}
}

// TestConfiguredWindowWins: a context_window the user configured is kept
// whatever the endpoint says.
func TestConfiguredWindowWins(t *testing.T) {
	xdg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", xdg)
	if err := os.MkdirAll(xdg+"/coder", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(config.UserFile(), []byte(`{"context_window": 9000}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(t.TempDir(), func(k string) string { return map[string]string{"XDG_CONFIG_HOME": xdg, "OPENAI_API_KEY": "k"}[k] })
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, func(c *config.Config, _ *Options) {
		model, state := c.Model, c.StateDir
		*c = cfg
		c.Model, c.StateDir = model, state
	})
	f.srv.SetModelList([]fakellm.Model{{ID: "small-model", ContextLength: 4000}})
	f.run(t, "/model small-model")
	if w := f.sess.ContextWindow(); w != 9000 {
		t.Errorf("window %d, want the configured 9000", w)
	}
}

// TestStartupListGivesWindow: the model list asked in the background at
// start gives the configured model its endpoint window, without a /model.
func TestStartupListGivesWindow(t *testing.T) {
	srv := fakellm.New()
	defer srv.Close()
	srv.SetModelList([]fakellm.Model{{ID: "test-model", ContextLength: 6000}})
	p := provider.NewOpenAI(provider.Options{BaseURL: srv.URL(), APIKey: "k"})
	cfg := config.Defaults()
	cfg.Model, cfg.StateDir = "test-model", t.TempDir()
	s, err := Open(Options{Config: cfg, Root: gitRepo(t), Provider: p, Models: p.Models})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	deadline := time.Now().Add(10 * time.Second)
	for s.ContextWindow() != 6000 {
		if time.Now().After(deadline) {
			t.Fatalf("window %d, want the listed 6000", s.ContextWindow())
		}
		runtime.Gosched()
	}
}
