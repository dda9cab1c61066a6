package acp

import (
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/event"
)

// TestCoalesce: runs of one task's text deltas become one event each, up
// to maxChunk; other events, and another task's text, keep their place.
func TestCoalesce(t *testing.T) {
	d := func(kind event.Kind, task, text string) event.Event {
		return event.Event{Kind: kind, Task: task, Text: text}
	}
	in := []event.Event{
		d(event.AgentMessageDelta, "a", "he"), d(event.AgentMessageDelta, "a", "llo"),
		d(event.AgentReasoningDelta, "a", "hm"), d(event.AgentReasoningDelta, "a", "m"),
		d(event.Notice, "a", "note"),
		d(event.AgentMessageDelta, "a", "x"), d(event.AgentMessageDelta, "b", "y"),
	}
	var got []string
	for _, ev := range coalesce(in) {
		got = append(got, string(ev.Kind)+":"+ev.Task+":"+ev.Text)
	}
	want := []string{"agent_message_delta:a:hello", "agent_reasoning_delta:a:hmm", "notice:a:note", "agent_message_delta:a:x", "agent_message_delta:b:y"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("coalesce = %q, want %q", got, want)
	}
	if in[0].Text != "he" {
		t.Error("coalesce changed its input")
	}
	var many []event.Event
	for range 3 * 1024 {
		many = append(many, d(event.AgentMessageDelta, "a", strings.Repeat("z", 64)))
	}
	out := coalesce(many)
	if len(out) != 3 {
		t.Fatalf("%d events from 192 KB of deltas, want 3 of 64 KB", len(out))
	}
}
