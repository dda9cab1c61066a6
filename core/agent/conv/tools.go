// Package conv is what the engine's conversations look like from outside
// (seeds 000 and 002): the conv_* tools' names, schemas and strict
// arguments, the items (text and images) a hand-over carries, and the
// rules a new or changed conversation passes — it can only narrow its
// caller's tools, MCP allowlist and permissions. Carrying a call out is
// the engine's (Host); this package holds no session state and may not
// import core/agent.
package conv

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/policy"
	"github.com/coder-nvim/coder-nvim/core/text"
	"github.com/coder-nvim/coder-nvim/core/tools"
)

// The conversation tools (seed 000). OpenAI function names allow no dots,
// so conv_create is the wire name of conv.create; a dotted name from the
// model is mapped back by toolcalls.SanitizeNames.
const (
	ToolCreate  = "conv_create"
	ToolSend    = "conv_send"
	ToolList    = "conv_list"
	ToolHistory = "conv_history"
	ToolDestroy = "conv_destroy"
)

// Host carries the conversation tools out for the call running in ctx.
// Each method gets the call's raw arguments (decoded with Decode* so a
// malformed call is a result the model reads) and returns the result.
type Host interface {
	// Mode is the session's mode now: plan mode sends no http(s) image.
	Mode() policy.Mode
	Create(ctx context.Context, raw json.RawMessage) (string, error)
	Send(ctx context.Context, raw json.RawMessage) (string, error)
	List(ctx context.Context, raw json.RawMessage) (string, error)
	History(ctx context.Context, raw json.RawMessage) (string, error)
	Destroy(ctx context.Context, raw json.RawMessage) (string, error)
}

// Tool is one conversation tool.
type Tool struct {
	h      Host
	name   string
	desc   string
	params string
	run    func(h Host, ctx context.Context, raw json.RawMessage) (string, error)
}

// Kind is tools.KindOther; the session marks the tools as its own (no
// policy, no approval), as for its todo and skill tools.
func (Tool) Kind() tools.Kind { return tools.KindOther }

// Spec is the tool's function definition.
func (c Tool) Spec() llm.Tool {
	return llm.Tool{Type: "function", Function: llm.FunctionDef{Name: c.name, Description: c.desc, Parameters: json.RawMessage(c.params)}}
}

// Prepare plans the call; an http(s) image URL among its items must be
// confirmed (a URL the model chose can carry data out).
func (c Tool) Prepare(_ context.Context, _ *tools.Workspace, raw json.RawMessage) (*tools.Invocation, error) {
	title := event.ToolDisplayName(c.name)
	confirm := ""
	if urls := remoteImages(raw); len(urls) > 0 {
		if c.h.Mode() == policy.ModePlan {
			return nil, errors.New("http(s) image URLs are not sent in plan mode; save the image in the workspace and name the file")
		}
		confirm = fmt.Sprintf("%s sends the image URL %s to the model provider: a URL chosen by the model can carry data out", c.name, strings.Join(urls, ", "))
	}
	inv := tools.NewInvocation(c.name, tools.KindOther, title, func(ctx context.Context) tools.Result {
		out, err := c.run(c.h, ctx, raw)
		if err != nil {
			// Errors are results the model reads, never a failed turn.
			data, _ := json.Marshal(map[string]string{"error": err.Error()})
			return tools.Result{Output: string(data), Summary: text.FirstLine(err.Error()), IsError: true}
		}
		// {"ok": false, "reason": …} (conv_destroy) is a failure to show
		// as one, though the model reads the same result.
		var failed struct {
			OK     *bool  `json:"ok"`
			Reason string `json:"reason"`
		}
		if json.Unmarshal([]byte(out), &failed) == nil && failed.OK != nil && !*failed.OK {
			return tools.Result{Output: out, Summary: text.FirstLine(failed.Reason), IsError: true}
		}
		return tools.Result{Output: out, Summary: "ok"}
	})
	inv.Confirm = confirm
	return inv, nil
}

const itemsSchema = `{"type":"array","items":{"type":"object","properties":{"type":{"type":"string","enum":["text","image_url"]},"text":{"type":"string"},"image_url":{"type":"string"}},"required":["type"]}}`

// Tools are the five tools in their fixed order.
func Tools(h Host) []Tool {
	return []Tool{
		{h, ToolCreate, "Interrupting: open a sub-conversation with its own context, run it on your brief until it answers, then continue here with its last answer. Unset fields inherit yours.",
			`{"type":"object","properties":{"base_instruction_text":{"type":"string"},"base_instruction_file":{"type":"string"},"user_instruction":{"type":"string"},"items":` + itemsSchema +
				`,"mcp_allowlist":{"type":"array","items":{"type":"string"}},"internal_tools":{"type":"object","properties":{"include_plan_tool":{"type":"boolean"},"include_apply_patch_tool":{"type":"boolean"},"web_search_request":{"type":"boolean"},"use_streamable_shell_tool":{"type":"boolean"}},"additionalProperties":false},"model":{"type":"string"},"storage_policy":{"type":"string","enum":["full","headers_only","none","ttl"]}},"additionalProperties":false}`,
			Host.Create},
		{h, ToolSend, "Interrupting: send a message to a conversation, run it until it answers, then continue here with its last answer.",
			`{"type":"object","properties":{"conversation_id":{"type":"string"},"text":{"type":"string"},"items":` + itemsSchema + `},"required":["conversation_id"],"additionalProperties":false}`,
			Host.Send},
		{h, ToolList, "List the conversations of this session; does not interrupt.", `{"type":"object","properties":{},"additionalProperties":false}`, Host.List},
		{h, ToolHistory, "Read a conversation's messages (newest limit); does not interrupt.",
			`{"type":"object","properties":{"conversation_id":{"type":"string"},"limit":{"type":"integer","minimum":1}},"required":["conversation_id"],"additionalProperties":false}`,
			Host.History},
		{h, ToolDestroy, "Destroy a sub-conversation; does not interrupt this one.", `{"type":"object","properties":{"conversation_id":{"type":"string"}},"required":["conversation_id"],"additionalProperties":false}`, Host.Destroy},
	}
}

// Decode decodes a tool's arguments strictly, naming the tool in errors.
func Decode(tool string, raw json.RawMessage, v any) error {
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("invalid arguments for %s: %s", event.ToolDisplayName(tool), strings.TrimPrefix(err.Error(), "json: "))
	}
	return nil
}
