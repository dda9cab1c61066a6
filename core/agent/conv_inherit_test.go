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
