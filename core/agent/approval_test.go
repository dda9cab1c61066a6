package agent

import (
	"os"

	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/policy"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestApprovals(t *testing.T) {
	tests := []struct {
		name     string
		decision Decision
		written  bool
		asks     int
	}{
		{"deny", Deny, false, 2},
		{"once", AllowOnce, true, 2},
		{"always", AllowAlways, true, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, nil) // default mode: writes ask
			f.rec.onAsk = func(a *event.Approval) {
				if err := f.sess.Answer(a.ID, Answer{Decision: tt.decision}); err != nil {
					t.Error(err)
				}
			}
			f.srv.Enqueue(
				fakellm.Reply{ToolCalls: []llm.ToolCall{call("w1", "write", map[string]any{"path": "src/a.txt", "content": "one\n"})}},
				fakellm.Reply{ToolCalls: []llm.ToolCall{call("w2", "write", map[string]any{"path": "src/b.txt", "content": "two\n"})}},
				fakellm.Reply{Content: "done"},
			)
			f.run(t, "write two files")
			asks := f.rec.find(event.ApprovalRequested)
			if len(asks) != tt.asks {
				t.Errorf("%d approval requests, want %d", len(asks), tt.asks)
			}
			if len(asks) > 0 && (asks[0].Approval.Tool != "write" || asks[0].Approval.Reason == "" || len(asks[0].Approval.Diffs) != 1) {
				t.Errorf("request = %+v", asks[0].Approval)
			}
			for _, name := range []string{"src/a.txt", "src/b.txt"} {
				_, err := os.Stat(filepath.Join(f.root, name))
				if (err == nil) != tt.written {
					t.Errorf("%s written = %v, want %v", name, err == nil, tt.written)
				}
			}
			msgs := f.srv.Requests()[1].Messages
			if res := msgs[len(msgs)-1].Content; tt.decision == Deny && !strings.Contains(res, "denied") {
				t.Errorf("model not told of the denial: %q", res)
			}
		})
	}
}

func TestApprovalHunkReview(t *testing.T) {
	f := newFixture(t, nil)
	writeFile(t, filepath.Join(f.root, "f.txt"), "a\nb\nc\nd\ne\n")
	f.rec.onAsk = func(a *event.Approval) {
		d := a.Diffs[0]
		if len(d.Hunks) != 2 {
			t.Errorf("hunks = %+v", d.Hunks)
		}
		f.sess.Answer(a.ID, Answer{Decision: AllowOnce, Accepted: map[string][]bool{d.Path: {true, false}}})
	}
	patch := "*** Begin Patch\n*** Update File: f.txt\n@@\n a\n-b\n+B\n c\n d\n-e\n+E\n*** End Patch\n"
	f.srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("p", "patch", map[string]any{"patch": patch})}},
		fakellm.Reply{Content: "ok"},
	)
	f.run(t, "patch")
	got, _ := os.ReadFile(filepath.Join(f.root, "f.txt"))
	if string(got) != "a\nB\nc\nd\ne\n" {
		t.Errorf("file = %q", got)
	}
}

func TestNonInteractiveApproval(t *testing.T) {
	tests := []struct {
		name    string
		mutate  func(*config.Config, *Options)
		written bool
		want    string
	}{
		{"refused with how-to", func(c *config.Config, o *Options) { o.Prompter = false }, false, "--yes"},
		{"yes flag", func(c *config.Config, o *Options) { o.Prompter = false; o.AllowAsks = true }, true, ""},
		{"auto_approve_ask", func(c *config.Config, o *Options) { o.Prompter = false; c.AutoApproveAsk = true }, true, ""},
		{"interactive false", func(c *config.Config, o *Options) {
			o.Prompter = true
			no := false
			c.Approval.Interactive = &no
		}, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, tt.mutate)
			f.srv.Enqueue(
				fakellm.Reply{ToolCalls: []llm.ToolCall{call("w", "write", map[string]any{"path": "x.txt", "content": "x"})}},
				fakellm.Reply{Content: "ok"},
			)
			f.run(t, "write")
			_, err := os.Stat(filepath.Join(f.root, "x.txt"))
			if (err == nil) != tt.written {
				t.Errorf("written = %v", err == nil)
			}
			if len(f.rec.find(event.ApprovalRequested)) != 0 {
				t.Error("prompted although nobody can answer")
			}
			msgs := f.srv.Requests()[1].Messages
			if res := msgs[len(msgs)-1].Content; !strings.Contains(res, tt.want) {
				t.Errorf("result %q lacks %q", res, tt.want)
			}
		})
	}
}

func TestConversationPolicyOnlyNarrows(t *testing.T) {
	f := newFixture(t, func(c *config.Config, _ *Options) { c.Mode = "auto-edit" })
	strict := policy.Policy{Preset: policy.PresetStrict, Rules: []policy.Rule{{Tool: "write", Pattern: "**", Decision: policy.Deny}}}
	narrow, err := f.sess.OpenConversation("", &strict)
	if err != nil {
		t.Fatal(err)
	}
	yolo := policy.Policy{Preset: policy.PresetYolo}
	wide, err := f.sess.OpenConversation("", &yolo)
	if err != nil {
		t.Fatal(err)
	}
	run := func(conv ConversationID, path string) {
		f.srv.Enqueue(
			fakellm.Reply{ToolCalls: []llm.ToolCall{call("w", "write", map[string]any{"path": path, "content": "x"})}},
			fakellm.Reply{ToolCalls: []llm.ToolCall{call("b", "bash", map[string]any{"command": "rm -rf build"})}},
			fakellm.Reply{Content: "ok"},
		)
		if _, err := f.sess.SubmitTo(conv, "go"); err != nil {
			t.Fatal(err)
		}
		f.sess.Wait()
	}
	f.rec.onAsk = func(a *event.Approval) { f.sess.Answer(a.ID, Answer{Decision: Deny}) }
	run(narrow, "n.txt")
	if _, err := os.Stat(filepath.Join(f.root, "n.txt")); err == nil {
		t.Error("narrowed conversation wrote despite its deny rule")
	}
	run(wide, "w.txt")
	if _, err := os.Stat(filepath.Join(f.root, "w.txt")); err != nil {
		t.Error("auto-edit session write failed in the wide conversation")
	}
	// The yolo conversation policy must not let a dangerous command through
	// without asking: the session's balanced preset still asks.
	asks := 0
	for _, a := range f.rec.find(event.ApprovalRequested) {
		if a.Conversation == string(wide) && a.Approval.Tool == "bash" {
			asks++
		}
	}
	if asks != 1 {
		t.Errorf("dangerous bash in the wide conversation asked %d times, want 1", asks)
	}
}

// approval.scope and approval.ttl shape what "always" remembers.
func TestAlwaysScopeAndTTL(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	f := newFixture(t, func(c *config.Config, o *Options) {
		c.Approval.Scope = "conversation"
		c.Approval.TTL = "1m"
		o.Now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	})
	f.rec.onAsk = func(a *event.Approval) { f.sess.Answer(a.ID, Answer{Decision: AllowAlways}) }
	other, err := f.sess.OpenConversation("", nil)
	if err != nil {
		t.Fatal(err)
	}
	write := func(conv ConversationID, path string) {
		t.Helper()
		f.srv.Enqueue(fakellm.Reply{ToolCalls: []llm.ToolCall{call("w", "write", map[string]any{"path": path, "content": "x"})}}, fakellm.Reply{Content: "ok"})
		if _, err := f.sess.SubmitTo(conv, "write"); err != nil {
			t.Fatal(err)
		}
		f.sess.Wait()
	}
	asks := func() int { return len(f.rec.find(event.ApprovalRequested)) }
	write("", "src/a.txt")
	if a := f.rec.find(event.ApprovalRequested); len(a) != 1 || !strings.Contains(a[0].Approval.Scope, "conversation") || !strings.Contains(a[0].Approval.Scope, "1m") {
		t.Fatalf("first ask: %+v", a)
	}
	write("", "src/b.txt")
	if asks() != 1 {
		t.Errorf("remembered approval not used in its conversation (%d asks)", asks())
	}
	write(other, "src/c.txt")
	if asks() != 2 {
		t.Errorf("approval leaked into another conversation (%d asks)", asks())
	}
	mu.Lock()
	now = now.Add(2 * time.Minute)
	mu.Unlock()
	write("", "src/d.txt")
	if asks() != 3 {
		t.Errorf("expired approval still used (%d asks)", asks())
	}
}
