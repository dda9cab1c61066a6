// Package llm holds the OpenAI-compatible chat types shared by the provider,
// the agent loop and the session store. The JSON shape is the wire shape, so a
// saved session can replay a request as it was sent (seed 001 §10, seed 003).
package llm

import (
	"encoding/base64"
	"encoding/json"
	"path"
	"strings"
	"time"
)

// Message roles.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Message is one chat message in OpenAI Chat Completions form. Reasoning is
// the model's thinking text, kept with the assistant message it came with.
type Message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	Name       string     `json:"name,omitempty"`
	Reasoning  string     `json:"reasoning,omitempty"`
	// Images go with a user message's text. They are sent as image_url
	// content parts after the text; a message without images is sent with
	// plain string content, exactly as before images existed.
	Images []Image `json:"images,omitempty"`
	// ReasoningItems are the Responses API's reasoning items of an
	// assistant message, kept as received (encrypted_content included)
	// and sent back before it so the model's reasoning carries across
	// steps; the chat-completions wire never sends them.
	ReasoningItems []json.RawMessage `json:"reasoning_items,omitempty"`
	// Source marks a stored message that is not the conversation's own
	// but was sent with it: SourceAgentsMD, the project instructions after
	// the system message. Session files only; never sent.
	Source string `json:"source,omitempty"`
}

// SourceAgentsMD is the Source of the AGENTS.md message a session file
// keeps after the system message (seed 001 §10: the file replays every
// request as sent).
const SourceAgentsMD = "agents_md"

// Image is one picture attached to a message: a data: URL (base64) or an
// http(s) URL the provider fetches.
type Image struct {
	URL string `json:"url"`
}

// ImageType reports whether mime is an image format chat-completion
// endpoints accept (PNG, JPEG, GIF, WebP).
func ImageType(mime string) bool {
	switch mime {
	case "image/png", "image/jpeg", "image/gif", "image/webp":
		return true
	}
	return false
}

// ImageFileType is the MIME type of an image file chat-completion
// endpoints accept, by its name's extension in any case (a.PNG,
// b.jpeg); "" for any other file.
func ImageFileType(name string) string {
	switch strings.ToLower(path.Ext(name)) {
	case ".png":
		return "image/png"
	case ".jpg", ".jpeg":
		return "image/jpeg"
	case ".gif":
		return "image/gif"
	case ".webp":
		return "image/webp"
	}
	return ""
}

// DataImage is an image sent inline: a base64 data: URL of type mime.
func DataImage(mime string, data []byte) Image {
	return Image{URL: "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(data)}
}

// ToolCall is a function call requested by the assistant.
type ToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function FunctionCall `json:"function"`
}

// FunctionCall names the function and carries its JSON-encoded arguments as
// the model produced them (possibly invalid JSON).
type FunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Tool is one entry of the OpenAI `tools` array.
type Tool struct {
	Type     string      `json:"type"`
	Function FunctionDef `json:"function"`
}

// ToolHostedWebSearch is the Type of a tool the provider runs itself: its
// own web search (the Responses API's "web_search"). Function.Name names
// it for the agent; it is never called as a function, and the chat wire
// does not send it.
const ToolHostedWebSearch = "web_search"

// Hosted reports whether the provider runs t itself.
func (t Tool) Hosted() bool { return t.Type == ToolHostedWebSearch }

// FunctionDef describes a callable function with a JSON schema.
type FunctionDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

// Usage is the token accounting reported by the provider.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
	// PromptTokensDetails.CachedTokens is the part of the prompt served
	// from the provider's cache (OpenAI, Gemini, OpenRouter, Copilot).
	PromptTokensDetails *PromptTokensDetails `json:"prompt_tokens_details,omitempty"`
	// PromptCacheHitTokens is DeepSeek's name for the cached part.
	PromptCacheHitTokens int `json:"prompt_cache_hit_tokens,omitempty"`
	// Cost is the request's price OpenRouter reports, in credits (USD).
	Cost float64 `json:"cost,omitempty"`
}

// PromptTokensDetails breaks the prompt tokens down.
type PromptTokensDetails struct {
	CachedTokens int `json:"cached_tokens"`
}

// Cached is the number of prompt tokens served from the cache, as either
// field reports it.
func (u Usage) Cached() int {
	n := u.PromptCacheHitTokens
	if u.PromptTokensDetails != nil {
		n = max(n, u.PromptTokensDetails.CachedTokens)
	}
	return n
}

// Model is one entry of an endpoint's model list (GET /models).
type Model struct {
	ID string
	// ContextWindow is the model's context window in tokens as the
	// endpoint describes it (OpenRouter's context_length); 0 when it
	// does not say.
	ContextWindow int
}

// Request is one chat-completion request.
type Request struct {
	Model    string
	Messages []Message
	Tools    []Tool
}

// Delta is one streamed piece of the answer, handed to the caller as it
// arrives. Exactly one of the fields is set.
type Delta struct {
	Content   string
	Reasoning string
	// ToolCall is the name of a tool the answer begins to call, as soon
	// as it is known: its arguments are still to come.
	ToolCall string
	// Retry is set when the request failed before anything was streamed
	// and is about to be sent again; it is no part of the answer.
	Retry *Retry
}

// Retry describes one wait before a request is sent again, so front ends
// can say why nothing arrives ("rate limited; retrying in 20 s").
type Retry struct {
	Reason      string        // RetryRateLimited, RetryServerError, RetryIdle or RetryConnection
	StatusCode  int           // HTTP status, 0 when none
	Wait        time.Duration // how long until the next attempt
	Attempt     int           // the attempt that failed, from 1
	MaxAttempts int           // attempts allowed in all
	Message     string        // the failure, for the user
}

// Retry reasons.
const (
	RetryRateLimited = "rate_limited"
	RetryServerError = "server_error"
	RetryIdle        = "idle_timeout"
	RetryConnection  = "connection"
)

// Response is the assembled result of one streamed completion.
type Response struct {
	// Message is the assistant message: merged content, reasoning and every
	// tool call in index order.
	Message      Message
	FinishReason string
	Usage        *Usage
}
