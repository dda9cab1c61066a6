package agent

import (
	"encoding/json"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
)

// tickClock advances by step on every reading: wall times are positive
// and exact without sleeping.
type tickClock struct {
	mu   sync.Mutex
	now  time.Time
	step time.Duration
}

func (c *tickClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(c.step)
	return c.now
}

func usage(in, out, cached int) *llm.Usage {
	u := &llm.Usage{PromptTokens: in, CompletionTokens: out, TotalTokens: in + out}
	if cached > 0 {
		u.PromptTokensDetails = &llm.PromptTokensDetails{CachedTokens: cached}
	}
	return u
}

// Each conversation sums its own tokens, model calls, tool calls by tool,
// failures, cancellations and wall time; conv_create's result carries what
// the sub-conversation's work took; conv_list and /status show the totals;
// they survive a resume and keep counting.
func TestConversationStats(t *testing.T) {
	clock := &tickClock{now: time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC), step: time.Millisecond}
	f := newFixture(t, func(_ *config.Config, o *Options) { o.NewID = seqIDs(); o.Now = clock.Now })
	writeFile(t, f.root+"/a.txt", "alpha\n")
	f.srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("c1", "conv_create", map[string]any{"user_instruction": "read a.txt"})}, Usage: usage(100, 10, 40)},
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("r1", "read", map[string]any{"path": "a.txt"}), call("r2", "read", map[string]any{"path": "missing.txt"})}, Usage: usage(50, 5, 0)},
		fakellm.Reply{Content: "alpha", Usage: usage(60, 6, 0)},
		fakellm.Reply{Content: "it says alpha", Usage: usage(120, 12, 100)},
	)
	f.run(t, "delegate")

	convs := f.sess.Conversations()
	if len(convs) != 2 {
		t.Fatalf("%d conversations", len(convs))
	}
	root, sub := convs[0].Stats, convs[1].Stats
	wantRoot := Stats{TokensIn: 220, TokensOut: 22, TokensCached: 140, ModelCalls: 2, ToolCalls: map[string]int{"conv_create": 1}, Tasks: 2}
	wantSub := Stats{TokensIn: 110, TokensOut: 11, ModelCalls: 2, ToolCalls: map[string]int{"read": 2}, ToolFailures: 1, Tasks: 1}
	for _, c := range []struct {
		name      string
		got, want Stats
	}{{"root", root, wantRoot}, {"sub", sub, wantSub}} {
		if c.got.WallMS <= 0 {
			t.Errorf("%s wall time %d ms, want > 0", c.name, c.got.WallMS)
		}
		c.got.WallMS = 0
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s stats\n got %+v\nwant %+v", c.name, c.got, c.want)
		}
	}

	// The hand-over's result carries the sub-conversation's work.
	tm := toolMsg(f.srv.Requests()[3].Messages, "c1")
	var res struct {
		Last  string `json:"last_assistant_message"`
		Stats *Stats `json:"stats"`
	}
	if tm == nil || json.Unmarshal([]byte(tm.Content), &res) != nil || res.Stats == nil {
		t.Fatalf("conv_create result without stats: %+v", tm)
	}
	if res.Last != "alpha" || res.Stats.TokensIn != 110 || res.Stats.ModelCalls != 2 || res.Stats.ToolCalls["read"] != 2 || res.Stats.Tasks != 1 || res.Stats.WallMS <= 0 {
		t.Errorf("conv_create result = %s", tm.Content)
	}

	// conv_list shows them beside message_count.
	out, err := f.sess.convList(t.Context(), nil, json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Conversations []struct {
			ID    string `json:"id"`
			Stats Stats  `json:"stats"`
		} `json:"conversations"`
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list.Conversations) != 2 || list.Conversations[1].Stats.TokensIn != 110 || list.Conversations[0].Stats.ToolCalls["conv_create"] != 1 {
		t.Errorf("conv_list = %s", out)
	}

	// A cancelled task counts in its conversation.
	f.srv.Enqueue(fakellm.Reply{Hang: true})
	if _, err := f.sess.Submit("hang"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(f.srv.Requests()) < 5 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	f.sess.Cancel()
	if st, _ := f.sess.ConversationStats(""); st.Cancelled != 1 || st.Tasks != 3 {
		t.Errorf("after a cancel: %+v", st)
	}

	// /status lists every conversation's metrics.
	f.run(t, "/status")
	outs := f.rec.find(event.CommandOutput)
	text := outs[len(outs)-1].Text
	for _, want := range []string{"tokens: 220 in, 22 out (140 of the input served from the cache)", "tool calls: 2 (read 2); 1 failed or denied", "tool calls: 1 (conv_create 1)", "tasks: 3 (1 cancelled, 0 failed)", "model calls: 2"} {
		if !strings.Contains(text, want) {
			t.Errorf("/status lacks %q:\n%s", want, text)
		}
	}

	// Saved with the session, restored on resume, never reset.
	before := f.sess.Conversations()
	f.sess.Close()
	opts := f.sess.opts
	opts.OnEvent = func(event.Event) {}
	again := mustResume(t, opts, f.sess.ID())
	after := again.Conversations()
	for i := range before {
		if !reflect.DeepEqual(before[i].Stats, after[i].Stats) {
			t.Errorf("conversation %d after resume\n got %+v\nwant %+v", i, after[i].Stats, before[i].Stats)
		}
	}
	f.srv.Enqueue(fakellm.Reply{Content: "more", Usage: usage(7, 1, 0)})
	if err := again.Run(t.Context(), "again"); err != nil {
		t.Fatal(err)
	}
	if st, _ := again.ConversationStats(""); st.TokensIn != before[0].Stats.TokensIn+7 || st.ModelCalls != 3 {
		t.Errorf("after resume and one more call: %+v", st)
	}
}
