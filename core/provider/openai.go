// Package provider talks to OpenAI-compatible chat-completion endpoints. It
// streams one completion per call, hands content and reasoning to the caller
// as they arrive, and retries failures that happen before anything was shown.
package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/coder-nvim/coder-nvim/core/llm"
)

// Options configures an OpenAI client.
type Options struct {
	BaseURL     string        // e.g. https://api.openai.com/v1, http://127.0.0.1:PORT/v1
	APIKey      string        // sent as a Bearer token when set
	MaxAttempts int           // total attempts including the first; default 4
	BaseBackoff time.Duration // default 500ms; doubles each retry, capped at MaxBackoff
	MaxBackoff  time.Duration // default 20s
	// IdleTimeout ends an attempt that receives nothing for this long,
	// waiting for the response or in the middle of the stream; default
	// DefaultIdleTimeout.
	IdleTimeout time.Duration
	HTTPClient  *http.Client // optional; must not set a Timeout shorter than a stream

	// Provider names the endpoint in messages ("anthropic"); KeyEnv is the
	// variable APIKey was read from, named (never the key) after a 401.
	Provider string
	KeyEnv   string
	// AuthHint, when set, replaces the advice after a 401 or 403.
	AuthHint string
	// Headers are sent with every request (a preset's required headers).
	Headers map[string]string
	// ReasoningEffort is sent as reasoning_effort (chat) or
	// reasoning.effort (responses) when set.
	ReasoningEffort string
	// Wire is "chat" (default) or "responses".
	Wire string
	// MaxToolArguments caps one tool call's arguments as they stream;
	// default MaxToolArguments.
	MaxToolArguments int
}

func (p *OpenAI) maxToolArguments() int {
	if p.opts.MaxToolArguments > 0 {
		return p.opts.MaxToolArguments
	}
	return MaxToolArguments
}

// DefaultIdleTimeout is the default Options.IdleTimeout.
const DefaultIdleTimeout = 120 * time.Second

// OpenAI is a streaming client for an OpenAI-compatible endpoint. It is safe
// for concurrent use.
type OpenAI struct {
	client  *openai.Client
	http    *http.Client // the client's, for the Responses API and /models
	baseURL string
	opts    Options
}

// NewOpenAI returns a client for opts, filling in defaults.
func NewOpenAI(opts Options) *OpenAI {
	if opts.BaseURL == "" {
		opts.BaseURL = "https://api.openai.com/v1"
	}
	opts.BaseURL = strings.TrimRight(opts.BaseURL, "/")
	if opts.MaxAttempts <= 0 {
		opts.MaxAttempts = 4
	}
	if opts.BaseBackoff <= 0 {
		opts.BaseBackoff = 500 * time.Millisecond
	}
	if opts.MaxBackoff <= 0 {
		opts.MaxBackoff = 20 * time.Second
	}
	if opts.IdleTimeout <= 0 {
		opts.IdleTimeout = DefaultIdleTimeout
	}
	hc := http.Client{}
	if opts.HTTPClient != nil {
		hc = *opts.HTTPClient
	}
	base := hc.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	// go-openai drops the response headers of failed requests; the
	// transport keeps the status and Retry-After for the retry loop.
	if len(opts.Headers) > 0 {
		base = &headerTransport{base: base, headers: opts.Headers}
	}
	hc.Transport = &captureTransport{base: base}

	cfg := openai.DefaultConfig(opts.APIKey)
	cfg.BaseURL = opts.BaseURL
	cfg.HTTPClient = &hc
	// Keep-alive comments and blank lines count as "empty messages"; some
	// servers send many while a model thinks.
	cfg.EmptyMessagesLimit = 100000
	return &OpenAI{client: openai.NewClientWithConfig(cfg), http: &hc, baseURL: opts.BaseURL, opts: opts}
}

// headerTransport adds fixed headers to every request.
type headerTransport struct {
	base    http.RoundTripper
	headers map[string]string
}

func (t *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	for k, v := range t.headers {
		req.Header.Set(k, v)
	}
	return t.base.RoundTrip(req)
}

// Stream sends one chat completion request with stream=true and
// stream_options.include_usage=true, calls onDelta (on the calling goroutine)
// for each content or reasoning piece as it arrives, and returns the
// assembled assistant message.
//
// Failures are retried only while nothing has been passed to onDelta; an
// attempt cut by the idle timeout is retried once at most. Before each
// wait onDelta gets a Delta with Retry set. On an error after streaming
// began, the partial response is returned with it.
func (p *OpenAI) Stream(ctx context.Context, req llm.Request, onDelta func(llm.Delta)) (llm.Response, error) {
	if onDelta == nil {
		onDelta = func(llm.Delta) {}
	}
	var do func(context.Context, func(llm.Delta)) (llm.Response, error)
	if p.opts.Wire == WireResponses {
		body, err := json.Marshal(toResponses(req, p.opts.ReasoningEffort))
		if err != nil {
			return llm.Response{}, &Error{Message: "provider: invalid request: " + err.Error(), Err: err}
		}
		do = func(ctx context.Context, emit func(llm.Delta)) (llm.Response, error) {
			return p.attemptResponses(ctx, body, emit)
		}
	} else {
		oreq := toOpenAI(req)
		oreq.ReasoningEffort = p.opts.ReasoningEffort
		do = func(ctx context.Context, emit func(llm.Delta)) (llm.Response, error) {
			return p.attempt(ctx, oreq, emit)
		}
	}
	emitted := false
	emit := func(d llm.Delta) {
		// What the user saw is not sent again; a call's name alone
		// showed nothing.
		emitted = emitted || d.ToolCall == ""
		onDelta(d)
	}
	idleCuts := 0
	for attempt := 1; ; attempt++ {
		resp, err := do(ctx, emit)
		if err == nil {
			return resp, nil
		}
		var pe *Error
		if !errors.As(err, &pe) {
			return resp, err // cancellation
		}
		pe.Attempts = attempt
		if pe.idle {
			idleCuts++
		}
		// A second silent server in a row is not worth another wait of
		// the whole timeout.
		if !pe.Retryable || emitted || attempt >= p.opts.MaxAttempts || idleCuts > 1 {
			return resp, pe
		}
		wait := backoff(attempt, p.opts.BaseBackoff, p.opts.MaxBackoff, pe.retryAfter, pe.hasRetryAfter)
		onDelta(llm.Delta{Retry: &llm.Retry{
			Reason:      retryReason(pe),
			StatusCode:  pe.StatusCode,
			Wait:        wait,
			Attempt:     attempt,
			MaxAttempts: p.opts.MaxAttempts,
			Message:     pe.Message,
		}})
		if err := sleep(ctx, wait); err != nil {
			return resp, fmt.Errorf("provider: cancelled while waiting to retry (%s): %w", pe.Message, err)
		}
	}
}

// attempt makes one request and reads its stream to the end.
func (p *OpenAI) attempt(ctx context.Context, oreq openai.ChatCompletionRequest, emit func(llm.Delta)) (llm.Response, error) {
	actx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	capture := &responseInfo{watch: newIdleWatch(p.opts.IdleTimeout, func() { cancel(errIdle) })}
	defer capture.watch.stop()
	stream, err := p.client.CreateChatCompletionStream(withCapture(actx, capture), oreq)
	if err != nil {
		if ctx.Err() != nil {
			return llm.Response{}, fmt.Errorf("provider: request cancelled: %w", ctx.Err())
		}
		if context.Cause(actx) == errIdle {
			status, _ := capture.get()
			return llm.Response{}, p.idleError(status != 0)
		}
		return llm.Response{}, p.requestError(err, capture)
	}
	defer stream.Close()

	acc := accumulator{maxArgs: p.maxToolArguments()}
	defer acc.release()
	for {
		raw, err := stream.RecvRaw()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			if ctx.Err() != nil {
				return acc.response(), fmt.Errorf("provider: request cancelled: %w", ctx.Err())
			}
			if context.Cause(actx) == errIdle {
				return acc.response(), p.idleError(true)
			}
			var apiErr *openai.APIError
			if errors.As(err, &apiErr) {
				return acc.response(), &Error{StatusCode: apiErr.HTTPStatusCode, Message: "provider: the server reported an error while streaming: " + apiErr.Message, Err: err}
			}
			return acc.response(), &Error{Message: "provider: connection lost while streaming: " + err.Error(), Retryable: true, Err: err}
		}
		if err := acc.add(raw, emit); err != nil {
			return acc.response(), err
		}
	}
	if acc.finishReason == "" {
		return acc.response(), &Error{Message: "provider: stream ended before the model finished", Retryable: true, Err: io.ErrUnexpectedEOF}
	}
	return acc.response(), nil
}

// toOpenAI converts the shared request to go-openai's shape. Reasoning is
// not sent back: OpenAI rejects unknown message fields and other servers
// (DeepSeek) reject their own reasoning_content in requests.
func toOpenAI(req llm.Request) openai.ChatCompletionRequest {
	out := openai.ChatCompletionRequest{
		Model:         req.Model,
		Stream:        true,
		StreamOptions: &openai.StreamOptions{IncludeUsage: true},
	}
	for _, m := range req.Messages {
		om := openai.ChatCompletionMessage{
			Role:       m.Role,
			Content:    m.Content,
			Name:       m.Name,
			ToolCallID: m.ToolCallID,
		}
		if len(m.Images) > 0 {
			om.Content = ""
			if m.Content != "" {
				om.MultiContent = append(om.MultiContent, openai.ChatMessagePart{Type: openai.ChatMessagePartTypeText, Text: m.Content})
			}
			for _, img := range m.Images {
				om.MultiContent = append(om.MultiContent, openai.ChatMessagePart{Type: openai.ChatMessagePartTypeImageURL, ImageURL: &openai.ChatMessageImageURL{URL: img.URL}})
			}
		}
		// go-openai omits empty content, and OpenAI requires it on tool
		// results and on assistant messages without tool calls (an empty
		// answer, e.g. one cut by the length limit or only reasoning).
		if om.Content == "" && (m.Role == llm.RoleTool || m.Role == llm.RoleAssistant && len(m.ToolCalls) == 0) {
			om.Content = "(empty)"
		}
		for _, tc := range m.ToolCalls {
			typ := openai.ToolType(tc.Type)
			if typ == "" {
				typ = openai.ToolTypeFunction
			}
			om.ToolCalls = append(om.ToolCalls, openai.ToolCall{
				ID:       tc.ID,
				Type:     typ,
				Function: openai.FunctionCall{Name: tc.Function.Name, Arguments: tc.Function.Arguments},
			})
		}
		out.Messages = append(out.Messages, om)
	}
	for _, t := range req.Tools {
		if t.Hosted() {
			continue // the Responses API's alone
		}
		params := t.Function.Parameters
		if len(params) == 0 {
			params = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		out.Tools = append(out.Tools, openai.Tool{
			Type: openai.ToolTypeFunction,
			Function: &openai.FunctionDefinition{
				Name:        t.Function.Name,
				Description: t.Function.Description,
				Parameters:  params,
			},
		})
	}
	return out
}

// retryReason classifies a retryable failure for the user.
func retryReason(e *Error) string {
	switch {
	case e.idle:
		return llm.RetryIdle
	case e.StatusCode == http.StatusTooManyRequests:
		return llm.RetryRateLimited
	case e.StatusCode != 0:
		return llm.RetryServerError
	}
	return llm.RetryConnection
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
