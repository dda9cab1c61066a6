package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"
)

// Error is what Stream returns for provider failures. Message is meant for
// the user and says what to check.
type Error struct {
	StatusCode int    // HTTP status, 0 for connection and stream failures
	Message    string // readable message, starting with "provider: "
	Retryable  bool   // the failure may go away on retry
	Attempts   int    // requests made before giving up
	Err        error  // underlying error

	retryAfter    time.Duration
	hasRetryAfter bool
	idle          bool // cut by the stream idle timeout: retried once at most
}

func (e *Error) Error() string {
	if e.Attempts > 1 {
		return fmt.Sprintf("%s (gave up after %d attempts)", e.Message, e.Attempts)
	}
	return e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// requestError turns a failed request (no stream yet) into an *Error.
func (p *OpenAI) requestError(err error, info *responseInfo) error {
	status, header := info.get()
	var apiErr *openai.APIError
	var reqErr *openai.RequestError
	var serverMsg string
	switch {
	case errors.As(err, &apiErr):
		status = apiErr.HTTPStatusCode
		serverMsg = apiErr.Message
	case errors.As(err, &reqErr):
		status = reqErr.HTTPStatusCode
		serverMsg = bodyMessage(reqErr.Body)
	}
	if status == 0 {
		var ue *url.Error
		if errors.As(err, &ue) {
			return &Error{Message: fmt.Sprintf("provider: cannot reach %s: %v", p.baseURL, ue.Err), Retryable: true, Err: err}
		}
		// go-openai refused the request before sending it.
		return &Error{Message: "provider: invalid request: " + err.Error(), Err: err}
	}
	e := p.statusError(status, serverMsg)
	e.Err = err
	if v := header.Get("Retry-After"); v != "" {
		e.retryAfter, e.hasRetryAfter = parseRetryAfter(v, time.Now())
	}
	return e
}

// statusError builds the readable error for an HTTP failure status.
func (p *OpenAI) statusError(status int, serverMsg string) *Error {
	e := &Error{StatusCode: status}
	var what, hint string
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		what, hint = "authentication failed", p.authHint()
	case status == http.StatusNotFound:
		what, hint = "not found", "check the model name and the base URL (OPENAI_BASE_URL or provider.base_url; it usually ends in /v1)"
	case status == http.StatusTooManyRequests:
		what, hint = "rate limited", "wait a moment or check your plan's quota"
		e.Retryable = true
	case status >= 500:
		what = "server error"
		e.Retryable = true
	default:
		what = "request rejected"
	}
	msg := fmt.Sprintf("provider: %s (HTTP %d)", what, status)
	if serverMsg != "" {
		msg += ": " + serverMsg
	}
	if hint != "" {
		if serverMsg != "" {
			msg += ";"
		} else {
			msg += ":"
		}
		msg += " " + hint
	}
	e.Message = msg
	return e
}

// authHint says what to check after a 401 or 403: the provider and the
// variable the key was read from, never the key.
func (p *OpenAI) authHint() string {
	name := p.opts.Provider
	switch {
	case name == "" && p.opts.KeyEnv == "":
		return "check OPENAI_API_KEY or provider.api_key_env"
	case p.opts.AuthHint != "":
		return p.opts.AuthHint
	case p.opts.KeyEnv == "" && p.opts.APIKey == "":
		return fmt.Sprintf("%s at %s rejected the request without an API key; set api_key_env to the variable holding one", name, p.baseURL)
	case p.opts.KeyEnv == "":
		return fmt.Sprintf("check the API key of %s", name)
	case p.opts.APIKey == "":
		return fmt.Sprintf("%s needs an API key: %s is not set (or set api_key_env)", name, p.opts.KeyEnv)
	}
	return fmt.Sprintf("%s rejected the key read from %s; check it (or api_key_env)", name, p.opts.KeyEnv)
}

// bodyMessage extracts a message from a non-standard error body: JSON with
// "error" as a string, "message" or "detail", or else short plain text.
func bodyMessage(body []byte) string {
	var m struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  string          `json:"detail"`
	}
	if json.Unmarshal(body, &m) == nil {
		var s string
		if json.Unmarshal(m.Error, &s) == nil && s != "" {
			return s
		}
		var inner struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(m.Error, &inner) == nil && inner.Message != "" {
			return inner.Message
		}
		if m.Message != "" {
			return m.Message
		}
		if m.Detail != "" {
			return m.Detail
		}
	}
	text := strings.Join(strings.Fields(string(body)), " ")
	const limit = 200
	if len(text) > limit {
		cut := limit
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		text = text[:cut] + "…"
	}
	return text
}

// parseRetryAfter reads a Retry-After value: delay seconds or an HTTP date.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if secs < 0 || secs != secs { // negative or NaN
			return 0, false
		}
		if secs > float64(24*time.Hour/time.Second) {
			return 24 * time.Hour, true
		}
		return time.Duration(secs * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// backoff is the wait before retry number attempt (1 for the first retry):
// Retry-After when the server sent one, else base doubled per retry; both
// capped at maxWait.
func backoff(attempt int, base, maxWait, retryAfter time.Duration, hasRetryAfter bool) time.Duration {
	if hasRetryAfter {
		return min(retryAfter, maxWait)
	}
	d := base
	for i := 1; i < attempt && d < maxWait; i++ {
		d *= 2
	}
	return min(d, maxWait)
}

// responseInfo receives the status and headers of one attempt's response.
type responseInfo struct {
	watch *idleWatch // set before the request; nil: no idle timeout

	mu     sync.Mutex
	status int
	header http.Header
}

func (r *responseInfo) get() (int, http.Header) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.status, r.header
}

type captureKey struct{}

func withCapture(ctx context.Context, info *responseInfo) context.Context {
	return context.WithValue(ctx, captureKey{}, info)
}

// captureTransport records the response status and headers into the
// responseInfo carried by the request context.
type captureTransport struct {
	base http.RoundTripper
}

func (t *captureTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if info, ok := req.Context().Value(captureKey{}).(*responseInfo); ok && resp != nil {
		info.mu.Lock()
		info.status = resp.StatusCode
		info.header = resp.Header.Clone()
		info.mu.Unlock()
		if info.watch != nil {
			info.watch.stop() // the headers are in; body reads re-arm it
			resp.Body = &watchedBody{ReadCloser: resp.Body, w: info.watch}
		}
	}
	return resp, err
}
