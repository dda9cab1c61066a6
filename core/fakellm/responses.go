package fakellm

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/coder-nvim/coder-nvim/core/llm"
)

// The Responses API side of the fake (POST /responses): requests are
// converted to chat messages so that scripts serve both wires, and replies
// are streamed as response.* events.

type responsesWire struct {
	Model string            `json:"model"`
	Input []json.RawMessage `json:"input"`
	Tools []struct {
		Type        string          `json:"type"`
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"tools"`
	Stream bool `json:"stream"`
}

type inputItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	CallID    string          `json:"call_id"`
	Name      string          `json:"name"`
	Arguments string          `json:"arguments"`
	Output    string          `json:"output"`
}

// responsesRequest decodes a Responses API body into a Request. Input
// items become messages: reasoning items, output text and function calls
// in a row make one assistant message (reasoning items on it as sent).
func responsesRequest(raw []byte) (Request, error) {
	var wr responsesWire
	if err := json.Unmarshal(raw, &wr); err != nil {
		return Request{}, fmt.Errorf("invalid JSON body: %w", err)
	}
	req := Request{Model: wr.Model, Stream: wr.Stream, IncludeUsage: true, Raw: raw, Responses: true, Input: wr.Input}
	for _, t := range wr.Tools {
		req.Tools = append(req.Tools, llm.Tool{Type: t.Type, Function: llm.FunctionDef{Name: t.Name, Description: t.Description, Parameters: t.Parameters}})
	}
	var cur *llm.Message         // the assistant message being assembled
	names := map[string]string{} // call id → function name, for the outputs
	flush := func() {
		if cur != nil {
			req.Messages = append(req.Messages, *cur)
			cur = nil
		}
	}
	assistant := func() *llm.Message {
		if cur == nil {
			cur = &llm.Message{Role: llm.RoleAssistant}
		}
		return cur
	}
	for i, rawItem := range wr.Input {
		var it inputItem
		if err := json.Unmarshal(rawItem, &it); err != nil {
			return Request{}, fmt.Errorf("input[%d]: %w", i, err)
		}
		switch {
		case it.Type == "reasoning":
			m := assistant()
			m.ReasoningItems = append(m.ReasoningItems, rawItem)
		case it.Type == "function_call":
			m := assistant()
			names[it.CallID] = it.Name
			m.ToolCalls = append(m.ToolCalls, llm.ToolCall{ID: it.CallID, Type: "function", Function: llm.FunctionCall{Name: it.Name, Arguments: it.Arguments}})
		case it.Type == "function_call_output":
			flush()
			req.Messages = append(req.Messages, llm.Message{Role: llm.RoleTool, ToolCallID: it.CallID, Name: names[it.CallID], Content: it.Output})
		case it.Role == llm.RoleAssistant:
			m := assistant()
			m.Content += contentText(it.Content)
		case it.Role != "":
			flush()
			req.Messages = append(req.Messages, llm.Message{Role: it.Role, Content: contentText(it.Content), Images: inputImages(it.Content)})
		default:
			return Request{}, fmt.Errorf("input[%d]: unknown item type %q", i, it.Type)
		}
	}
	flush()
	return req, nil
}

func inputImages(raw json.RawMessage) []llm.Image {
	var parts []struct {
		Type     string `json:"type"`
		ImageURL string `json:"image_url"`
	}
	if len(raw) == 0 || raw[0] != '[' || json.Unmarshal(raw, &parts) != nil {
		return nil
	}
	var out []llm.Image
	for _, p := range parts {
		if p.Type == "input_image" {
			out = append(out, llm.Image{URL: p.ImageURL})
		}
	}
	return out
}

// responsesEvents builds the events of a streamed reply, in order.
func responsesEvents(req Request, reply Reply, seq int) [][]byte {
	var out [][]byte
	n := 0
	add := func(typ string, fields map[string]any) {
		fields["type"] = typ
		n++
		fields["sequence_number"] = n
		b, _ := json.Marshal(fields) // only plain values: cannot fail
		out = append(out, fmt.Appendf(nil, "event: %s\ndata: %s\n\n", typ, b))
	}
	size := reply.Chunk
	if size <= 0 {
		size = 8
	}
	respID := fmt.Sprintf("resp_fake_%d", seq)
	model := req.Model
	add("response.created", map[string]any{"response": map[string]any{"id": respID, "object": "response", "status": "in_progress", "model": model}})
	idx := 0
	if reply.Reasoning != "" || reply.EncryptedReasoning != "" {
		id := fmt.Sprintf("rs_fake_%d", seq)
		add("response.output_item.added", map[string]any{"output_index": idx, "item": map[string]any{"type": "reasoning", "id": id, "summary": []any{}}})
		if reply.Reasoning != "" {
			add("response.reasoning_summary_part.added", map[string]any{"item_id": id, "output_index": idx, "summary_index": 0, "part": map[string]any{"type": "summary_text", "text": ""}})
			for _, piece := range split(reply.Reasoning, size) {
				add("response.reasoning_summary_text.delta", map[string]any{"item_id": id, "output_index": idx, "summary_index": 0, "delta": piece})
			}
		}
		item := map[string]any{"type": "reasoning", "id": id, "summary": []any{map[string]any{"type": "summary_text", "text": reply.Reasoning}}}
		if reply.EncryptedReasoning != "" {
			item["encrypted_content"] = reply.EncryptedReasoning
		}
		add("response.output_item.done", map[string]any{"output_index": idx, "item": item})
		idx++
	}
	if reply.HostedSearch != "" {
		id := fmt.Sprintf("ws_fake_%d", seq)
		add("response.output_item.added", map[string]any{"output_index": idx, "item": map[string]any{"type": "web_search_call", "id": id, "status": "in_progress"}})
		add("response.web_search_call.searching", map[string]any{"output_index": idx, "item_id": id})
		add("response.web_search_call.completed", map[string]any{"output_index": idx, "item_id": id})
		add("response.output_item.done", map[string]any{"output_index": idx, "item": map[string]any{"type": "web_search_call", "id": id, "status": "completed",
			"action": map[string]any{"type": "search", "query": reply.HostedSearch}}})
		idx++
	}
	pieces := reply.Deltas
	if pieces == nil {
		pieces = split(reply.Content, size)
	}
	text := ""
	if len(pieces) > 0 {
		id := fmt.Sprintf("msg_fake_%d", seq)
		add("response.output_item.added", map[string]any{"output_index": idx, "item": map[string]any{"type": "message", "id": id, "role": "assistant", "content": []any{}}})
		for _, p := range pieces {
			text += p
			add("response.output_text.delta", map[string]any{"item_id": id, "output_index": idx, "content_index": 0, "delta": p})
		}
		add("response.output_item.done", map[string]any{"output_index": idx, "item": map[string]any{"type": "message", "id": id, "role": "assistant",
			"content": []any{map[string]any{"type": "output_text", "text": text}}}})
		idx++
	}
	argsLen := 0
	for i, tc := range reply.ToolCalls {
		id := fmt.Sprintf("fc_fake_%d_%d", seq, i)
		argsLen += len(tc.Function.Arguments)
		add("response.output_item.added", map[string]any{"output_index": idx, "item": map[string]any{"type": "function_call", "id": id, "call_id": tc.ID, "name": tc.Function.Name, "arguments": ""}})
		for _, piece := range split(tc.Function.Arguments, min(size, 5)) {
			add("response.function_call_arguments.delta", map[string]any{"item_id": id, "output_index": idx, "delta": piece})
		}
		add("response.output_item.done", map[string]any{"output_index": idx, "item": map[string]any{"type": "function_call", "id": id, "call_id": tc.ID, "name": tc.Function.Name, "arguments": tc.Function.Arguments}})
		idx++
	}
	// Every field OpenAI sends: Codex CLI refuses a usage without them.
	in, outTok := len(req.Raw)/4+1, (len(text)+len(reply.Reasoning)+argsLen)/4+1
	usage := map[string]any{"input_tokens": in, "output_tokens": outTok, "total_tokens": in + outTok,
		"input_tokens_details": map[string]any{"cached_tokens": 0}, "output_tokens_details": map[string]any{"reasoning_tokens": 0}}
	if u := reply.Usage; u != nil {
		usage = map[string]any{"input_tokens": u.PromptTokens, "output_tokens": u.CompletionTokens, "total_tokens": u.TotalTokens,
			"input_tokens_details": map[string]any{"cached_tokens": u.Cached()}, "output_tokens_details": map[string]any{"reasoning_tokens": 0}}
	}
	status, typ := "completed", "response.completed"
	resp := map[string]any{"id": respID, "object": "response", "status": status, "model": model, "usage": usage}
	if reply.FinishReason == "length" {
		typ = "response.incomplete"
		resp["status"] = "incomplete"
		resp["incomplete_details"] = map[string]any{"reason": "max_output_tokens"}
	}
	add(typ, map[string]any{"response": resp})
	return out
}

// streamResponses writes the reply as the Responses API's events.
func (s *Server) streamResponses(w http.ResponseWriter, r *http.Request, req Request, reply Reply, seq int) {
	if !req.Stream {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "fakellm: only stream=true is supported", "")
		return
	}
	s.writeFrames(w, r, reply, responsesEvents(req, reply, seq), false)
}
