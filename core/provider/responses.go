package provider

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/coder-nvim/coder-nvim/core/llm"
)

// Wire protocols (Options.Wire).
const (
	WireChat      = "chat"
	WireResponses = "responses"
)

// The Responses API (POST /responses) speaks items rather than messages.
// The session keeps chat-completions messages; they are converted here,
// both ways: reasoning items ride on the assistant message
// (llm.Message.ReasoningItems) and go back before it.

type responsesRequest struct {
	Model     string   `json:"model"`
	Input     []any    `json:"input"`
	Tools     []any    `json:"tools,omitempty"` // responsesTool, hostedTool
	Stream    bool     `json:"stream"`
	Store     bool     `json:"store"`
	Include   []string `json:"include,omitempty"`
	Reasoning *struct {
		Effort  string `json:"effort,omitempty"`
		Summary string `json:"summary,omitempty"`
	} `json:"reasoning,omitempty"`
}

type responsesTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

// hostedTool is a tool the provider runs itself ({"type": "web_search"}).
type hostedTool struct {
	Type string `json:"type"`
}

type contentPart struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	ImageURL string `json:"image_url,omitempty"`
}

type messageItem struct {
	Type    string        `json:"type"`
	Role    string        `json:"role"`
	Content []contentPart `json:"content"`
}

type functionCallItem struct {
	Type      string `json:"type"`
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type functionOutputItem struct {
	Type   string `json:"type"`
	CallID string `json:"call_id"`
	Output string `json:"output"`
}

// reasoningModel reports whether a model reasons (and so takes the
// reasoning parameter and returns reasoning items).
func reasoningModel(model string) bool {
	m := strings.ToLower(model)
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	for _, p := range []string{"o1", "o3", "o4", "gpt-5"} {
		if strings.HasPrefix(m, p) {
			return true
		}
	}
	return strings.Contains(m, "codex")
}

// toResponses converts a chat request to a Responses API request: stored
// nowhere (store false), the encrypted reasoning asked for and sent back.
func toResponses(req llm.Request, effort string) responsesRequest {
	out := responsesRequest{Model: req.Model, Stream: true, Input: []any{}}
	if effort != "" || reasoningModel(req.Model) {
		out.Reasoning = &struct {
			Effort  string `json:"effort,omitempty"`
			Summary string `json:"summary,omitempty"`
		}{Effort: effort, Summary: "auto"}
		out.Include = []string{"reasoning.encrypted_content"}
	}
	for _, m := range req.Messages {
		switch m.Role {
		case llm.RoleTool:
			text := m.Content
			if text == "" {
				text = "(empty)"
			}
			out.Input = append(out.Input, functionOutputItem{Type: "function_call_output", CallID: m.ToolCallID, Output: text})
		case llm.RoleAssistant:
			for _, it := range m.ReasoningItems {
				out.Input = append(out.Input, it)
			}
			if m.Content != "" {
				out.Input = append(out.Input, messageItem{Type: "message", Role: llm.RoleAssistant, Content: []contentPart{{Type: "output_text", Text: m.Content}}})
			}
			for _, tc := range m.ToolCalls {
				out.Input = append(out.Input, functionCallItem{Type: "function_call", CallID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
			}
		default: // system, user
			parts := []contentPart{{Type: "input_text", Text: m.Content}}
			for _, img := range m.Images {
				parts = append(parts, contentPart{Type: "input_image", ImageURL: img.URL})
			}
			out.Input = append(out.Input, messageItem{Type: "message", Role: m.Role, Content: parts})
		}
	}
	for _, t := range req.Tools {
		if t.Hosted() {
			out.Tools = append(out.Tools, hostedTool{Type: t.Type})
			continue
		}
		params := t.Function.Parameters
		if len(params) == 0 {
			params = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		out.Tools = append(out.Tools, responsesTool{Type: "function", Name: t.Function.Name, Description: t.Function.Description, Parameters: params})
	}
	return out
}

// responsesEvent is one streamed response.* event (the fields used).
type responsesEvent struct {
	Type        string          `json:"type"`
	Delta       string          `json:"delta"`
	ItemID      string          `json:"item_id"`
	OutputIndex int             `json:"output_index"`
	Item        json.RawMessage `json:"item"`
	Message     string          `json:"message"`
	Response    *struct {
		Status            string `json:"status"`
		IncompleteDetails *struct {
			Reason string `json:"reason"`
		} `json:"incomplete_details"`
		Error *struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
		Usage *struct {
			InputTokens        int `json:"input_tokens"`
			OutputTokens       int `json:"output_tokens"`
			TotalTokens        int `json:"total_tokens"`
			InputTokensDetails *struct {
				CachedTokens int `json:"cached_tokens"`
			} `json:"input_tokens_details"`
		} `json:"usage"`
	} `json:"response"`
}

type outputItem struct {
	Type   string `json:"type"`
	Status string `json:"status"`
	Action *struct {
		Type  string `json:"type"`
		Query string `json:"query"`
		URL   string `json:"url"`
	} `json:"action"`
	ID        string `json:"id"`
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	Summary   []struct {
		Text string `json:"text"`
	} `json:"summary"`
	Content []struct {
		Text string `json:"text"`
	} `json:"content"`
}

// responsesAcc assembles one streamed response.
type responsesAcc struct {
	content, reasoning strings.Builder
	sawText, sawThink  bool
	calls              []*partialCall // index: output_index
	items              []json.RawMessage
	usage              *llm.Usage
	finish             string
	maxArgs            int // see Options.MaxToolArguments
}

func (a *responsesAcc) call(ev responsesEvent) *partialCall {
	for _, c := range a.calls {
		if c.index == ev.OutputIndex {
			return c
		}
	}
	c := &partialCall{index: ev.OutputIndex}
	a.calls = append(a.calls, c)
	return c
}

// add handles one event; done reports the end of the response.
func (a *responsesAcc) add(ev responsesEvent, emit func(llm.Delta)) (done bool, err error) {
	switch ev.Type {
	case "response.output_text.delta", "response.refusal.delta":
		a.sawText = true
		a.content.WriteString(ev.Delta)
		emit(llm.Delta{Content: ev.Delta})
	case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
		a.sawThink = true
		a.reasoning.WriteString(ev.Delta)
		emit(llm.Delta{Reasoning: ev.Delta})
	case "response.reasoning_summary_part.added":
		if a.reasoning.Len() > 0 {
			a.reasoning.WriteString("\n\n")
			emit(llm.Delta{Reasoning: "\n\n"})
		}
	case "response.output_item.added", "response.output_item.done":
		var it outputItem
		if err := json.Unmarshal(ev.Item, &it); err != nil {
			return false, &Error{Message: fmt.Sprintf("provider: the server sent an invalid %s event: %v", ev.Type, err), Err: err}
		}
		a.item(ev, it, emit)
	case "response.function_call_arguments.delta":
		a.call(ev).args.WriteString(ev.Delta)
		if err := oversizeCall(a.calls, a.maxArgs); err != nil {
			return false, err
		}
	case "response.completed", "response.incomplete":
		a.finish = "stop"
		if ev.Response != nil {
			if u := ev.Response.Usage; u != nil {
				a.usage = &llm.Usage{PromptTokens: u.InputTokens, CompletionTokens: u.OutputTokens, TotalTokens: u.TotalTokens}
				if u.InputTokensDetails != nil {
					a.usage.PromptTokensDetails = &llm.PromptTokensDetails{CachedTokens: u.InputTokensDetails.CachedTokens}
				}
			}
			if d := ev.Response.IncompleteDetails; ev.Type == "response.incomplete" && d != nil {
				a.finish = map[string]string{"max_output_tokens": "length", "content_filter": "content_filter"}[d.Reason]
				if a.finish == "" {
					a.finish = "length"
				}
			}
		}
		if a.finish == "stop" && len(a.calls) > 0 {
			a.finish = "tool_calls"
		}
		return true, nil
	case "response.failed":
		msg := "the response failed"
		retry := false
		if ev.Response != nil && ev.Response.Error != nil {
			msg = ev.Response.Error.Message
			retry = ev.Response.Error.Code == "server_error" || ev.Response.Error.Code == "rate_limit_exceeded"
		}
		return false, &Error{Message: "provider: the server reported an error while streaming: " + msg, Retryable: retry}
	case "error":
		return false, &Error{Message: "provider: the server reported an error while streaming: " + ev.Message}
	}
	return false, nil
}

// item records an output item as it starts or ends.
func (a *responsesAcc) item(ev responsesEvent, it outputItem, emit func(llm.Delta)) {
	done := ev.Type == "response.output_item.done"
	switch it.Type {
	case "function_call":
		c := a.call(ev)
		if c.id == "" {
			c.id = it.CallID
		}
		if c.name == "" && it.Name != "" {
			c.name = it.Name
			emit(llm.Delta{ToolCall: c.name})
		}
		if done && it.Arguments != "" {
			// The whole arguments: they replace the deltas.
			c.args.release()
			c.args.WriteString(it.Arguments)
		}
	case "reasoning":
		if !done {
			return
		}
		a.items = append(a.items, append(json.RawMessage(nil), ev.Item...))
		if !a.sawThink {
			for _, s := range it.Summary {
				a.reasoning.WriteString(s.Text)
				emit(llm.Delta{Reasoning: s.Text})
			}
		}
	case "web_search_call":
		// The provider's own search (web.search.backend "hosted"): shown
		// as the model's thinking; the item is not sent back (store is
		// false: the answer's text carries what it found).
		if done && it.Action != nil {
			if line := hostedSearchLine(it.Action.Type, it.Action.Query, it.Action.URL); line != "" {
				a.reasoning.WriteString(line)
				emit(llm.Delta{Reasoning: line})
			}
		}
	case "message":
		if done && !a.sawText {
			for _, c := range it.Content {
				a.content.WriteString(c.Text)
				emit(llm.Delta{Content: c.Text})
			}
		}
	}
}

// hostedSearchLine says what a hosted web search did, "" for nothing.
func hostedSearchLine(action, query, page string) string {
	switch {
	case action == "search" && query != "":
		return "searched the web for " + strconv.Quote(query) + "\n"
	case page != "":
		return "opened " + page + " (the provider's web search)\n"
	}
	return ""
}

func (a *responsesAcc) response() llm.Response {
	acc := accumulator{calls: a.calls}
	r := acc.response()
	r.Message.Content, r.Message.Reasoning, r.Message.ReasoningItems = a.content.String(), a.reasoning.String(), a.items
	r.FinishReason, r.Usage = a.finish, a.usage
	return r
}

// attemptResponses makes one Responses API request and reads its stream.
func (p *OpenAI) attemptResponses(ctx context.Context, body []byte, emit func(llm.Delta)) (llm.Response, error) {
	actx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	capture := &responseInfo{watch: newIdleWatch(p.opts.IdleTimeout, func() { cancel(errIdle) })}
	defer capture.watch.stop()
	req, err := http.NewRequestWithContext(withCapture(actx, capture), http.MethodPost, p.baseURL+"/responses", bytes.NewReader(body))
	if err != nil {
		return llm.Response{}, &Error{Message: "provider: invalid request: " + err.Error(), Err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	if p.opts.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+p.opts.APIKey)
	}
	resp, err := p.http.Do(req)
	if err != nil {
		switch {
		case ctx.Err() != nil:
			return llm.Response{}, fmt.Errorf("provider: request cancelled: %w", ctx.Err())
		case context.Cause(actx) == errIdle:
			status, _ := capture.get()
			return llm.Response{}, p.idleError(status != 0)
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return llm.Response{}, &Error{Message: fmt.Sprintf("provider: cannot reach %s: %v", p.baseURL, err), Retryable: true, Err: err}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		if context.Cause(actx) == errIdle {
			return llm.Response{}, p.idleError(true)
		}
		e := p.statusError(resp.StatusCode, bodyMessage(data))
		if v := resp.Header.Get("Retry-After"); v != "" {
			e.retryAfter, e.hasRetryAfter = parseRetryAfter(v, time.Now())
		}
		return llm.Response{}, e
	}

	acc := responsesAcc{maxArgs: p.maxToolArguments()}
	defer func() {
		for _, c := range acc.calls {
			c.args.release()
		}
	}()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	var data bytes.Buffer
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) > 0 {
			if v, ok := bytes.CutPrefix(line, []byte("data:")); ok {
				if data.Len() > 0 {
					data.WriteByte('\n')
				}
				data.Write(bytes.TrimPrefix(v, []byte(" ")))
			}
			continue // event:, id:, comments
		}
		if data.Len() == 0 || bytes.Equal(data.Bytes(), []byte("[DONE]")) {
			data.Reset()
			continue
		}
		var ev responsesEvent
		if err := json.Unmarshal(data.Bytes(), &ev); err != nil {
			return acc.response(), &Error{Message: fmt.Sprintf("provider: the server sent an invalid stream event (%v): %s", err, snippet(data.Bytes())), Err: err}
		}
		data.Reset()
		done, err := acc.add(ev, emit)
		if err != nil {
			return acc.response(), err
		}
		if done {
			return acc.response(), nil
		}
	}
	switch {
	case ctx.Err() != nil:
		return acc.response(), fmt.Errorf("provider: request cancelled: %w", ctx.Err())
	case context.Cause(actx) == errIdle:
		return acc.response(), p.idleError(true)
	case sc.Err() != nil:
		return acc.response(), &Error{Message: "provider: connection lost while streaming: " + sc.Err().Error(), Retryable: true, Err: sc.Err()}
	}
	return acc.response(), &Error{Message: "provider: stream ended before the model finished", Retryable: true, Err: io.ErrUnexpectedEOF}
}
