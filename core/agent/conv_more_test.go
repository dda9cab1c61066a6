package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"github.com/coder-nvim/coder-nvim/core/hostpath"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/policy"
	"github.com/coder-nvim/coder-nvim/core/tools"
)

// A file written by a sub-conversation belongs to the user's turn that
// handed over: /undo takes it back.
func TestConvUndoAfterHandOver(t *testing.T) {
	f := convFixture(t, func(c *config.Config) { c.Mode = "auto-edit" })
	writeFile(t, filepath.Join(f.root, "keep.txt"), "old\n")
	f.srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("c1", "conv_create", map[string]any{"user_instruction": "write the notes"})}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{
			call("w1", "write", map[string]any{"path": "notes.txt", "content": "by the sub-conversation\n"}),
			call("w2", "write", map[string]any{"path": "keep.txt", "content": "changed\n"}),
		}},
		fakellm.Reply{Content: "written"},
		fakellm.Reply{Content: "the notes are written"},
	)
	f.run(t, "get the notes written")
	if got, err := os.ReadFile(filepath.Join(f.root, "notes.txt")); err != nil || string(got) != "by the sub-conversation\n" {
		t.Fatalf("the sub-conversation did not write: %q %v", got, err)
	}
	f.run(t, "/undo")
	if _, err := os.Stat(filepath.Join(f.root, "notes.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("/undo left the sub-conversation's new file: %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(f.root, "keep.txt")); string(got) != "old\n" {
		t.Errorf("/undo left keep.txt = %q, want the old text", got)
	}
}

// stuckTool ignores cancellation until released: the close timeout path.
type stuckTool struct {
	entered chan struct{}
	release chan struct{}
}

func (stuckTool) Spec() llm.Tool {
	return llm.Tool{Type: "function", Function: llm.FunctionDef{Name: "stuck", Parameters: json.RawMessage(`{"type":"object"}`)}}
}
func (stuckTool) Kind() tools.Kind { return tools.KindRead }
func (s stuckTool) Prepare(context.Context, *tools.Workspace, json.RawMessage) (*tools.Invocation, error) {
	return tools.NewInvocation("stuck", tools.KindRead, "stuck", func(context.Context) tools.Result {
		close(s.entered)
		<-s.release // deliberately not the context
		return tools.Result{Output: "finally", Summary: "ok"}
	}), nil
}

// Closing a conversation whose task ignores cancellation waits
// close_timeout, then abandons the task and reports it; the caller's call
// still gets exactly one result once the task ends.
func TestConvCloseTimeout(t *testing.T) {
	st := stuckTool{entered: make(chan struct{}), release: make(chan struct{})}
	released := false
	release := func() {
		if !released {
			released = true
			close(st.release)
		}
	}
	t.Cleanup(release)
	f := newFixture(t, func(c *config.Config, o *Options) {
		c.Conversations.CloseTimeout = "200ms"
		o.Tools = append(tools.Builtins(hostpath.Resolve(os.Getenv("PATH"), "")), st)
		o.NewID = seqIDs()
	})
	f.srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("c1", "conv_create", map[string]any{"user_instruction": "hang"})}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("s1", "stuck", map[string]any{})}},
		fakellm.Reply{Content: "the helper hung"},
	)
	if _, err := f.sess.Submit("delegate"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-st.entered:
	case <-time.After(30 * time.Second):
		t.Fatal("the stuck tool never ran")
	}
	sub := f.sess.Conversations()[1].ID
	start := time.Now()
	err := f.sess.CloseConversation(sub)
	if !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "abandoned") {
		t.Errorf("close of a stuck conversation = %v, want an ErrTimeout naming the abandon", err)
	}
	if d := time.Since(start); d < 200*time.Millisecond {
		t.Errorf("close returned after %v, before close_timeout", d)
	}
	closed := f.rec.find(event.ConversationClosed)
	if len(closed) != 1 || closed[0].Conversation != string(sub) || !strings.Contains(closed[0].Text, "did not stop within 200ms") {
		t.Errorf("ConversationClosed events = %+v", closed)
	}
	if n := len(f.sess.Conversations()); n != 1 {
		t.Errorf("%d conversations after the close, want the root only", n)
	}
	release()
	f.sess.Wait()
	hist := f.sess.History("")
	checkPairs(t, hist)
	if m := toolMsg(hist, "c1"); m == nil || !strings.Contains(m.Content, `"error"`) {
		t.Errorf("caller's result after the abandon = %+v", m)
	}
	if err := f.sess.CloseConversation(sub); err != nil {
		t.Errorf("closing again: %v", err)
	}
}

// base_instruction_file: the file's text becomes the sub-conversation's
// instructions; a read-deny rule, a path outside the workspace and both
// instruction fields at once are refused as results, creating nothing.
func TestConvBaseInstructionFile(t *testing.T) {
	f := convFixture(t, func(c *config.Config) {
		c.Permissions.Rules = []policy.Rule{{Tool: "read", Pattern: "secret.md", Decision: policy.Deny}}
	})
	writeFile(t, filepath.Join(f.root, "reviewer.md"), "You review Go code strictly.")
	writeFile(t, filepath.Join(f.root, "secret.md"), "TOP SECRET INSTRUCTIONS")
	f.srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{
			call("d1", "conv_create", map[string]any{"base_instruction_file": "secret.md", "user_instruction": "x"}),
			call("d2", "conv_create", map[string]any{"base_instruction_file": "../outside.md", "user_instruction": "x"}),
			call("d3", "conv_create", map[string]any{"base_instruction_file": "reviewer.md", "base_instruction_text": "t", "user_instruction": "x"}),
			call("ok", "conv_create", map[string]any{"base_instruction_file": "reviewer.md", "user_instruction": "review"}),
		}},
		fakellm.Reply{Content: "reviewed"},
		fakellm.Reply{Content: "done"},
	)
	f.run(t, "review with a file")
	hist := f.sess.History("")
	checkPairs(t, hist)
	for id, want := range map[string]string{"d1": "not allowed", "d2": "base_instruction_file", "d3": "mutually exclusive"} {
		if m := toolMsg(hist, id); m == nil || !strings.Contains(m.Content, want) || !strings.Contains(m.Content, `"error"`) {
			t.Errorf("%s result = %+v, want an error naming %q", id, m, want)
		}
	}
	if n := len(f.sess.Conversations()); n != 2 {
		t.Errorf("%d conversations, want the root and the one allowed", n)
	}
	reqs := f.srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	if sys := reqs[1].Messages[0].Content; sys != instructions("You review Go code strictly.", f.root, policy.ModeDefault, nil) {
		t.Errorf("sub-conversation instructions = %q", sys)
	}
	for i, r := range reqs {
		if bytes.Contains(r.Raw, []byte("TOP SECRET")) {
			t.Errorf("request %d carries the denied file", i)
		}
	}
}

// Image items reach the sub-conversation's first message as image parts
// and are counted in first_items_count; a URL that is no image is an
// error result.
func TestConvCreateImageItems(t *testing.T) {
	f := convFixture(t, nil)
	img := "data:image/png;base64,iVBORw0KGgo="
	f.srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{
			call("bad", "conv_create", map[string]any{"items": []any{map[string]any{"type": "image_url", "image_url": "file:///etc/passwd"}}}),
			call("c1", "conv_create", map[string]any{"user_instruction": "describe", "items": []any{
				map[string]any{"type": "text", "text": "what is in this picture?"},
				map[string]any{"type": "image_url", "image_url": map[string]any{"url": img}},
			}}),
		}},
		fakellm.Reply{Content: "a cat"},
		fakellm.Reply{Content: "it is a cat"},
	)
	f.run(t, "look")
	hist := f.sess.History("")
	if m := toolMsg(hist, "bad"); m == nil || !strings.Contains(m.Content, "image_url must be") {
		t.Errorf("bad image result = %+v", m)
	}
	reqs := f.srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	sub := reqs[1].Messages
	if len(sub) != 3 || sub[1].Content != "describe" || sub[2].Content != "what is in this picture?" {
		t.Fatalf("sub-conversation messages = %+v", sub)
	}
	if !bytes.Contains(reqs[1].Raw, []byte(`"image_url":{"url":"`+img+`"`)) {
		t.Errorf("the image did not go to the model as an image part:\n%s", reqs[1].Raw)
	}
	m := toolMsg(hist, "c1")
	if m == nil || !strings.Contains(m.Content, `"first_items_count":2`) || !strings.Contains(m.Content, `"last_assistant_message":"a cat"`) {
		t.Errorf("conv_create result = %+v", m)
	}
	// conv_history gives the picture back as the message's attachment.
	convs := f.sess.Conversations()
	if len(convs) != 2 {
		t.Fatalf("%d conversations", len(convs))
	}
	out, err := f.sess.convHistory(t.Context(), nil, json.RawMessage(`{"conversation_id":"`+string(convs[1].ID)+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Entries []struct {
			Role        string `json:"role"`
			Text        string `json:"text"`
			Attachments []struct {
				Type     string `json:"type"`
				ImageURL string `json:"image_url"`
			} `json:"attachments"`
		} `json:"entries"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	var pictures []string
	for _, e := range got.Entries {
		for _, a := range e.Attachments {
			pictures = append(pictures, e.Role+" "+a.Type+" "+a.ImageURL)
		}
	}
	if len(pictures) != 1 || pictures[0] != "user image "+img {
		t.Errorf("conv_history attachments %q in %s", pictures, out)
	}
}

// mcp_allowlist: server/tool is normalised to server__tool with a
// deprecation notice given once per session; an invalid or unknown name is
// an error.
func TestConvAllowlistDeprecationOnce(t *testing.T) {
	f := convFixture(t, nil)
	f.srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{
			call("bad", "conv_create", map[string]any{"user_instruction": "x", "mcp_allowlist": []string{"git hub/tool"}}),
			call("c1", "conv_create", map[string]any{"user_instruction": "one", "mcp_allowlist": []string{"github/search", "fs__read"}}),
		}},
		fakellm.Reply{Content: "first"},
	)
	f.run(t, "allowlists")
	f.srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("c2", "conv_create", map[string]any{"user_instruction": "two", "mcp_allowlist": []string{"github/issues"}})}},
		fakellm.Reply{Content: "second"},
	)
	f.run(t, "again")
	hist := f.sess.History("")
	checkPairs(t, hist)
	if m := toolMsg(hist, "bad"); m == nil || !strings.Contains(m.Content, "not a fully qualified MCP tool name") {
		t.Errorf("invalid allowlist result = %+v", m)
	}
	var notes []string
	for _, n := range f.rec.find(event.Notice) {
		if strings.Contains(n.Text, "deprecated") {
			notes = append(notes, n.Text)
		}
	}
	if len(notes) != 1 {
		t.Errorf("deprecation notices = %q, want exactly one", notes)
	}
	// No MCP server is configured: the normalised names are unknown, an
	// error result naming them (TestMCPAllowlistViews covers real servers).
	for _, id := range []string{"c1", "c2"} {
		if m := toolMsg(hist, id); m == nil || !strings.Contains(m.Content, "unknown MCP tools in mcp_allowlist") || !strings.Contains(m.Content, "github__") {
			t.Errorf("%s result = %+v", id, m)
		}
	}
	if convs := f.sess.Conversations(); len(convs) != 1 {
		t.Errorf("%d conversations, want only the root", len(convs))
	}
}
