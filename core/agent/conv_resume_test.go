package agent

import (
	"bytes"
	"encoding/json"

	"strings"

	"testing"

	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/policy"
)

// Sub-conversations survive a restart whole: context, narrowing policy,
// messages, order.
func TestConvResume(t *testing.T) {
	f := convFixture(t, nil)
	strict := policy.Policy{Preset: policy.PresetStrict}
	narrow, err := f.sess.OpenConversation("be careful", &strict)
	if err != nil {
		t.Fatal(err)
	}
	yolo := policy.Policy{Preset: policy.PresetYolo}
	wide, err := f.sess.OpenConversation("", &yolo)
	if err != nil {
		t.Fatal(err)
	}
	if n := f.rec.find(event.Notice); len(n) != 1 || !strings.Contains(n[0].Text, "clamped") {
		t.Errorf("widening notice = %+v", n)
	}
	f.srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("c1", "conv_create", map[string]any{"user_instruction": "sub", "model": "cheap-model", "internal_tools": map[string]any{"use_streamable_shell_tool": false, "include_apply_patch_tool": false}})}},
		fakellm.Reply{Content: "sub answer"},
		fakellm.Reply{Content: "root answer"},
	)
	f.run(t, "go")
	if m := f.srv.Requests()[1]; m.Model != "cheap-model" || hasTool(m.Tools, "patch") || !hasTool(m.Tools, "bash") || !hasTool(m.Tools, "read") {
		t.Errorf("sub-conversation request: model %s, tools %d", m.Model, len(m.Tools))
	}
	before := f.sess.Conversations()
	f.sess.Close() // one writer: the session is given up before it is resumed

	opts := f.sess.opts
	opts.OnEvent = func(event.Event) {}
	again := mustResume(t, opts, f.sess.ID())
	after := again.Conversations()
	if len(after) != len(before) {
		t.Fatalf("%d conversations after resume, want %d", len(after), len(before))
	}
	for i := range before {
		if before[i].ID != after[i].ID || before[i].Messages != after[i].Messages {
			t.Errorf("conversation %d: %+v, want %+v", i, after[i], before[i])
		}
	}
	for id, want := range map[ConversationID]policy.Preset{narrow: policy.PresetStrict, wide: policy.PresetBalanced} {
		c, _ := again.conversation(id)
		if c.Policy == nil || c.Policy.Preset != want {
			t.Errorf("policy of %s after resume = %+v, want %s", id, c.Policy, want)
		}
	}
	if c, _ := again.conversation(narrow); c.Instructions != "be careful" {
		t.Errorf("instructions lost: %q", c.Instructions)
	}
	sub := after[3]
	c, _ := again.conversation(sub.ID)
	if c.Model != "cheap-model" || c.Tools.Shell || c.Tools.Patch || !c.Tools.Plan {
		t.Errorf("sub context after resume: model %q tools %+v", c.Model, c.Tools)
	}
	f.srv.Enqueue(fakellm.Reply{Content: "more"})
	if _, err := again.SubmitTo(sub.ID, "continue"); err != nil {
		t.Fatal(err)
	}
	again.Wait()
	last := f.srv.Requests()[3]
	if len(last.Messages) != 4 || last.Messages[1].Content != "sub" || last.Messages[2].Content != "sub answer" || last.Model != "cheap-model" {
		t.Errorf("resumed sub request = %+v", last.Messages)
	}
}

func hasTool(ts []llm.Tool, name string) bool {
	for _, t := range ts {
		if t.Function.Name == name {
			return true
		}
	}
	return false
}

// Each root request starts with the previous root request byte for byte
// (provider prompt caches): over three turns, the first a complex task,
// and a hand-over to a sub-conversation and back.
func TestConvPromptStability(t *testing.T) {
	f := convFixture(t, nil)
	f.srv.Enqueue(fakellm.Reply{Content: "planned"})
	f.run(t, "1. rename the config loader 2. migrate the tests 3. update the docs")
	f.srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("c1", "conv_create", map[string]any{"base_instruction_text": "You summarise.", "user_instruction": "summarise"})}},
		fakellm.Reply{Content: "summary"},
		fakellm.Reply{Content: "got it"},
	)
	f.run(t, "delegate")
	f.srv.Enqueue(fakellm.Reply{Content: "bye"})
	f.run(t, "thanks")

	var roots []fakellm.Request
	for _, r := range f.srv.Requests() {
		if strings.Contains(r.Messages[0].Content, "coding agent") {
			roots = append(roots, r)
		}
	}
	if len(roots) != 4 {
		t.Fatalf("%d root requests, want 4", len(roots))
	}
	for i := 1; i < len(roots); i++ {
		prev, cur := roots[i-1], roots[i]
		pm, _ := json.Marshal(prev.Messages)
		cm, _ := json.Marshal(cur.Messages)
		pt, _ := json.Marshal(prev.Tools)
		ct, _ := json.Marshal(cur.Tools)
		if !bytes.HasPrefix(cm, pm[:len(pm)-1]) || !bytes.Equal(pt, ct) || prev.Model != cur.Model {
			t.Errorf("root request %d does not extend request %d:\nprev %s\ncur  %s", i, i-1, pm, cm)
		}
	}
}

// The same scripted session run twice sends identical tool lists and
// request bodies.
func TestConvDeterminism(t *testing.T) {
	runOnce := func() [][]byte {
		f := convFixture(t, nil)
		f.srv.Enqueue(
			fakellm.Reply{ToolCalls: []llm.ToolCall{call("c1", "conv_create", map[string]any{"user_instruction": "sub"}), call("c2", "conv_list", map[string]any{})}},
			fakellm.Reply{ToolCalls: []llm.ToolCall{call("c3", "conv_list", map[string]any{})}},
			fakellm.Reply{Content: "sub done"},
			fakellm.Reply{ToolCalls: []llm.ToolCall{call("c4", "conv_send", map[string]any{"conversation_id": "00000000-0000-4000-8000-000000000003", "text": "again"})}},
			fakellm.Reply{Content: "sub again"},
			fakellm.Reply{Content: "root done"},
		)
		f.run(t, "go")
		var out [][]byte
		for _, r := range f.srv.Requests() {
			out = append(out, bytes.ReplaceAll(r.Raw, []byte(f.root), []byte("ROOT")))
		}
		return out
	}
	a, b := runOnce(), runOnce()
	if len(a) != 6 || len(a) != len(b) {
		t.Fatalf("%d and %d requests, want 6", len(a), len(b))
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			t.Errorf("request %d differs:\n%s\n%s", i, a[i], b[i])
		}
	}
}
