package agent

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/provider"
	"github.com/coder-nvim/coder-nvim/core/store"
)

// A Responses API turn with five tool calls and an encrypted reasoning
// item: the summary is shown as thinking, the item is kept on the
// assistant message (the session file stays chat-completions shaped) and
// sent back, before the calls, in the next request, and after a resume.
func TestResponsesRoundTrip(t *testing.T) {
	var srv *fakellm.Server
	f := newFixture(t, func(c *config.Config, o *Options) {
		c.Model = "gpt-5-codex"
		srv = fakellm.New()
		t.Cleanup(srv.Close)
		o.Provider = provider.NewOpenAI(provider.Options{BaseURL: srv.URL(), APIKey: "k", Wire: provider.WireResponses, ReasoningEffort: "high", BaseBackoff: time.Millisecond})
	})
	f.srv = srv
	var calls []llm.ToolCall
	for i := range 5 {
		name := fmt.Sprintf("f%d.txt", i)
		writeFile(t, filepath.Join(f.root, name), fmt.Sprintf("content %d\n", i))
		calls = append(calls, call(fmt.Sprintf("call_%d", i), "read", map[string]any{"path": name}))
	}
	f.srv.Enqueue(
		fakellm.Reply{Reasoning: "I should read all five files.", EncryptedReasoning: "gAAAA-opaque-1", ToolCalls: calls},
		fakellm.Reply{Content: "All five read."},
		fakellm.Reply{Content: "Still here."},
	)
	f.run(t, "read the five files")

	reqs := f.srv.Requests()
	if len(reqs) != 2 || !reqs[0].Responses || !reqs[1].Responses {
		t.Fatalf("%d requests (responses wire: %v)", len(reqs), len(reqs) > 0 && reqs[0].Responses)
	}
	var first struct {
		Store     *bool    `json:"store"`
		Include   []string `json:"include"`
		Reasoning struct {
			Effort, Summary string
		} `json:"reasoning"`
	}
	if err := json.Unmarshal(reqs[0].Raw, &first); err != nil {
		t.Fatal(err)
	}
	if first.Store == nil || *first.Store || strings.Join(first.Include, ",") != "reasoning.encrypted_content" || first.Reasoning.Effort != "high" || first.Reasoning.Summary != "auto" {
		t.Errorf("first request: %s", reqs[0].Raw)
	}
	// The second request: user, reasoning item, five calls, five outputs.
	var types []string
	for _, raw := range reqs[1].Input {
		var it struct {
			Type, Role, CallID string
			EncryptedContent   string `json:"encrypted_content"`
		}
		json.Unmarshal(raw, &it)
		switch it.Type {
		case "reasoning":
			if it.EncryptedContent != "gAAAA-opaque-1" {
				t.Errorf("reasoning item sent back without its content: %s", raw)
			}
		}
		types = append(types, it.Type)
	}
	want := "message,message,reasoning," + strings.Repeat("function_call,", 5) + strings.TrimSuffix(strings.Repeat("function_call_output,", 5), ",")
	if got := strings.Join(types, ","); got != want {
		t.Errorf("second request items:\n got %s\nwant %s", got, want)
	}
	msgs := reqs[1].Messages
	checkPairs(t, msgs)
	for i, m := range msgs {
		if m.Role == llm.RoleTool && !strings.Contains(m.Content, "content ") {
			t.Errorf("message %d: tool output lost: %q", i, m.Content)
		}
	}
	// Thinking shown from the summary.
	var thought strings.Builder
	for _, ev := range f.rec.find(event.AgentReasoningDelta) {
		thought.WriteString(ev.Text)
	}
	if thought.String() != "I should read all five files." {
		t.Errorf("thinking = %q", thought.String())
	}

	// The session file keeps chat-completions messages, the item on the
	// assistant message that made the calls.
	id := f.sess.ID()
	f.sess.Close()
	data, err := os.ReadFile(filepath.Join(store.Dir(f.root), string(id)+".json"))
	if err != nil {
		matches, _ := filepath.Glob(filepath.Join(store.Dir(f.root), string(id)+"*"))
		t.Fatalf("session file: %v (%v)", err, matches)
	}
	if !strings.Contains(string(data), `"tool_calls"`) || !strings.Contains(string(data), `gAAAA-opaque-1`) || strings.Contains(string(data), `"function_call_output"`) {
		t.Errorf("session file not chat-shaped with the item:\n%.2000s", data)
	}

	// Resumed, the next turn still carries the item back.
	opts := Options{Config: config.Defaults(), Root: f.root, OnEvent: f.rec.handle, Prompter: true,
		Provider: provider.NewOpenAI(provider.Options{BaseURL: srv.URL(), APIKey: "k", Wire: provider.WireResponses, BaseBackoff: time.Millisecond})}
	opts.Config.Model = "gpt-5-codex"
	opts.Config.StateDir = filepath.Join(t.TempDir(), "coder-nvim")
	s2 := mustResume(t, opts, id)
	f.sess = s2
	f.run(t, "and now?")
	reqs = f.srv.Requests()
	if last := reqs[len(reqs)-1]; !strings.Contains(string(last.Raw), "gAAAA-opaque-1") {
		t.Errorf("after resume the reasoning item is not sent back: %.1500s", last.Raw)
	}
}
