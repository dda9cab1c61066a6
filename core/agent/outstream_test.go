package agent

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/tools"
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
			if e.Session != f.sess.ID() || e.Conversation == "" || e.Task == "" || e.Tool == nil || e.Tool.CallID != "b1" || e.Tool.Name != "bash" {
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

// TestOutputStreamLimits: a flood is a few deltas, at most one per
// interval; the budget stops the stream with a marked last delta; a
// character cut between reads arrives whole.
func TestOutputStreamLimits(t *testing.T) {
	var mu sync.Mutex
	var got []string
	var limits int
	o := &outputStream{interval: 20 * time.Millisecond, budget: 1 << 20, send: func(text string, atLimit bool) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, text)
		if atLimit {
			limits++
		}
	}}
	start := time.Now()
	chunk := []byte(strings.Repeat("x", 4095) + "\n")
	for range 1024 { // 4 MiB
		if n, err := o.Write(chunk); n != len(chunk) || err != nil {
			t.Fatalf("Write = %d, %v", n, err)
		}
	}
	o.Write([]byte("é"[:1]))
	o.close()
	elapsed := time.Since(start)
	o.Write([]byte("late")) // after close: dropped
	o.flush(false)
	total := 0
	for _, s := range got {
		total += len(s)
	}
	if total != 1<<20 || limits != 1 {
		t.Errorf("streamed %d bytes with %d limit marks, want the 1 MiB budget and one mark", total, limits)
	}
	if max := int(elapsed/o.interval) + 2; len(got) > max {
		t.Errorf("%d deltas in %s, want at most %d", len(got), elapsed, max)
	}

	// A two-byte character split across writes, then closed.
	mu.Lock()
	got = nil
	mu.Unlock()
	o = &outputStream{interval: time.Hour, budget: 100, send: func(text string, _ bool) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, text)
	}}
	o.Write([]byte("a" + "é"[:1]))
	o.flush(false)
	o.Write([]byte("é"[1:] + "b" + "é"[:1]))
	o.close()
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(got, "|") != "a|éb\uFFFD" {
		t.Errorf("deltas %q", got)
	}
	for _, s := range got {
		if !utf8.ValidString(s) {
			t.Errorf("invalid UTF-8 delta %q", s)
		}
	}
}

// BenchmarkBashFlood: a command writing 64 MB as fast as it can, through
// the bash tool without and with streaming (the deltas counted, not
// rendered): what streaming costs the call, and how few deltas a flood
// makes.
func BenchmarkBashFlood(b *testing.B) {
	for _, streaming := range []bool{false, true} {
		b.Run(map[bool]string{false: "plain", true: "streaming"}[streaming], func(b *testing.B) {
			ws, err := tools.NewWorkspace(b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			var bash tools.Tool
			for _, t := range tools.Builtins() {
				if t.Spec().Function.Name == "bash" {
					bash = t
				}
			}
			ctx := context.Background()
			deltas, streamed := 0, 0
			for b.Loop() {
				inv, err := bash.Prepare(ctx, ws, json.RawMessage(`{"command":"head -c 64000000 /dev/zero"}`))
				if err != nil {
					b.Fatal(err)
				}
				var o *outputStream
				if streaming {
					o = &outputStream{interval: streamInterval, budget: streamBudget, send: func(text string, _ bool) {
						deltas++
						streamed += len(text)
					}}
					inv.Output = o
				}
				if r := inv.Run(ctx); r.IsError {
					b.Fatal(r.Output)
				}
				o.close()
			}
			b.ReportMetric(float64(deltas)/float64(b.N), "deltas/op")
			b.ReportMetric(float64(streamed)/float64(b.N), "streamed-B/op")
		})
	}
}
