package provider

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
)

func setupResponses(t *testing.T) (*fakellm.Server, *OpenAI) {
	t.Helper()
	s := fakellm.New()
	t.Cleanup(s.Close)
	p := NewOpenAI(Options{BaseURL: s.URL(), APIKey: "sk-test", Wire: WireResponses, Provider: "openai", KeyEnv: "OPENAI_API_KEY",
		BaseBackoff: time.Millisecond, MaxBackoff: 50 * time.Millisecond})
	return s, p
}

// The Responses wire: text, reasoning summary, tool calls (split
// arguments), usage with cached tokens, finish reasons, errors.
func TestResponsesWire(t *testing.T) {
	tests := []struct {
		name    string
		replies []fakellm.Reply
		check   func(t *testing.T, resp llm.Response, err error, reqs []fakellm.Request)
	}{
		{"text and usage", []fakellm.Reply{{Content: "hello there, world", Usage: &llm.Usage{PromptTokens: 100, CompletionTokens: 5, TotalTokens: 105, PromptTokensDetails: &llm.PromptTokensDetails{CachedTokens: 64}}}},
			func(t *testing.T, resp llm.Response, err error, reqs []fakellm.Request) {
				if err != nil || resp.Message.Content != "hello there, world" || resp.FinishReason != "stop" {
					t.Fatalf("%+v %v", resp, err)
				}
				if u := resp.Usage; u == nil || u.PromptTokens != 100 || u.CompletionTokens != 5 || u.Cached() != 64 {
					t.Errorf("usage %+v", resp.Usage)
				}
				if reqs[0].Header.Get("Authorization") != "Bearer sk-test" || strings.Contains(string(reqs[0].Raw), `"reasoning"`) {
					t.Errorf("request: %v %s", reqs[0].Header, reqs[0].Raw)
				}
			}},
		{"reasoning and calls", []fakellm.Reply{{Reasoning: "think", EncryptedReasoning: "enc", ToolCalls: []llm.ToolCall{
			{ID: "a", Function: llm.FunctionCall{Name: "read", Arguments: `{"path":"some/long/file/name.go"}`}},
			{ID: "b", Function: llm.FunctionCall{Name: "ls", Arguments: `{}`}}}}},
			func(t *testing.T, resp llm.Response, err error, _ []fakellm.Request) {
				m := resp.Message
				if err != nil || m.Reasoning != "think" || len(m.ToolCalls) != 2 || m.ToolCalls[0].Function.Arguments != `{"path":"some/long/file/name.go"}` ||
					m.ToolCalls[1].ID != "b" || resp.FinishReason != "tool_calls" || len(m.ReasoningItems) != 1 {
					t.Fatalf("%+v %v", resp, err)
				}
				var item struct {
					EncryptedContent string `json:"encrypted_content"`
				}
				if json.Unmarshal(m.ReasoningItems[0], &item); item.EncryptedContent != "enc" {
					t.Errorf("item %s", m.ReasoningItems[0])
				}
			}},
		{"incomplete", []fakellm.Reply{{Content: "cut", FinishReason: "length"}},
			func(t *testing.T, resp llm.Response, err error, _ []fakellm.Request) {
				if err != nil || resp.FinishReason != "length" {
					t.Fatalf("%+v %v", resp, err)
				}
			}},
		{"401 names the variable", []fakellm.Reply{{Status: 401}},
			func(t *testing.T, _ llm.Response, err error, reqs []fakellm.Request) {
				if err == nil || !strings.Contains(err.Error(), "authentication failed (HTTP 401)") || !strings.Contains(err.Error(), "OPENAI_API_KEY") || strings.Contains(err.Error(), "sk-test") || len(reqs) != 1 {
					t.Fatalf("%v (%d requests)", err, len(reqs))
				}
			}},
		{"503 retried", []fakellm.Reply{{Status: 503}, {Content: "ok"}},
			func(t *testing.T, resp llm.Response, err error, reqs []fakellm.Request) {
				if err != nil || resp.Message.Content != "ok" || len(reqs) != 2 {
					t.Fatalf("%+v %v (%d requests)", resp, err, len(reqs))
				}
			}},
		{"cut mid-stream", []fakellm.Reply{{Content: "partial answer here", CutAfter: 3}},
			func(t *testing.T, resp llm.Response, err error, _ []fakellm.Request) {
				if err == nil || !strings.Contains(err.Error(), "connection lost") && !strings.Contains(err.Error(), "ended before") {
					t.Fatalf("%+v %v", resp, err)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, p := setupResponses(t)
			s.Enqueue(tt.replies...)
			resp, _, err := collect(t, p, simpleReq)
			tt.check(t, resp, err, s.Requests())
		})
	}
}

// Reasoning models get the reasoning parameters; effort passes through on
// both wires.
func TestReasoningEffort(t *testing.T) {
	s, p := setupResponses(t)
	p.opts.ReasoningEffort = "low"
	s.Enqueue(fakellm.Reply{Content: "x"})
	if _, _, err := collect(t, p, llm.Request{Model: "o4-mini", Messages: simpleReq.Messages}); err != nil {
		t.Fatal(err)
	}
	if raw := string(s.Requests()[0].Raw); !strings.Contains(raw, `"reasoning":{"effort":"low","summary":"auto"}`) || !strings.Contains(raw, `"store":false`) {
		t.Errorf("responses request: %s", raw)
	}
	c, pc := setup(t)
	pc.opts.ReasoningEffort = "high"
	c.Enqueue(fakellm.Reply{Content: "x"})
	if _, _, err := collect(t, pc, simpleReq); err != nil {
		t.Fatal(err)
	}
	if raw := string(c.Requests()[0].Raw); !strings.Contains(raw, `"reasoning_effort":"high"`) {
		t.Errorf("chat request: %s", raw)
	}
}

// The provider's own web search (a hosted tool): the Responses wire sends
// it as {"type": "web_search"}, its search shows as thinking and is not
// kept as an item; the chat wire leaves it out.
func TestHostedWebSearch(t *testing.T) {
	req := llm.Request{Model: "m1", Messages: simpleReq.Messages, Tools: []llm.Tool{
		{Type: "function", Function: llm.FunctionDef{Name: "read", Parameters: json.RawMessage(`{"type":"object"}`)}},
		{Type: llm.ToolHostedWebSearch, Function: llm.FunctionDef{Name: "web_search"}},
	}}
	s, p := setupResponses(t)
	s.Enqueue(fakellm.Reply{HostedSearch: "go 1.26", Content: "It changed."})
	resp, _, err := collect(t, p, req)
	if err != nil || resp.Message.Content != "It changed." || resp.Message.Reasoning != "searched the web for \"go 1.26\"\n" || len(resp.Message.ReasoningItems) != 0 {
		t.Fatalf("%+v %v", resp, err)
	}
	if raw := string(s.Requests()[0].Raw); !strings.Contains(raw, `{"type":"web_search"}`) || strings.Count(raw, `"type":"function"`) != 1 {
		t.Errorf("responses tools: %s", raw)
	}

	chat, cp := setup(t)
	chat.Enqueue(fakellm.Reply{Content: "ok"})
	if _, _, err := collect(t, cp, req); err != nil {
		t.Fatal(err)
	}
	if tools := chat.Requests()[0].Tools; len(tools) != 1 || tools[0].Function.Name != "read" {
		t.Errorf("chat tools: %+v", tools)
	}
}
