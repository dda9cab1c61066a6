package agent

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/agent/command"
	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/policy"
	"github.com/coder-nvim/coder-nvim/core/store"
)

func TestUserOpensConversation(t *testing.T) {
	f := convFixture(t, func(c *config.Config) { c.Permissions.Preset = "balanced" })
	writeFile(t, filepath.Join(f.root, "brief.md"), "You review Go code.")
	f.srv.Enqueue(fakellm.Reply{Content: "reviewed"})
	f.run(t, `/conversation new instructions=@brief.md model=cheap mcp=none storage=headers_only preset=yolo deny="bash:git push*" tools=todo,bash review the code`)

	convs := f.sess.Conversations()
	if len(convs) != 2 {
		t.Fatalf("conversations: %+v", convs)
	}
	f.sess.mu.Lock()
	c := f.sess.convs[convs[1].ID]
	f.sess.mu.Unlock()
	if c.Instructions != "You review Go code." || c.Model != "cheap" || c.MCPAllowlist == nil || len(c.MCPAllowlist) != 0 || c.Storage != "headers_only" || c.Tools != (ToolPrefs{Plan: true, Shell: true}) {
		t.Errorf("context = %+v", c)
	}
	if c.Policy == nil || c.Policy.Preset != policy.PresetBalanced || len(c.Policy.Rules) != 1 || c.Policy.Rules[0].Pattern != "git push*" {
		t.Errorf("policy = %+v", c.Policy)
	}
	reqs := f.srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	r := reqs[0]
	if r.Model != "cheap" || !strings.HasPrefix(r.Messages[0].Content, "You review Go code.") || len(r.Messages) != 2 || r.Messages[1].Content != "review the code" {
		t.Errorf("request: model %s, messages %+v", r.Model, r.Messages)
	}
	if hasTool(r.Tools, "patch") || !hasTool(r.Tools, "bash") || !hasTool(r.Tools, "todo") {
		t.Errorf("tools offered: %v", toolNames(r.Tools))
	}
	var notice, output string
	for _, e := range f.rec.events {
		switch e.Kind {
		case event.Notice:
			notice += e.Text
		case event.CommandOutput:
			output += e.Text
		}
	}
	want := "preset yolo clamped to the session's balanced"
	if !strings.Contains(notice, want) || !strings.Contains(output, want) || !strings.Contains(output, "opened conversation "+string(c.ID)) {
		t.Errorf("notice %q, output %q: want both to say %q", notice, output, want)
	}
	// The command's task hands the user's turn on (Replaced, as a
	// hand-over does); the new conversation's run ends it.
	ends := f.rec.find(event.TaskComplete)
	aborted := f.rec.find(event.TurnAborted)
	if len(ends) != 1 || ends[0].Conversation != string(c.ID) || ends[0].Text != "reviewed" || len(aborted) != 1 || aborted[0].Reason != event.ReasonReplaced {
		t.Fatalf("task ends = %+v, aborts %+v", ends, aborted)
	}
	// Its first run is a user turn of its own (/undo covers it).
	f.sess.mu.Lock()
	turns := append([]store.Turn(nil), f.sess.turns...)
	f.sess.mu.Unlock()
	if len(turns) != 1 || turns[0].Task != ends[0].Task || turns[0].Input != "review the code" {
		t.Errorf("turns = %+v", turns)
	}

	// StartConversation runs one opened directly (the Neovim form).
	id, _, err := f.sess.NewConversation(t.Context(), []command.Setting{{Key: "user", Value: "count to two"}}, "")
	if err != nil {
		t.Fatal(err)
	}
	f.srv.Enqueue(fakellm.Reply{Content: "1 2"})
	if _, err := f.sess.StartConversation(id); err != nil {
		t.Fatal(err)
	}
	f.sess.Wait()
	if h := f.sess.History(id); len(h) != 2 || h[0].Content != "count to two" || h[1].Content != "1 2" {
		t.Errorf("started conversation history = %+v", h)
	}
	empty, _, _ := f.sess.NewConversation(t.Context(), nil, "")
	if _, err := f.sess.StartConversation(empty); err == nil {
		t.Error("a conversation without a first message was started")
	}

	// Bad settings are refused whole, naming the problem.
	for line, want := range map[string]string{
		"/conversation new storage=some x":          "storage",
		"/conversation new tools=web x":             "not todo, patch or bash",
		"/conversation new instructions=@nope.md x": "nope.md",
		"/conversation new deny=bash:x user=a b":    "given twice",
		"/conversation new mcp=a/b/c x":             "not a fully qualified",
		"/conversation frobnicate":                  "unknown /conversation",
	} {
		n := len(f.rec.find(event.Error))
		f.run(t, line)
		errs := f.rec.find(event.Error)
		if len(errs) != n+1 || !strings.Contains(errs[n].Text, want) {
			t.Errorf("%s: errors %+v, want one with %q", line, errs[n:], want)
		}
	}
	if n := len(f.sess.Conversations()); n != 4 {
		t.Errorf("%d conversations after refused requests, want 4", n)
	}
}

// SetConversationContext changes instructions and model for later calls
// without rewriting the history; a wider preset is clamped and told; the
// change survives a resume.
func TestSetConversationContext(t *testing.T) {
	f := convFixture(t, func(c *config.Config) { c.Permissions.Preset = "auto-edit" })
	id, clamps, err := f.sess.NewConversation(t.Context(), []command.Setting{{Key: "instructions", Value: "first rules"}}, "")
	if err != nil || len(clamps) != 0 {
		t.Fatal(err, clamps)
	}
	f.srv.Enqueue(fakellm.Reply{Content: "one"}, fakellm.Reply{Content: "two"})
	if _, err := f.sess.SubmitTo(id, "hello"); err != nil {
		t.Fatal(err)
	}
	f.sess.Wait()
	if _, err := f.sess.SubmitTo(id, `/conversation set instructions "second rules"`); err != nil {
		t.Fatal(err)
	}
	f.sess.Wait()
	f.run(t, "/conversation set "+string(id)+" model=other preset=yolo allow=bash")
	if errs := f.rec.find(event.Error); len(errs) > 0 {
		t.Fatalf("errors: %+v", errs)
	}
	if _, err := f.sess.SubmitTo(id, "again"); err != nil {
		t.Fatal(err)
	}
	f.sess.Wait()
	reqs := f.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	before, after := reqs[0], reqs[1]
	if !strings.HasPrefix(before.Messages[0].Content, "first rules") || !strings.HasPrefix(after.Messages[0].Content, "second rules") || after.Model != "other" || before.Model == "other" {
		t.Errorf("system/model: before %q %s, after %q %s", before.Messages[0].Content[:12], before.Model, after.Messages[0].Content[:12], after.Model)
	}
	// The history is not rewritten: everything after the system message
	// of the first request comes first in the second.
	for i, m := range before.Messages[1:] {
		if got := after.Messages[1+i]; got.Role != m.Role || got.Content != m.Content {
			t.Errorf("history message %d changed: %+v → %+v", i, m, got)
		}
	}
	var notices []string
	for _, e := range f.rec.find(event.Notice) {
		notices = append(notices, e.Text)
	}
	all := strings.Join(notices, "\n")
	if !strings.Contains(all, "preset yolo clamped to the session's auto-edit") || !strings.Contains(all, `rule allow bash "*" allows nothing the session does not`) {
		t.Errorf("notices: %s", all)
	}
	f.sess.mu.Lock()
	pol := f.sess.convs[id].Policy
	f.sess.mu.Unlock()
	if pol == nil || pol.Preset != policy.PresetAutoEdit {
		t.Errorf("policy %+v, want the auto-edit preset", pol)
	}

	// Saved: a resumed session has the new context.
	f.sess.Close()
	opts := f.sess.opts
	opts.OnEvent = func(event.Event) {}
	again := mustResume(t, opts, f.sess.ID())
	again.mu.Lock()
	rc := again.convs[id]
	again.mu.Unlock()
	if rc == nil || rc.Instructions != "second rules" || rc.Model != "other" || rc.Policy == nil || rc.Policy.Preset != policy.PresetAutoEdit || len(rc.messages()) != 4 {
		t.Errorf("resumed context = %+v", rc)
	}
}

// SetConversationContext on the root, recorded in the journal only (no
// snapshot after it), comes back on resume; refresh_mcp without MCP is
// harmless; an unknown key or conversation is refused.
func TestSetRootContextJournaled(t *testing.T) {
	f := convFixture(t, nil)
	f.srv.Enqueue(fakellm.Reply{Content: "hi"})
	f.run(t, "hello")
	if _, _, err := f.sess.SetConversationContext(t.Context(), "", []command.Setting{{Key: "instructions", Value: "root rules"}, {Key: "refresh_mcp", Value: ""}}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.sess.SetConversationContext(t.Context(), "", []command.Setting{{Key: "colour", Value: "blue"}}); err == nil || !strings.Contains(err.Error(), "unknown setting") {
		t.Errorf("unknown key: %v", err)
	}
	if _, _, err := f.sess.SetConversationContext(t.Context(), "nope", []command.Setting{{Key: "model", Value: "x"}}); err == nil {
		t.Error("unknown conversation accepted")
	}
	f.sess.Close()
	opts := f.sess.opts
	again := mustResume(t, opts, f.sess.ID())
	again.mu.Lock()
	got := again.rootConv.Instructions
	again.mu.Unlock()
	if got != "root rules" || len(again.History("")) != 2 {
		t.Errorf("root after resume: %q, %d messages", got, len(again.History("")))
	}
}

// conv_create's clamps reach both the model (the result's notes) and the
// user (a notice): storage wider than the session's and a tool the caller
// lacks.
func TestConvCreateClampsToldToBoth(t *testing.T) {
	f := newFixture(t, func(c *config.Config, o *Options) { c.Storage.Policy = "headers_only"; o.NewID = seqIDs() })
	f.srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("c1", "conv_create", map[string]any{"user_instruction": "no shell", "internal_tools": map[string]any{"use_streamable_shell_tool": false}})}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("c2", "conv_create", map[string]any{"user_instruction": "wider", "storage_policy": "full", "internal_tools": map[string]any{"use_streamable_shell_tool": true}})}},
		fakellm.Reply{Content: "grandchild"},
		fakellm.Reply{Content: "child"},
		fakellm.Reply{Content: "root"},
	)
	f.run(t, "nest")
	child := f.sess.Conversations()[1].ID
	tm := toolMsg(f.sess.History(child), "c2")
	var res struct {
		Notes []string `json:"notes"`
	}
	if tm == nil || json.Unmarshal([]byte(tm.Content), &res) != nil {
		t.Fatalf("c2 result = %+v", tm)
	}
	notes := strings.Join(res.Notes, "\n")
	var told string
	for _, e := range f.rec.find(event.Notice) {
		told += e.Text + "\n"
	}
	for _, want := range []string{"storage_policy full clamped to headers_only", "use_streamable_shell_tool: not enabled"} {
		if !strings.Contains(notes, want) || !strings.Contains(told, want) {
			t.Errorf("%q: in the result %v, told the user %v", want, strings.Contains(notes, want), strings.Contains(told, want))
		}
	}
}

// `set mcp=` narrows a live conversation's MCP view from its next model
// call, also in the middle of a task; names no server defines are refused.
func TestSetConversationMCPView(t *testing.T) {
	writes := 0
	f := mcpFixture(t, "default", true, &writes)
	f.srv.Enqueue(fakellm.Reply{Content: "first"})
	f.run(t, "hello")
	if got := strings.Join(toolNames(f.srv.Requests()[0].Tools), " "); !strings.Contains(got, "web__echo web__picture web__write") {
		t.Fatalf("first request offered %s", got)
	}
	if _, _, err := f.sess.SetConversationContext(t.Context(), "", []command.Setting{{Key: "mcp", Value: "web__nope"}}); err == nil || !strings.Contains(err.Error(), "web__nope") {
		t.Errorf("unknown MCP name: %v", err)
	}
	f.run(t, "/conversation set mcp web__echo")
	f.srv.Enqueue(fakellm.Reply{Content: "second"})
	f.run(t, "again")
	reqs := f.srv.Requests()
	got := toolNames(reqs[len(reqs)-1].Tools)
	if n := len(got); n == 0 || got[n-1] != "web__echo" || strings.Contains(strings.Join(got, " "), "web__write") {
		t.Errorf("after set mcp: offered %v", got)
	}
}
