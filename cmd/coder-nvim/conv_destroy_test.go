package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
)

// TestExecConvDestroysCaller (seed 000 §5): the root hands over to A, A
// to B, B destroys A. exec prints the root's answer on stdout and every
// hand-over has its hand-back on stderr.
func TestExecConvDestroysCaller(t *testing.T) {
	bin := hostBinary(t)
	srv := fakellm.New()
	defer srv.Close()
	dir := gitRepo(t)
	srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("c1", "conv_create", map[string]any{"user_instruction": "make B"})}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("c2", "conv_create", map[string]any{"user_instruction": "destroy A"})}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("l1", "conv_list", map[string]any{})}},
	)
	srv.SetScript(func(req fakellm.Request) fakellm.Reply {
		last := req.Messages[len(req.Messages)-1]
		switch {
		case last.Role == llm.RoleTool && last.ToolCallID == "l1":
			// conv_list lists the root, A, B in order of creation.
			var list struct {
				Conversations []struct {
					ID string `json:"id"`
				} `json:"conversations"`
			}
			if err := json.Unmarshal([]byte(last.Content), &list); err != nil || len(list.Conversations) < 2 {
				return fakellm.Reply{Content: "no list: " + last.Content}
			}
			return fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("d", "conv_destroy", map[string]any{"conversation_id": list.Conversations[1].ID})}}
		case last.Role == llm.RoleTool && last.ToolCallID == "d":
			return fakellm.Reply{Content: "B is done"}
		}
		return fakellm.Reply{Content: "ROOT ANSWER"}
	})
	r := execHost(t, bin, dir, srv.URL(), "start")
	if r.code != 0 || r.stdout != "ROOT ANSWER\n" {
		t.Fatalf("exit %d, stdout %q\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if overs, backs := strings.Count(r.stderr, "handed to conversation"), strings.Count(r.stderr, "back to conversation"); overs != 2 || backs != 2 {
		t.Errorf("%d hand-overs, %d hand-backs on stderr:\n%s", overs, backs, r.stderr)
	}
}
