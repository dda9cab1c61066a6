package fakellm

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/llm"
)

// inMode copies msgs with the system message the agent writes in mode.
func inMode(mode string, msgs []llm.Message) []llm.Message {
	out := append([]llm.Message{}, msgs...)
	out[0] = llm.Message{Role: llm.RoleSystem, Content: "You are a coding agent.\n\nWorkspace root: /w\nMode: " + mode + ". Deliver the change."}
	return out
}

func TestDemoScript(t *testing.T) {
	user := llm.Message{Role: llm.RoleUser, Content: "hello"}
	call := func(id, name string) llm.Message {
		return llm.Message{Role: llm.RoleAssistant, Content: "[demo] ...",
			ToolCalls: []llm.ToolCall{{ID: id, Type: "function", Function: llm.FunctionCall{Name: name}}}}
	}
	result := func(id, content string) llm.Message {
		return llm.Message{Role: llm.RoleTool, ToolCallID: id, Content: content}
	}
	flow := []llm.Message{
		{Role: llm.RoleSystem, Content: "sys"}, user,
		call("c1", "ls"), result("c1", "a.go\nb.go"),
		call("c2", "write"), result("c2", "wrote coder-demo.txt"),
		call("c3", "bash"), result("c3", "This file was written by the demo"),
		{Role: llm.RoleAssistant, Content: "[demo] done"},
	}

	tests := []struct {
		name     string
		msgs     []llm.Message
		wantTool string            // "" for a final answer
		wantArgs map[string]string // subset of the arguments
		wantText string            // substring of the content
	}{
		{"prompt", flow[:2], "ls", map[string]string{"path": "."}, "offline demo"},
		{"after ls", flow[:4], "write", map[string]string{"path": "coder-demo.txt"}, "coder-demo.txt"},
		{"after write", flow[:6], "bash", map[string]string{"command": "cat coder-demo.txt"}, "bash"},
		{"after bash", flow[:8], "", nil, "/undo"},
		{"write denied", append(append([]llm.Message{}, flow[:5]...), result("c2", "The user denied this call.")), "", nil, "not approved"},
		{"write refused", append(append([]llm.Message{}, flow[:5]...), result("c2", "Refused by user")), "", nil, "not approved"},
		{"after ls, auto-edit", inMode("auto-edit", flow[:4]), "write", map[string]string{"path": "coder-demo.txt"}, "need no approval"},
		{"after bash, default", inMode("default", flow[:8]), "", nil, "after your approval"},
		{"after bash, yolo", inMode("yolo", flow[:8]), "", nil, "without asking (yolo mode"},
		{"after ls, plan", inMode("plan", flow[:4]), "", nil, "Plan mode is read-only"},
		{"second prompt", append(append([]llm.Message{}, flow...), llm.Message{Role: llm.RoleUser, Content: "again"}), "ls", map[string]string{"path": "."}, "offline demo"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := DemoScript(Request{Messages: tt.msgs})
			if !strings.HasPrefix(r.Content, "[demo] ") {
				t.Errorf("content not labelled as demo: %q", r.Content)
			}
			if !strings.Contains(r.Content, tt.wantText) {
				t.Errorf("content %q does not mention %q", r.Content, tt.wantText)
			}
			if tt.wantTool == "" {
				if len(r.ToolCalls) != 0 {
					t.Fatalf("want a final answer, got tool calls %+v", r.ToolCalls)
				}
				if r.Delay <= 0 || r.Chunk <= 0 || r.Chunk > 10 {
					t.Errorf("final answer not streamed in small delayed chunks: chunk %d delay %v", r.Chunk, r.Delay)
				}
				return
			}
			if len(r.ToolCalls) != 1 || r.ToolCalls[0].Function.Name != tt.wantTool {
				t.Fatalf("tool calls %+v, want one %s", r.ToolCalls, tt.wantTool)
			}
			var args map[string]string
			if err := json.Unmarshal([]byte(r.ToolCalls[0].Function.Arguments), &args); err != nil {
				t.Fatalf("arguments %q: %v", r.ToolCalls[0].Function.Arguments, err)
			}
			for k, v := range tt.wantArgs {
				if args[k] != v {
					t.Errorf("arg %s = %q, want %q", k, args[k], v)
				}
			}
			if tt.wantTool == "write" && !strings.Contains(args["content"], "demo") {
				t.Errorf("demo file content does not mention the demo: %q", args["content"])
			}
			for _, m := range tt.msgs {
				for _, tc := range m.ToolCalls {
					if tc.ID == r.ToolCalls[0].ID {
						t.Errorf("tool call id %q reused", tc.ID)
					}
				}
			}
		})
	}
	if r := DemoScript(Request{Messages: flow[:2]}); r.Reasoning == "" {
		t.Errorf("first step has no reasoning")
	}
}
