package agent

import (
	"slices"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
)

// TestConvChildInherits (seed 000): a conversation created without base
// instructions or internal_tools takes its caller's — not the defaults,
// which would let a grandchild widen what its parent was narrowed to.
func TestConvChildInherits(t *testing.T) {
	f := convFixture(t, nil)
	f.srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("c1", "conv_create", map[string]any{
			"user_instruction": "you are A", "base_instruction_text": "BASE-OF-A",
			"internal_tools": map[string]any{"include_plan_tool": false, "include_apply_patch_tool": false},
		})}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("c2", "conv_create", map[string]any{"user_instruction": "you are B"})}},
		fakellm.Reply{Content: "B done"},
		fakellm.Reply{Content: "A done"},
		fakellm.Reply{Content: "root done"},
	)
	f.run(t, "start")
	reqs := f.srv.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d requests, want 5", len(reqs))
	}
	tools := func(r fakellm.Request) []string {
		var out []string
		for _, tl := range r.Tools {
			out = append(out, tl.Function.Name)
		}
		return out
	}
	for i, who := range map[int]string{1: "A", 2: "B"} {
		r := reqs[i]
		if len(r.Messages) == 0 || r.Messages[0].Role != llm.RoleSystem || !strings.Contains(r.Messages[0].Content, "BASE-OF-A") {
			t.Errorf("%s's system message lacks A's base instructions: %+v", who, r.Messages[0])
		}
		if names := tools(r); slices.Contains(names, "todo") || slices.Contains(names, "patch") || !slices.Contains(names, "read") {
			t.Errorf("%s's tools %v: want A's narrowed set (no todo, no patch)", who, names)
		}
	}
	if names := tools(reqs[0]); !slices.Contains(names, "todo") || !slices.Contains(names, "patch") {
		t.Errorf("the root's own tools were narrowed: %v", names)
	}
}

// TestConvChildInheritsMCPAllowlist (seed 000): a conversation created
// without mcp_allowlist sees its caller's MCP view, never the session's
// whole one: a child cannot widen what its parent was narrowed to, and
// one asking for more gets only what its caller sees.
func TestConvChildInheritsMCPAllowlist(t *testing.T) {
	writes := 0
	f := mcpFixture(t, "yolo", false, &writes)
	f.srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("c1", "conv_create", map[string]any{"user_instruction": "you are A", "mcp_allowlist": []string{"web/echo"}})}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("c2", "conv_create", map[string]any{"user_instruction": "you are B"})}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("c3", "conv_create", map[string]any{"user_instruction": "you are C", "mcp_allowlist": []string{"web/write", "web/echo"}})}},
		fakellm.Reply{Content: "C done"},
		fakellm.Reply{Content: "B done"},
		fakellm.Reply{Content: "A done"},
		fakellm.Reply{Content: "root done"},
	)
	f.run(t, "start")
	reqs := f.srv.Requests()
	if len(reqs) != 7 {
		t.Fatalf("%d requests, want 7", len(reqs))
	}
	mcpTools := func(r fakellm.Request) string {
		var out []string
		for _, n := range toolNames(r.Tools) {
			if strings.HasPrefix(n, "web__") {
				out = append(out, n)
			}
		}
		return strings.Join(out, " ")
	}
	if got := mcpTools(reqs[0]); got != "web__echo web__picture web__write" {
		t.Errorf("the root's MCP tools: %q", got)
	}
	for i, who := range map[int]string{1: "A", 2: "B", 3: "C"} {
		if got := mcpTools(reqs[i]); got != "web__echo" {
			t.Errorf("%s's MCP tools: %q, want A's view (web__echo)", who, got)
		}
	}
	if m := toolMsg(reqs[4].Messages, "c3"); m == nil || !strings.Contains(m.Content, "web__write") {
		t.Errorf("C's clamped allowlist was not reported: %+v", m)
	}
}
