// Package fakellm is a scripted fake of the OpenAI Chat Completions streaming
// API. Tests, benchmarks and the offline demo point the provider at it: each
// request is answered by the next queued Reply (or by a script), streamed as
// server-sent events shaped exactly like OpenAI's.
package fakellm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/coder-nvim/coder-nvim/core/llm"
)

// Request is one chat-completion request as the server received it.
type Request struct {
	Model        string
	Messages     []llm.Message
	Tools        []llm.Tool
	Stream       bool
	IncludeUsage bool
	Raw          []byte
	Header       http.Header
	// Responses is set for a Responses API request (POST /responses):
	// Messages are then converted from its input items, which Input holds
	// as sent.
	Responses bool
	Input     []json.RawMessage
}

// Reply scripts the answer to one request.
type Reply struct {
	Content        string
	Reasoning      string
	ReasoningField string         // "reasoning_content" (default) or "reasoning"
	ToolCalls      []llm.ToolCall // arguments are streamed split mid-JSON
	OmitIndex      bool           // tool-call chunks carry no index field
	Chunk          int            // characters per content chunk; default 8
	Delay          time.Duration  // sleep between chunks (slow stream)
	Status         int            // non-zero: HTTP error with an OpenAI-style error body instead of a stream
	RetryAfter     string         // Retry-After header value for Status replies
	CutAfter       int            // >0: drop the connection after this many chunks, no finish_reason, no [DONE]
	Garbage        bool           // send an invalid JSON data line mid-stream
	// Hang stops sending after HangAfter chunks (0: right after the
	// headers) and holds the connection open until the client leaves; with
	// Status, the error's headers go out and its body never does.
	Hang      bool
	HangAfter int
	// Gate, when not nil, holds the stream before its GateAfter-th chunk
	// (the first, 0, only gives the role; content follows) until it is
	// closed: a test sees what the first part of an answer did while the
	// rest is still to come.
	Gate         <-chan struct{}
	GateAfter    int
	EmptyBody    bool       // with Status: the error response has no body at all
	Usage        *llm.Usage // default: estimated from sizes
	FinishReason string     // default "tool_calls" if ToolCalls else "stop"

	// EncryptedReasoning, on the Responses API, is the encrypted_content
	// of the reasoning item sent first (its summary is Reasoning).
	EncryptedReasoning string
	// HostedSearch, on the Responses API, is the query of a web_search_call
	// item sent before the answer: the provider's own search.
	HostedSearch string

	// Deltas are explicit content pieces, one per chunk; they replace Content
	// and Chunk when set.
	Deltas []string
	// Interval paces chunks on a fixed schedule (chunk i is sent at
	// start+i*Interval), so the rate does not drift; it overrides Delay.
	Interval time.Duration
}

// Server is a fake OpenAI endpoint on 127.0.0.1.
type Server struct {
	ln   net.Listener
	srv  *http.Server
	done chan struct{}

	closeOnce sync.Once

	mu       sync.Mutex
	queue    []Reply
	script   func(Request) Reply
	requests []Request
	seq      int
	models   []Model // GET /models lists these; nil: that endpoint does not exist
	copilot  *copilotState
}

// SetModels makes GET /models list names (nil: answer 404, as many
// OpenAI-compatible servers do).
func (s *Server) SetModels(names []string) {
	models := []Model{}
	if names == nil {
		models = nil
	}
	for _, n := range names {
		models = append(models, Model{ID: n})
	}
	s.SetModelList(models)
}

// Model is one entry of GET /models.
type Model struct {
	ID string
	// ContextLength, when not 0, is sent as the entry's context_length,
	// as OpenRouter describes its models.
	ContextLength int
}

// SetModelList is SetModels with each entry's details.
func (s *Server) SetModelList(models []Model) {
	s.mu.Lock()
	s.models = append([]Model(nil), models...)
	if models != nil && s.models == nil {
		s.models = []Model{}
	}
	s.mu.Unlock()
}

// New starts a server listening on 127.0.0.1 on a free port. Like
// httptest.NewServer it panics if it cannot listen, which only happens on a
// broken machine.
func New() *Server {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(fmt.Sprintf("fakellm: listen on 127.0.0.1: %v", err))
	}
	s := &Server{ln: ln, done: make(chan struct{})}
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serveHTTP), ReadHeaderTimeout: 10 * time.Second}
	go s.srv.Serve(ln) //nolint:errcheck // Serve returns ErrServerClosed on Close.
	return s
}

// URL is the base URL ending in /v1, as provider.Options.BaseURL expects.
func (s *Server) URL() string { return "http://" + s.ln.Addr().String() + "/v1" }

// Close stops the server at once, dropping open streams.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		close(s.done)
		s.srv.Close()
	})
}

// Reset drops the replies not yet consumed.
func (s *Server) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = nil
}

// Enqueue adds replies that answer the next requests, one each, in order.
func (s *Server) Enqueue(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, replies...)
}

// SetScript sets the function that answers requests when the queue is empty.
func (s *Server) SetScript(f func(req Request) Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script = f
}

// ForgetRequests drops the recorded requests (long-running tests that
// measure memory).
func (s *Server) ForgetRequests() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = nil
}

// Requests returns every request received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// wireRequest is the subset of the request body the server reads. Messages
// are decoded leniently: content may be a string, null or an array of parts.
type wireRequest struct {
	Model         string        `json:"model"`
	Messages      []wireMessage `json:"messages"`
	Tools         []llm.Tool    `json:"tools"`
	Stream        bool          `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

type wireMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCalls  []llm.ToolCall  `json:"tool_calls"`
	ToolCallID string          `json:"tool_call_id"`
	Name       string          `json:"name"`
	Reasoning  string          `json:"reasoning"`
	ReasonCont string          `json:"reasoning_content"`
}

func (m wireMessage) message() llm.Message {
	out := llm.Message{
		Role:       m.Role,
		Content:    contentText(m.Content),
		Images:     contentImages(m.Content),
		ToolCalls:  m.ToolCalls,
		ToolCallID: m.ToolCallID,
		Name:       m.Name,
		Reasoning:  m.Reasoning,
	}
	if out.Reasoning == "" {
		out.Reasoning = m.ReasonCont
	}
	return out
}

// contentText flattens string or [{"type":"text","text":...}] content.
func contentText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) == nil {
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(p.Text)
		}
		return b.String()
	}
	return ""
}

// contentImages collects the image_url parts of array content.
func contentImages(raw json.RawMessage) []llm.Image {
	var parts []struct {
		Type     string `json:"type"`
		ImageURL struct {
			URL string `json:"url"`
		} `json:"image_url"`
	}
	if len(raw) == 0 || raw[0] != '[' || json.Unmarshal(raw, &parts) != nil {
		return nil
	}
	var out []llm.Image
	for _, p := range parts {
		if p.Type == "image_url" {
			out = append(out, llm.Image{URL: p.ImageURL.URL})
		}
	}
	return out
}

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == CopilotTokenPath {
		s.serveCopilotToken(w, r)
		return
	}
	if !s.copilotAuthorized(r) {
		writeError(w, http.StatusUnauthorized, "authentication_error", "fakellm: no valid Copilot API token", "")
		return
	}
	if r.Method == http.MethodGet && strings.HasSuffix(strings.TrimRight(r.URL.Path, "/"), "/models") {
		s.mu.Lock()
		models := s.models
		s.mu.Unlock()
		if models == nil {
			writeError(w, http.StatusNotFound, "invalid_request_error", "fakellm: no /models here", "")
			return
		}
		type model struct {
			ID            string `json:"id"`
			Object        string `json:"object"`
			ContextLength int    `json:"context_length,omitempty"`
		}
		list := struct {
			Object string  `json:"object"`
			Data   []model `json:"data"`
		}{Object: "list", Data: []model{}}
		for _, m := range models {
			list.Data = append(list.Data, model{ID: m.ID, Object: "model", ContextLength: m.ContextLength})
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(list)
		return
	}
	responses := r.Method == http.MethodPost && strings.HasSuffix(strings.TrimRight(r.URL.Path, "/"), "/responses")
	if !responses && (r.Method != http.MethodPost || !strings.HasSuffix(strings.TrimRight(r.URL.Path, "/"), "/chat/completions")) {
		writeError(w, http.StatusNotFound, "invalid_request_error", fmt.Sprintf("fakellm: unknown endpoint %s %s", r.Method, r.URL.Path), "")
		return
	}
	raw, err := readAll(r)
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "fakellm: read body: "+err.Error(), "")
		return
	}
	var req Request
	if responses {
		req, err = responsesRequest(raw)
	} else {
		req, err = chatRequest(raw)
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "fakellm: "+err.Error(), "")
		return
	}
	req.Header = r.Header.Clone()

	reply, ok, seq := s.record(req)
	if !ok {
		writeError(w, http.StatusInternalServerError, "server_error", "fakellm: no scripted reply", "")
		return
	}
	if reply.Status != 0 {
		switch {
		case reply.Hang || reply.EmptyBody:
			if reply.RetryAfter != "" {
				w.Header().Set("Retry-After", reply.RetryAfter)
			}
			w.Header().Set("Content-Type", "application/json")
			if reply.EmptyBody {
				w.Header().Set("Content-Length", "0")
			}
			w.WriteHeader(reply.Status)
			http.NewResponseController(w).Flush() //nolint:errcheck // client gone: nothing to do.
			if reply.Hang {
				s.hang(r)
			}
		default:
			writeError(w, reply.Status, errorType(reply.Status), fmt.Sprintf("fakellm: scripted HTTP %d", reply.Status), reply.RetryAfter)
		}
		return
	}
	if !req.Stream {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "fakellm: only stream=true is supported", "")
		return
	}
	if responses {
		s.streamResponses(w, r, req, reply, seq)
		return
	}
	s.stream(w, r, req, reply, seq)
}

// chatRequest decodes a chat-completions request body.
func chatRequest(raw []byte) (Request, error) {
	var wr wireRequest
	if err := json.Unmarshal(raw, &wr); err != nil {
		return Request{}, fmt.Errorf("invalid JSON body: %w", err)
	}
	req := Request{
		Model:        wr.Model,
		Tools:        wr.Tools,
		Stream:       wr.Stream,
		IncludeUsage: wr.StreamOptions != nil && wr.StreamOptions.IncludeUsage,
		Raw:          raw,
	}
	for _, m := range wr.Messages {
		req.Messages = append(req.Messages, m.message())
	}
	return req, nil
}

// hang waits until the client or the server goes away.
func (s *Server) hang(r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-s.done:
	}
}

// record stores the request and picks its reply.
func (s *Server) record(req Request) (Reply, bool, int) {
	s.mu.Lock()
	s.requests = append(s.requests, req)
	s.seq++
	seq := s.seq
	var script func(Request) Reply
	if len(s.queue) > 0 {
		reply := s.queue[0]
		s.queue = s.queue[1:]
		s.mu.Unlock()
		return reply, true, seq
	}
	script = s.script
	s.mu.Unlock()
	if script == nil {
		return Reply{}, false, seq
	}
	return script(req), true, seq
}

func readAll(r *http.Request) ([]byte, error) {
	var buf bytes.Buffer
	_, err := buf.ReadFrom(http.MaxBytesReader(nil, r.Body, 64<<20))
	return buf.Bytes(), err
}

func errorType(status int) string {
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return "authentication_error"
	case status == http.StatusTooManyRequests:
		return "rate_limit_error"
	case status >= 500:
		return "server_error"
	}
	return "invalid_request_error"
}

func writeError(w http.ResponseWriter, status int, typ, msg, retryAfter string) {
	if retryAfter != "" {
		w.Header().Set("Retry-After", retryAfter)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	body, _ := json.Marshal(map[string]any{
		"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": nil},
	})
	w.Write(body) //nolint:errcheck // client gone: nothing to do.
}
