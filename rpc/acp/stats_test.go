package acp_test

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/store"
	sdk "github.com/coder/acp-go-sdk"
)

// Each prompt turn ends with a session_info_update whose _meta carries
// every conversation's metrics; /status shows them as text; /conversation
// new opens one from the client too.
func TestConversationStatsOverACP(t *testing.T) {
	e := newEnv(t, envOptions{})
	sid, _ := e.newSession()
	u := func(in, out int) *llm.Usage {
		return &llm.Usage{PromptTokens: in, CompletionTokens: out, TotalTokens: in + out}
	}
	e.llm.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("c1", "conv_create", map[string]any{"user_instruction": "review main.go"})}, Usage: u(100, 10)},
		fakellm.Reply{Content: "LGTM", Usage: u(40, 4)},
		fakellm.Reply{Content: "done", Usage: u(120, 12)},
	)
	e.mustPrompt(sid, "get it reviewed", sdk.StopReasonEndTurn)
	var last *sdk.SessionSessionInfoUpdate
	for _, up := range e.client.snapshot() {
		if up.Update.SessionInfoUpdate != nil {
			last = up.Update.SessionInfoUpdate
		}
	}
	if last == nil {
		t.Fatal("no session_info_update at the end of the turn")
	}
	data, _ := json.Marshal(last.Meta["coder-nvim"])
	var meta struct {
		Conversations []struct {
			ID    string      `json:"id"`
			Root  bool        `json:"root"`
			Stats store.Stats `json:"stats"`
		} `json:"conversations"`
	}
	if err := json.Unmarshal(data, &meta); err != nil || len(meta.Conversations) != 2 {
		t.Fatalf("_meta = %s (%v)", data, err)
	}
	root, sub := meta.Conversations[0], meta.Conversations[1]
	if !root.Root || root.Stats.TokensIn != 220 || root.Stats.ModelCalls != 2 || root.Stats.ToolCalls["conv_create"] != 1 ||
		sub.Root || sub.Stats.TokensIn != 40 || sub.Stats.TokensOut != 4 || sub.Stats.Tasks != 1 {
		t.Errorf("_meta = %s", data)
	}

	n := len(e.client.snapshot())
	e.mustPrompt(sid, "/status", sdk.StopReasonEndTurn)
	if text := agentText(e.client.snapshot()[n:]); !strings.Contains(text, "tokens: 220 in, 22 out") || !strings.Contains(text, "tokens: 40 in, 4 out") {
		t.Errorf("/status over ACP:\n%s", text)
	}

	n = len(e.client.snapshot())
	e.llm.Enqueue(fakellm.Reply{Content: "hello from the new one"})
	e.mustPrompt(sid, "/conversation new model=cheap preset=yolo say hello", sdk.StopReasonEndTurn)
	text := agentText(e.client.snapshot()[n:])
	if !strings.Contains(text, "opened conversation") || !strings.Contains(text, "preset yolo clamped") || !strings.Contains(text, "hello from the new one") {
		t.Errorf("/conversation new over ACP:\n%s", text)
	}
	reqs := e.llm.Requests()
	if r := reqs[len(reqs)-1]; r.Model != "cheap" || r.Messages[len(r.Messages)-1].Content != "say hello" {
		t.Errorf("the new conversation's request: %s %+v", r.Model, r.Messages)
	}
}

// TestUsageAndTitle: each turn ends with a usage_update (the context
// window and how much of it is used) and a session_info_update naming the
// session by its first prompt, with the time it changed.
func TestUsageAndTitle(t *testing.T) {
	e := newEnv(t, envOptions{})
	sid, _ := e.newSession()
	e.llm.Enqueue(
		fakellm.Reply{Content: "one", Usage: &llm.Usage{PromptTokens: 1200, CompletionTokens: 30, TotalTokens: 1230}},
		fakellm.Reply{Content: "two", Usage: &llm.Usage{PromptTokens: 1500, CompletionTokens: 20, TotalTokens: 1520}},
	)
	e.mustPrompt(sid, "name this chat after me\nsecond line", sdk.StopReasonEndTurn)
	e.mustPrompt(sid, "and go on", sdk.StopReasonEndTurn)
	var info *sdk.SessionSessionInfoUpdate
	var usage *sdk.SessionUsageUpdate
	for _, up := range e.client.snapshot() {
		if i := up.Update.SessionInfoUpdate; i != nil && i.Title != nil {
			info = i
		}
		if up.Update.UsageUpdate != nil {
			usage = up.Update.UsageUpdate
		}
	}
	if info == nil || *info.Title != "name this chat after me" || info.UpdatedAt == nil {
		t.Fatalf("session_info_update = %+v, want the first prompt's line as title and updatedAt", info)
	}
	if _, err := time.Parse(time.RFC3339, *info.UpdatedAt); err != nil {
		t.Errorf("updatedAt %q: %v", *info.UpdatedAt, err)
	}
	if usage == nil || usage.Size <= 0 || usage.Used < 1500 || usage.Used > usage.Size {
		t.Errorf("usage_update = %+v, want the window and the tokens in it", usage)
	}
	if usage != nil && usage.Cost != nil {
		t.Errorf("usage_update has a cost %+v though no price is known for the model", usage.Cost)
	}
}

// TestUsageCost: with a price for the model in the user's config, each
// usage_update carries the session's cost so far, every conversation's.
func TestUsageCost(t *testing.T) {
	xdg := t.TempDir()
	if err := os.MkdirAll(filepath.Join(xdg, "coder"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := `{"model": "m1", "prices": {"m1": {"input": 1, "output": 10}}}`
	if err := os.WriteFile(filepath.Join(xdg, "coder", "config.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, envOptions{env: []string{"XDG_CONFIG_HOME=" + xdg}})
	sid, _ := e.newSession()
	e.llm.Enqueue(
		fakellm.Reply{Content: "one", Usage: &llm.Usage{PromptTokens: 1000, CompletionTokens: 100, TotalTokens: 1100}},
		fakellm.Reply{Content: "two", Usage: &llm.Usage{PromptTokens: 3000, CompletionTokens: 100, TotalTokens: 3100}},
	)
	var costs []float64
	for _, prompt := range []string{"first", "second"} {
		n := len(e.client.snapshot())
		e.mustPrompt(sid, prompt, sdk.StopReasonEndTurn)
		var usage *sdk.SessionUsageUpdate
		for _, up := range e.client.snapshot()[n:] {
			if up.Update.UsageUpdate != nil {
				usage = up.Update.UsageUpdate
			}
		}
		if usage == nil || usage.Cost == nil || usage.Cost.Currency != "USD" {
			t.Fatalf("after %q: usage_update = %+v, want a cost in USD", prompt, usage)
		}
		costs = append(costs, usage.Cost.Amount)
	}
	// $1 and $10 per million: 1000 in and 100 out cost $0.002, 3000 in
	// and 100 out $0.004 more.
	if math.Abs(costs[0]-0.002) > 1e-9 || math.Abs(costs[1]-0.006) > 1e-9 {
		t.Errorf("costs %v, want [0.002 0.006]", costs)
	}
}
