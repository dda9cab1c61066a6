package toolcalls

import (
	"fmt"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/llm"
)

func call(id, name string) llm.ToolCall {
	return llm.ToolCall{ID: id, Type: "function", Function: llm.FunctionCall{Name: name}}
}

// TestRepair: every call ends with one result right after its message:
// a started call is "outcome unknown", one never run "aborted", a pending
// hand-over "interrupted"; stray results go, missing and repeated ids are
// renewed.
func TestRepair(t *testing.T) {
	msgs := []llm.Message{
		{Role: llm.RoleUser, Content: "go"},
		{Role: llm.RoleTool, ToolCallID: "stray", Content: "x"},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{call("a", "bash"), call("b", "read"), call("", "ls"), call("a", "grep")}},
		{Role: llm.RoleTool, ToolCallID: "b", Content: "b ran"},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{call("h", "conv_create")}},
		{Role: llm.RoleTool, ToolCallID: "h", Content: fmt.Sprintf(Pending, "c1")},
	}
	out := Repair(msgs, map[string]bool{"a": true})
	if len(out) != 8 || out[1].Role != llm.RoleAssistant {
		t.Fatalf("repaired history has %d messages: %+v", len(out), out)
	}
	calls := out[1].ToolCalls
	// The repeated id "a" had started too: its result is unknown as well.
	want := []string{Unknown, "b ran", Aborted, Unknown}
	seen := map[string]bool{}
	for i, c := range calls {
		res := out[2+i]
		if res.Role != llm.RoleTool || res.ToolCallID != c.ID || res.Content != want[i] || seen[c.ID] || c.ID == "" {
			t.Errorf("call %d (%s): result %+v, want %q under a unique id", i, c.ID, res, want[i])
		}
		seen[c.ID] = true
	}
	if out[7].Content != InterruptedHandOver {
		t.Errorf("pending hand-over answered %q", out[7].Content)
	}
	for _, c := range []struct {
		content string
		failed  bool
	}{{Aborted, true}, {Unknown, true}, {`{"error":"x"}`, true}, {"b ran", false}, {fmt.Sprintf(NotRun, "c1"), true}} {
		if Failed(c.content) != c.failed {
			t.Errorf("Failed(%q) = %v", c.content, !c.failed)
		}
	}
}

// TestSanitizeNames: names a provider rejects are rewritten, valid ones
// kept.
func TestSanitizeNames(t *testing.T) {
	calls := []llm.ToolCall{call("1", "conv.create"), call("2", ""), call("3", "read"), call("4", string(make([]byte, 70)))}
	SanitizeNames(calls)
	for i, want := range []string{"conv_create", "invalid_tool_name", "read"} {
		if calls[i].Function.Name != want {
			t.Errorf("call %d: %q, want %q", i, calls[i].Function.Name, want)
		}
	}
	if n := calls[3].Function.Name; len(n) != 64 || !ValidName(n) {
		t.Errorf("a 70-byte name became %q", n)
	}
}
