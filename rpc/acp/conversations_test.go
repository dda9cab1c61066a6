package acp_test

import (
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
	sdk "github.com/coder/acp-go-sdk"
)

// A conv_create is one think tool call: its content streams the target's
// text, its _meta names the target conversation, and the prompt's answer
// is only the caller's text.
func TestHandOverIsAThinkToolCall(t *testing.T) {
	e := newEnv(t, envOptions{})
	sid, _ := e.newSession()
	e.llm.Enqueue(
		fakellm.Reply{Content: "Delegating.", ToolCalls: []llm.ToolCall{call("c1", "conv_create", map[string]any{"user_instruction": "review main.go"})}},
		fakellm.Reply{Content: "LGTM, with one nit about naming.", Chunk: 4},
		fakellm.Reply{Content: "The reviewer says LGTM."},
	)
	e.mustPrompt(sid, "get main.go reviewed", sdk.StopReasonEndTurn)
	ups := e.client.snapshot()

	if got := agentText(ups); got != "Delegating.The reviewer says LGTM." {
		t.Errorf("agent text = %q: the target's text must not be the caller's answer", got)
	}
	calls := toolCalls(ups)
	if len(calls) != 1 || calls[0].ToolCallId != "c1" || calls[0].Kind != sdk.ToolKindThink {
		t.Fatalf("tool calls = %+v, want one think call c1", calls)
	}
	var target string
	var streamed []string
	for _, u := range ups {
		c := u.Update.ToolCallUpdate
		if c == nil || c.ToolCallId != "c1" {
			continue
		}
		id, _ := c.Meta["conversation_id"].(string)
		if id == "" {
			t.Errorf("tool_call_update without _meta.conversation_id: %+v", c)
		}
		if target == "" {
			target = id
			if c.Kind == nil || *c.Kind != sdk.ToolKindThink || c.Title == nil || *c.Title != "conv.create → conversation "+id[:8]+"…" {
				t.Errorf("hand-over update = %+v", c)
			}
		} else if id != target {
			t.Errorf("conversation id changed: %s, then %s", target, id)
		}
		if txt := contentText(c.Content); txt != "" {
			streamed = append(streamed, txt)
		}
	}
	if len(streamed) == 0 || streamed[len(streamed)-1] != "LGTM, with one nit about naming." {
		t.Errorf("streamed content = %q", streamed)
	}
	for i := 1; i < len(streamed); i++ {
		if !strings.HasPrefix(streamed[i], streamed[i-1]) {
			t.Errorf("content update %d does not extend the one before: %q then %q", i, streamed[i-1], streamed[i])
		}
	}
	end := lastToolUpdate(ups, "c1")
	if end == nil || *end.Status != sdk.ToolCallStatusCompleted || contentText(end.Content) != "LGTM, with one nit about naming." {
		t.Errorf("end of the hand-over = %+v", end)
	}
	// The engine knows the same conversation: the sub-conversation's brief
	// went to the model with nothing of the root.
	reqs := e.llm.Requests()
	if len(reqs) != 3 || len(reqs[1].Messages) != 2 || reqs[1].Messages[1].Content != "review main.go" {
		t.Fatalf("requests = %d, sub request %+v", len(reqs), reqs[1].Messages)
	}
	if res, ok := toolResultOf(reqs[2], "c1"); !ok || !strings.Contains(res, `"conversation_id":"`+target+`"`) {
		t.Errorf("conv_create result %q does not name %s", res, target)
	}
}

func toolResultOf(r fakellm.Request, id string) (string, bool) {
	for _, m := range r.Messages {
		if m.Role == llm.RoleTool && m.ToolCallID == id {
			return m.Content, true
		}
	}
	return "", false
}
