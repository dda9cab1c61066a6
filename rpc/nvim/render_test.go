package nvimhost

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/review"
	"github.com/coder-nvim/coder-nvim/core/store"
)

// fakeBuffer applies text and rewrite operations like lua/coder/transcript.lua.
type fakeBuffer struct {
	text  string
	ops   []op
	marks map[string]int // tool_mark: call id -> row
}

func (f *fakeBuffer) renderer() *renderer {
	return newRenderer("/ws", func(hl, s string) { f.text += s }, func(o op, urgent bool) {
		switch o["t"] {
		case "rewrite":
			i := strings.LastIndex(f.text, "\n")
			f.text = f.text[:i+1] + o["s"].(string)
			return
		case "tool_mark":
			if f.marks == nil {
				f.marks = map[string]int{}
			}
			f.marks[o["id"].(string)] = strings.Count(f.text, "\n")
			return
		case "rewrite_mark":
			row, ok := f.marks[o["id"].(string)]
			if !ok {
				panic("rewrite_mark without tool_mark")
			}
			lines := strings.Split(f.text, "\n")
			lines[row] = o["s"].(string)
			f.text = strings.Join(lines, "\n")
			return
		}
		f.ops = append(f.ops, o)
	})
}

func (f *fakeBuffer) kinds() []string {
	var out []string
	for _, o := range f.ops {
		out = append(out, o["t"].(string))
	}
	return out
}

func TestRenderTurn(t *testing.T) {
	var f fakeBuffer
	r := f.renderer()
	r.header("0.1.0", event.Status{Model: "m1", Mode: "default", Cwd: "/ws", Demo: true}, "sess", false)
	for _, ev := range []event.Event{
		{Kind: event.TaskStarted, Task: "t1", Text: "hi"},
		{Kind: event.UserMessage, Text: "hi"},
		{Kind: event.AgentReasoningDelta, Text: "let me "},
		{Kind: event.AgentReasoningDelta, Text: "think"},
		{Kind: event.AgentMessageDelta, Text: "Hello"},
		{Kind: event.AgentMessageDelta, Text: " there."},
		{Kind: event.ToolCallBegin, Tool: &event.Tool{CallID: "c1", Name: "bash", Title: "ls -la"}},
		{Kind: event.ToolCallEnd, Tool: &event.Tool{CallID: "c1", Name: "bash", Title: "ls -la", Status: event.ToolCompleted, Summary: "exit 0", Output: "a\nb\n", DurationMS: 12}},
		{Kind: event.FilesChanged, Paths: []string{"x/y.go"}},
		{Kind: event.AgentMessageDelta, Text: "Done."},
		{Kind: event.TaskComplete, Task: "t1", Reason: event.StopEndTurn},
	} {
		r.event(ev)
	}
	want := "# coder 0.1.0 · m1 · /ws\n" +
		"DEMO: no provider is configured, so the offline demo answers (no model is called). Set a provider (:help coder-providers) or an API key variable (OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY, OPENROUTER_API_KEY, DEEPSEEK_API_KEY), sign in to Copilot or run Ollama for a real model.\n" +
		"\n## You\nhi\n" +
		"\n## Agent\nReasoning:\nlet me think\n\nHello there.\n" +
		"✓ bash: ls -la — exit 0 (12 ms)\n    a\n    b\n" +
		"Done.\n"
	if f.text != want {
		t.Fatalf("transcript:\n%s\nwant:\n%s", f.text, want)
	}
	got := strings.Join(f.kinds(), ",")
	if got != "turn_start,status,reload,turn_done" {
		t.Fatalf("ops = %s", got)
	}
	if p := f.ops[2]["paths"].([]string); p[0] != "/ws/x/y.go" {
		t.Fatalf("reload path %q, want absolute", p[0])
	}
}

// A read shows its summary line only, and every duration has one format,
// also one a summary carries itself.
func TestRenderToolSummaries(t *testing.T) {
	for _, tc := range []struct {
		name string
		tool event.Tool
		want string // the whole transcript after the agent header
	}{
		{"read", event.Tool{CallID: "c", Name: "read", Kind: "read", Title: "read a.go", Status: event.ToolCompleted, Summary: "3 lines", Output: "package a\n\nfunc A() {}\n", DurationMS: 4},
			"✓ read a.go — 3 lines (4 ms)\n"},
		{"ls keeps its listing", event.Tool{CallID: "c", Name: "ls", Kind: "read", Title: "ls .", Status: event.ToolCompleted, Summary: "2 entries", Output: "a.go\nsub/\n", DurationMS: 1},
			"✓ ls . — 2 entries (1 ms)\n    a.go\n    sub/\n"},
		{"bash summary duration", event.Tool{CallID: "c", Name: "bash", Kind: "execute", Title: "go test", Status: event.ToolCompleted, Summary: "exit 0 (1.2s)", Output: "ok\n", DurationMS: 1300},
			"✓ bash: go test — exit 0 (1.2 s)\n    ok\n"},
		{"verify", event.Tool{CallID: "c", Name: "verify", Title: "verify", Status: event.ToolCompleted, Summary: "passed (35ms)"},
			"✓ verify — passed (35 ms)\n"},
		{"long", event.Tool{CallID: "c", Name: "bash", Title: "make", Status: event.ToolFailed, Summary: "exit 2", DurationMS: 125000},
			"✗ bash: make — exit 2 (2 min 5 s)\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var f fakeBuffer
			r := f.renderer()
			r.event(event.Event{Kind: event.ToolCallBegin, Tool: &tc.tool})
			r.event(event.Event{Kind: event.ToolCallEnd, Tool: &tc.tool})
			if got := strings.TrimPrefix(f.text, "## Agent\n"); got != tc.want {
				t.Errorf("transcript %q, want %q", got, tc.want)
			}
		})
	}
}

func TestRenderToolLineRewrittenOnlyWhenLast(t *testing.T) {
	var f fakeBuffer
	r := f.renderer()
	r.event(event.Event{Kind: event.ToolCallBegin, Tool: &event.Tool{CallID: "c1", Name: "write", Title: "write a.txt"}})
	r.event(event.Event{Kind: event.ApprovalRequested, Approval: &event.Approval{ID: "ap", Title: "write a.txt", Reason: "edits ask", Diffs: []event.Diff{{
		Path: "a.txt", Op: "update", Hunks: review.Hunks("x\ny\n", "x\nz\n"),
	}}}})
	r.event(event.Event{Kind: event.ApprovalResolved, Reason: "deny", Approval: &event.Approval{ID: "ap"}})
	r.event(event.Event{Kind: event.ToolCallEnd, Tool: &event.Tool{CallID: "c1", Name: "write", Title: "write a.txt", Status: event.ToolDenied, Summary: "denied by the user"}})
	for _, want := range []string{"▸ write a.txt …\n", "? approval needed: write a.txt — edits ask\n", "  → denied\n", "⊘ write a.txt — denied by the user\n"} {
		if !strings.Contains(f.text, want) {
			t.Errorf("transcript lacks %q:\n%s", want, f.text)
		}
	}
	a := f.ops[0]["approval"].(map[string]any)
	d := a["diffs"].([]any)[0].(map[string]any)
	h := d["hunks"].([]any)[0].(map[string]any)
	if d["abs"] != "/ws/a.txt" || h["old_start"] != 2 || h["old_lines"].([]string)[0] != "y" || h["new_lines"].([]string)[0] != "z" {
		t.Fatalf("approval op diff = %v", d)
	}

	// Nothing in between: the running line becomes the summary.
	var g fakeBuffer
	r = g.renderer()
	r.event(event.Event{Kind: event.ToolCallBegin, Tool: &event.Tool{CallID: "c2", Name: "read", Title: "read a.txt"}})
	r.event(event.Event{Kind: event.ToolCallEnd, Tool: &event.Tool{CallID: "c2", Name: "read", Title: "read a.txt", Status: event.ToolFailed, Summary: "no such file"}})
	if strings.Contains(g.text, "▸") || !strings.Contains(g.text, "✗ read a.txt — no such file\n") {
		t.Fatalf("transcript:\n%s", g.text)
	}
}

func TestOutboxCoalescesAndKeepsOrder(t *testing.T) {
	o := newOutbox()
	var mu sync.Mutex
	var sends []time.Time
	var text strings.Builder
	var kinds []string
	send := func(ops []op) error {
		mu.Lock()
		defer mu.Unlock()
		sends = append(sends, time.Now())
		for _, x := range ops {
			kinds = append(kinds, x["t"].(string))
			if x["t"] == "text" {
				for _, c := range x["c"].([]any) {
					text.WriteString(c.([]any)[0].(string))
				}
			}
		}
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { o.run(ctx, send, t.Logf); close(done) }()

	var want strings.Builder
	start := time.Now()
	for i := 0; time.Since(start) < 500*time.Millisecond; i++ {
		s := string(rune('a'+i%26)) + " "
		want.WriteString(s)
		hl := ""
		if i%100 == 0 {
			hl = hlReasoning
		}
		o.addText(hl, s)
		time.Sleep(100 * time.Microsecond)
	}
	o.add(op{"t": "turn_done"}, true)
	deadline := time.Now().Add(minWait)
	for {
		mu.Lock()
		n := len(kinds)
		last := ""
		if n > 0 {
			last = kinds[n-1]
		}
		mu.Unlock()
		if last == "turn_done" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("turn_done never sent")
		}
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	<-done
	mu.Lock()
	defer mu.Unlock()
	if text.String() != want.String() {
		t.Fatalf("text arrived changed or out of order (%d vs %d bytes)", text.Len(), want.Len())
	}
	// ~0.5 s of streaming at ≤ 30 flushes/s, plus the urgent turn_done.
	if len(sends) > 20 {
		t.Fatalf("%d sends for 0.5 s of streaming; coalescing is not working", len(sends))
	}
	for i := 2; i < len(sends)-1; i++ {
		if gap := sends[i].Sub(sends[i-1]); gap < flushInterval-5*time.Millisecond {
			t.Fatalf("sends %d and %d only %v apart", i-1, i, gap)
		}
	}
}

func TestSessionLabelCutsOnCharacters(t *testing.T) {
	for _, tc := range []struct {
		prompt string
		want   string // the prompt part of the label
	}{
		{"short", "short"},
		{strings.Repeat("a", 61), strings.Repeat("a", 60) + "…"},
		{strings.Repeat("重构", 40), strings.Repeat("重构", 30) + "…"},
		{"a" + strings.Repeat("重", 80), "a" + strings.Repeat("重", 59) + "…"},
		{"first line\nsecond", "first line"},
	} {
		got := sessionLabel(store.Summary{ID: "x", FirstPrompt: tc.prompt, Messages: 3})
		if !utf8.ValidString(got) || !strings.Contains(got, "  "+tc.want+"  (3 messages)") {
			t.Errorf("sessionLabel(%q) = %q, want the prompt %q", tc.prompt, got, tc.want)
		}
	}
}

// Nested hand-overs indent per level; a user interrupt mid-chain closes
// every open block, and the next turn is not indented.
func TestRenderNestedHandOverInterrupted(t *testing.T) {
	var f fakeBuffer
	r := f.renderer()
	create := func(id string) *event.Tool {
		return &event.Tool{CallID: id, Name: "conv_create", Kind: "think", Title: "conv.create", Arguments: `{"user_instruction":"level ` + id + `"}`}
	}
	for _, ev := range []event.Event{
		{Kind: event.TaskStarted, Task: "t1", Text: "nest"},
		{Kind: event.UserMessage, Text: "nest"},
		{Kind: event.ToolCallBegin, Tool: create("1")},
		{Kind: event.TurnAborted, Reason: event.ReasonReplaced},
		{Kind: event.HandOver, Conversation: "root", Target: "aaaaaaaa-1", Tool: create("1")},
		{Kind: event.TaskStarted, Task: "t2", Conversation: "aaaaaaaa-1"},
		{Kind: event.ToolCallBegin, Tool: create("2")},
		{Kind: event.TurnAborted, Reason: event.ReasonReplaced},
		{Kind: event.HandOver, Conversation: "aaaaaaaa-1", Target: "bbbbbbbb-2", Tool: create("2")},
		{Kind: event.TaskStarted, Task: "t3", Conversation: "bbbbbbbb-2"},
		{Kind: event.AgentMessageDelta, Text: "slow\nslower"},
		{Kind: event.ToolCallEnd, Tool: &event.Tool{CallID: "2", Name: "conv_create", Title: "conv.create → conversation bbbbbbbb", Status: event.ToolAborted, Summary: "interrupted by the user"}},
		{Kind: event.TurnAborted, Reason: event.ReasonInterrupted},
		{Kind: event.TaskStarted, Task: "t4", Text: "next"},
		{Kind: event.UserMessage, Text: "next"},
		{Kind: event.AgentMessageDelta, Text: "fresh"},
		{Kind: event.TaskComplete, Reason: event.StopEndTurn},
	} {
		r.event(ev)
	}
	want := "## You\nnest\n\n## Agent\n" +
		"▸ conv.create → conversation aaaaaaaa…\n" +
		"  │ » level 1\n" +
		"  │ ▸ conv.create → conversation bbbbbbbb…\n" +
		"  │   │ » level 2\n" +
		"  │   │ slow\n  │   │ slower\n" +
		"  │   │ ⏹ conv.create → conversation bbbbbbbb — interrupted by the user\n" +
		"  │   │ ⏹ interrupted\n" +
		"\n## You\nnext\n\n## Agent\nfresh\n"
	if f.text != want {
		t.Fatalf("transcript:\n%s\nwant:\n%s", f.text, want)
	}
	opened, closed := 0, 0
	for _, k := range f.kinds() {
		switch k {
		case "fold_start":
			opened++
		case "fold_end":
			closed++
		}
	}
	if opened != 2 || closed != 2 {
		t.Errorf("%d blocks opened, %d closed; want 2 and 2", opened, closed)
	}
	if c := r.statusOp()["status"].(map[string]any)["conversation"]; c != "" {
		t.Errorf("status still names conversation %v", c)
	}
}

// TestReplayShowsOutcomes: /resume replays each call with its recorded
// outcome; a call that failed is never shown as if still pending.
func TestReplayShowsOutcomes(t *testing.T) {
	f := &fakeBuffer{}
	r := f.renderer()
	call := func(id, name, args string) llm.ToolCall {
		return llm.ToolCall{ID: id, Type: "function", Function: llm.FunctionCall{Name: name, Arguments: args}}
	}
	r.replay("s1", []llm.Message{
		{Role: llm.RoleUser, Content: "do it"},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{call("a", "write", `{"path":"a.txt"}`), call("b", "bash", `{"command":"false"}`), call("c", "read", `{"path":"x"}`)}},
		{Role: llm.RoleTool, ToolCallID: "a", Content: "wrote a.txt"},
		{Role: llm.RoleTool, ToolCallID: "b", Content: "error: exit status 1"},
	}, nil)
	for _, want := range []string{`✓ write {"path":"a.txt"}`, `✗ bash {"command":"false"} — error: exit status 1`, `✗ read {"path":"x"} — no result was recorded`} {
		if !strings.Contains(f.text, want) {
			t.Errorf("replay lacks %q:\n%s", want, f.text)
		}
	}
	if strings.Contains(f.text, "· ") {
		t.Errorf("a call is shown as pending:\n%s", f.text)
	}
}

// TestReplayShowsCommands: /resume shows the / command results recorded,
// each where it ran among the messages.
func TestReplayShowsCommands(t *testing.T) {
	f := &fakeBuffer{}
	r := f.renderer()
	r.replay("s1", []llm.Message{
		{Role: llm.RoleUser, Content: "first"},
		{Role: llm.RoleAssistant, Content: "answer one"},
		{Role: llm.RoleUser, Content: "second"},
	}, []store.Command{
		{At: 0, Input: "/tools", Output: "read write"},
		{At: 2, Input: "/diff", Output: "a.txt +1 -0"},
		{At: 3, Input: "/todos", Output: "no todos"},
	})
	order := []string{"/tools", "read write", "first", "answer one", "/diff", "a.txt +1 -0", "second", "/todos", "no todos"}
	at := 0
	for _, want := range order {
		i := strings.Index(f.text[at:], want)
		if i < 0 {
			t.Fatalf("replay lacks %q after offset %d:\n%s", want, at, f.text)
		}
		at += i + len(want)
	}
}

// TestToolErrorOnce: a failed call's message is printed once, not as its
// summary and again as its output.
func TestToolErrorOnce(t *testing.T) {
	f := &fakeBuffer{}
	r := f.renderer()
	tool := &event.Tool{CallID: "c", Name: "write", Title: "write a.txt"}
	r.event(event.Event{Kind: event.ToolCallBegin, Tool: tool})
	end := *tool
	end.Status, end.Summary, end.Output = event.ToolFailed, "a.txt has unsaved changes in the editor", "a.txt has unsaved changes in the editor"
	r.event(event.Event{Kind: event.ToolCallEnd, Tool: &end})
	if n := strings.Count(f.text, "unsaved changes in the editor"); n != 1 {
		t.Errorf("the error is printed %d times:\n%s", n, f.text)
	}
	more := *tool
	more.CallID, more.Status, more.Summary, more.Output = "d", event.ToolFailed, "exit 1", "exit 1\nline two of the output"
	r.event(event.Event{Kind: event.ToolCallBegin, Tool: &more})
	r.event(event.Event{Kind: event.ToolCallEnd, Tool: &more})
	if !strings.Contains(f.text, "line two of the output") || strings.Count(f.text, "exit 1") != 1 {
		t.Errorf("a longer failure lost its output or repeated its summary:\n%s", f.text)
	}
}

func TestShortPath(t *testing.T) {
	for in, want := range map[string]string{"/ws": "/ws", "~/proj": "~/proj", "~/src/github/proj": "~/…/proj", "/tmp/a/b/work": "…/work", "~": "~"} {
		if got := shortPath(in); got != want {
			t.Errorf("shortPath(%q) = %q, want %q", in, got, want)
		}
	}
}
