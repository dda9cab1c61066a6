package agent

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
)

// gatedScript prints a line, waits for the file gate, then prints more: a
// command that only ends if its first line was passed on while it ran.
const gatedScript = "printf 'one\\n'; while [ ! -e gate ]; do sleep 0.01; done; printf 'two\\n'; sleep 0.2; printf 'three\\n'\n"

// streamFixture is a yolo fixture whose event hook creates the workspace
// file gate once a ToolOutputDelta holding "one" arrived.
func streamFixture(t *testing.T) *fixture {
	t.Helper()
	var once sync.Once
	var root string
	f := newFixture(t, func(c *config.Config, o *Options) {
		c.Mode = "yolo"
		inner := o.OnEvent
		o.OnEvent = func(ev event.Event) {
			inner(ev)
			if ev.Kind == event.ToolOutputDelta && strings.Contains(ev.Text, "one") {
				once.Do(func() { os.WriteFile(filepath.Join(root, "gate"), nil, 0o644) })
			}
		}
	})
	root = f.root
	writeFile(t, filepath.Join(f.root, "s.sh"), gatedScript)
	return f
}

// TestBashStreamsWhileRunning: the output of a running bash call reaches
// the front ends as deltas (the command goes on only once its first line
// did), all before the call's end, each with the call and the session,
// conversation and task ids; the model's tool message is unchanged.
func TestBashStreamsWhileRunning(t *testing.T) {
	f := streamFixture(t)
	f.srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("b1", "bash", map[string]any{"command": "bash s.sh", "timeout_ms": 20000})}},
		fakellm.Reply{Content: "done"},
	)
	f.run(t, "run it")

	if m := toolMsg(f.sess.History(""), "b1"); m == nil || m.Content != "one\ntwo\nthree\n[exit code 0]" {
		t.Fatalf("tool message = %+v", m)
	}
	f.rec.mu.Lock()
	events := append([]event.Event(nil), f.rec.events...)
	f.rec.mu.Unlock()
	var streamed strings.Builder
	ended := false
	for _, e := range events {
		switch e.Kind {
		case event.ToolOutputDelta:
			if ended {
				t.Errorf("a delta after the call's end: %q", e.Text)
			}
			if e.Session != string(f.sess.ID()) || e.Conversation == "" || e.Task == "" || e.Tool == nil || e.Tool.CallID != "b1" || e.Tool.Name != "bash" {
				t.Errorf("delta without its ids or call: %+v", e)
			}
			streamed.WriteString(e.Text)
		case event.ToolCallEnd:
			ended = ended || e.Tool.CallID == "b1"
		}
	}
	if streamed.String() != "one\ntwo\nthree\n" {
		t.Errorf("streamed %q", streamed.String())
	}
}

// TestShellStreamingSwitch: use_streamable_shell_tool false keeps bash
// offered and runs it, streaming nothing; true streams it.
func TestShellStreamingSwitch(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		t.Run(map[bool]string{false: "false", true: "true"}[streaming], func(t *testing.T) {
			f := convFixture(t, func(c *config.Config) { c.Mode = "yolo" })
			f.srv.Enqueue(
				fakellm.Reply{ToolCalls: []llm.ToolCall{call("c1", "conv_create", map[string]any{"user_instruction": "run",
					"internal_tools": map[string]any{"use_streamable_shell_tool": streaming}})}},
				fakellm.Reply{ToolCalls: []llm.ToolCall{call("b", "bash", map[string]any{"command": "printf 'a\\n'; sleep 0.2; printf 'b\\n'"})}},
				fakellm.Reply{Content: "child done"},
				fakellm.Reply{Content: "root done"},
			)
			f.run(t, "delegate")
			reqs := f.srv.Requests()
			if len(reqs) < 2 || !hasTool(reqs[1].Tools, "bash") {
				t.Fatalf("bash not offered to the conversation")
			}
			var out string
			for _, e := range f.rec.find(event.ToolCallEnd) {
				if e.Tool.CallID == "b" {
					out = e.Tool.Output
				}
			}
			if out != "a\nb\n[exit code 0]" {
				t.Errorf("bash output %q", out)
			}
			deltas := f.rec.find(event.ToolOutputDelta)
			var text strings.Builder
			for _, d := range deltas {
				text.WriteString(d.Text)
				if d.Conversation == "" || d.Conversation == string(f.sess.RootConversation()) {
					t.Errorf("delta of the root, want the sub-conversation: %+v", d)
				}
			}
			if streaming && text.String() != "a\nb\n" || !streaming && len(deltas) != 0 {
				t.Errorf("streaming %v: deltas %q", streaming, text.String())
			}
		})
	}
}
