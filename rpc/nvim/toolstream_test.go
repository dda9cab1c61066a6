package nvimhost

import (
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/event"
)

// TestRenderStreamedToolOutput: a bash call's streamed output goes under
// its line as it arrives (a line cut between deltas joined, \r dropped);
// the end turns the line into the summary and writes the output no second
// time. After an approval the output gets a line of its own; in a
// hand-over block the lines keep the gutter.
func TestRenderStreamedToolOutput(t *testing.T) {
	bash := func(id string) *event.Tool {
		return &event.Tool{CallID: id, Name: "bash", Kind: "execute", Title: "bash: make"}
	}
	end := func(id string) *event.Tool {
		t := bash(id)
		t.Status, t.Summary, t.Output = event.ToolCompleted, "exit 0 (1.2s)", "one\ntwo three\n+add\n[exit code 0]"
		return t
	}
	for _, tc := range []struct {
		name   string
		before []event.Event
		want   string
	}{
		{"under its line", nil,
			"## Agent\n✓ bash: make — exit 0 (1.2 s)\n    one\n    two three\n    +add\ndone\n"},
		{"after an approval", []event.Event{
			{Kind: event.ApprovalRequested, Approval: &event.Approval{ID: "a", Title: "bash: make", Reason: "asks"}},
			{Kind: event.ApprovalResolved, Reason: "once", Approval: &event.Approval{ID: "a"}},
		}, "## Agent\n▸ bash: make …\n? approval needed: bash: make — asks\n  → allowed once\n" +
			"✓ bash: make — exit 0 (1.2 s)\n    one\n    two three\n    +add\ndone\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var f fakeBuffer
			r := f.renderer()
			r.event(event.Event{Kind: event.ToolCallBegin, Tool: bash("c1")})
			for _, ev := range tc.before {
				r.event(ev)
			}
			for _, chunk := range []string{"one\r\ntwo", " three\n", "+add\n"} {
				r.event(event.Event{Kind: event.ToolOutputDelta, Tool: bash("c1"), Text: chunk})
			}
			if !strings.Contains(f.text, "…\n    one\n    two three\n    +add\n") {
				t.Fatalf("while running: %q", f.text)
			}
			r.event(event.Event{Kind: event.ToolCallEnd, Tool: end("c1")})
			r.event(event.Event{Kind: event.AgentMessageDelta, Text: "done"})
			r.event(event.Event{Kind: event.TaskComplete})
			if f.text != tc.want {
				t.Errorf("transcript:\n%s\nwant:\n%s", f.text, tc.want)
			}
		})
	}

	// Nested in a hand-over.
	var f fakeBuffer
	r := f.renderer()
	create := &event.Tool{CallID: "h", Name: "conv_create", Title: "conv.create"}
	for _, ev := range []event.Event{
		{Kind: event.ToolCallBegin, Tool: create},
		{Kind: event.TurnAborted, Reason: event.ReasonReplaced},
		{Kind: event.HandOver, Target: "aaaaaaaa-1", Tool: create},
		{Kind: event.ToolCallBegin, Tool: bash("c2")},
		{Kind: event.ToolOutputDelta, Tool: bash("c2"), Text: "one\n"},
		{Kind: event.ToolCallEnd, Tool: end("c2")},
		{Kind: event.ToolCallBegin, Tool: bash("c3")},
		{Kind: event.ToolCallEnd, Tool: end("c3")},
	} {
		r.event(ev)
	}
	want := "  │ ✓ bash: make — exit 0 (1.2 s)\n  │     one\n  │ ✓ bash: make — exit 0 (1.2 s)\n  │     one\n"
	if !strings.Contains(f.text, want) {
		t.Errorf("nested transcript:\n%s\nwant it to hold:\n%s", f.text, want)
	}
}

// TestRenderStreamedToolOutputFolds: a flood shows its first 500 lines,
// then only counts; the end's notice says how much more (at least, when
// the engine stopped streaming) and gO opens the call's result.
func TestRenderStreamedToolOutputFolds(t *testing.T) {
	var f fakeBuffer
	r := f.renderer()
	tool := &event.Tool{CallID: "c", Name: "bash", Title: "bash: yes"}
	r.event(event.Event{Kind: event.ToolCallBegin, Tool: tool})
	for range 100 {
		r.event(event.Event{Kind: event.ToolOutputDelta, Tool: tool, Text: strings.Repeat("y\n", 10)})
	}
	r.event(event.Event{Kind: event.ToolOutputDelta, Tool: tool, Text: "y\ny", Reason: event.ReasonOutputLimit})
	done := *tool
	done.Status, done.Summary, done.Output = event.ToolCompleted, "exit 0", "y\n[... 99 bytes omitted ...]\ny\n[exit code 0]"
	r.event(event.Event{Kind: event.ToolCallEnd, Tool: &done})
	if n := strings.Count(f.text, "    y\n"); n != foldOutputLines {
		t.Errorf("%d lines shown, want %d", n, foldOutputLines)
	}
	if !strings.Contains(f.text, "    … at least 502 more lines (1003 B) — folded\n") {
		t.Errorf("no notice: %q", f.text[len(f.text)-200:])
	}
	x, err := r.folds.get(1)
	if err != nil || x.text != done.Output {
		t.Errorf("folded text %q, %v", x.text, err)
	}
}
