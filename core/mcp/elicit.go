package mcp

// Elicitation (elicitation/create): a server asks the user a question
// while one of its tools runs. The pool turns the request into an
// event.Elicitation, hands it to Options.Elicit with the context of the
// call it belongs to (which carries the asking task) and sends back what
// the user chose. The SDK checks the schema is flat and the accepted
// content against it; CheckElicitValues converts and checks the form's
// answers first, so a bad value is told to the user, not the server.

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/mail"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/coder-nvim/coder-nvim/core/event"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Elicitation actions, as the protocol names them.
const (
	ElicitAccept  = "accept"
	ElicitDecline = "decline"
	ElicitCancel  = "cancel"
)

// ElicitFunc puts a server's question to the user. ctx is the context of
// the tool call running on that server when it asked (the pool's own when
// none is); it returns the action and, for accept, the checked values.
type ElicitFunc func(ctx context.Context, server string, e *event.Elicitation) (action string, values map[string]any, err error)

// callTimer is a call's mcp.call_timeout that stops while the user is
// asked: the time they take is not the server's.
type callTimer struct {
	mu     sync.Mutex
	t      *time.Timer
	left   time.Duration
	since  time.Time
	paused int
}

// withCallTimer is context.WithTimeout with a timer that can pause.
func withCallTimer(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc, *callTimer) {
	ctx, cancel := context.WithCancel(ctx)
	ct := &callTimer{left: d, since: time.Now()}
	ct.t = time.AfterFunc(d, cancel)
	return ctx, func() { ct.t.Stop(); cancel() }, ct
}

// pause stops the timer until the returned resume.
func (ct *callTimer) pause() (resume func()) {
	ct.mu.Lock()
	defer ct.mu.Unlock()
	if ct.paused == 0 && ct.t.Stop() {
		ct.left -= time.Since(ct.since)
	}
	ct.paused++
	return func() {
		ct.mu.Lock()
		defer ct.mu.Unlock()
		if ct.paused--; ct.paused == 0 {
			ct.since = time.Now()
			ct.t.Reset(max(ct.left, 0))
		}
	}
}

// calls are the tool calls in flight per server, newest last: a
// server's question belongs to the call it answers.
type calls struct {
	mu  sync.Mutex
	seq int
	by  map[string]map[int]trackedCall
}

type trackedCall struct {
	ctx   context.Context
	timer *callTimer
}

// track records a call on server until the returned func is called.
func (c *calls) track(server string, ctx context.Context, timer *callTimer) func() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.by == nil {
		c.by = map[string]map[int]trackedCall{}
	}
	if c.by[server] == nil {
		c.by[server] = map[int]trackedCall{}
	}
	c.seq++
	id := c.seq
	c.by[server][id] = trackedCall{ctx, timer}
	return func() {
		c.mu.Lock()
		delete(c.by[server], id)
		c.mu.Unlock()
	}
}

// latest is the newest call in flight on server (ctx nil when none).
func (c *calls) latest(server string) trackedCall {
	c.mu.Lock()
	defer c.mu.Unlock()
	best := -1
	var tc trackedCall
	for id, cx := range c.by[server] {
		if id > best {
			best, tc = id, cx
		}
	}
	return tc
}

// elicitHandler is the SDK's ElicitationHandler for srv.
func (p *Pool) elicitHandler(srv *server) func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
	return func(reqCtx context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		e, err := ParseElicitation(srv.name, req.Params)
		if err != nil {
			p.logf("mcp %s: elicitation refused: %v", srv.name, err)
			return &sdk.ElicitResult{Action: ElicitDecline}, nil
		}
		call := p.calls.latest(srv.name)
		base := call.ctx
		if base == nil {
			base = p.ctx
		} else {
			defer call.timer.pause()()
		}
		// The server may give up on its question: the user's float goes
		// with it.
		ctx, cancel := context.WithCancel(base)
		defer cancel()
		stop := context.AfterFunc(reqCtx, cancel)
		defer stop()
		action, values, err := p.opts.Elicit(ctx, srv.name, e)
		if err != nil {
			return nil, err
		}
		res := &sdk.ElicitResult{Action: action}
		if action == ElicitAccept && e.Mode == event.ElicitForm {
			if values == nil {
				values = map[string]any{}
			}
			res.Content = values
		}
		return res, nil
	}
}

// elicitCapabilities are what the client says it supports when it has
// someone to ask.
func elicitCapabilities() *sdk.ElicitationCapabilities {
	return &sdk.ElicitationCapabilities{Form: &sdk.FormElicitationCapabilities{}, URL: &sdk.URLElicitationCapabilities{}}
}

// elicitSchema is the flat object schema a form request carries.
type elicitSchema struct {
	Properties map[string]struct {
		Type        string   `json:"type"`
		Title       string   `json:"title"`
		Description string   `json:"description"`
		Enum        []any    `json:"enum"`
		EnumNames   []string `json:"enumNames"`
		OneOf       []struct {
			Const any    `json:"const"`
			Title string `json:"title"`
		} `json:"oneOf"`
		Default   any      `json:"default"`
		Format    string   `json:"format"`
		MinLength *int     `json:"minLength"`
		MaxLength *int     `json:"maxLength"`
		Minimum   *float64 `json:"minimum"`
		Maximum   *float64 `json:"maximum"`
	} `json:"properties"`
	Required []string `json:"required"`
}

// ParseElicitation turns a request into its event form; fields follow
// the schema's property names in order.
func ParseElicitation(server string, p *sdk.ElicitParams) (*event.Elicitation, error) {
	if p == nil {
		return nil, fmt.Errorf("no parameters")
	}
	e := &event.Elicitation{Server: server, Message: p.Message, Mode: p.Mode}
	if e.Mode == "" {
		e.Mode = event.ElicitForm
	}
	switch e.Mode {
	case event.ElicitURL:
		u, err := url.Parse(p.URL)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return nil, fmt.Errorf("url %q: want an http(s) address", p.URL)
		}
		e.URL = p.URL
		return e, nil
	case event.ElicitForm:
	default:
		return nil, fmt.Errorf("mode %q: want form or url", p.Mode)
	}
	raw, err := json.Marshal(p.RequestedSchema)
	if err != nil {
		return nil, fmt.Errorf("requested schema: %w", err)
	}
	var s elicitSchema
	if p.RequestedSchema != nil {
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("requested schema: %w", err)
		}
	}
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		prop := s.Properties[n]
		f := event.ElicitField{Name: n, Title: prop.Title, Description: prop.Description, Type: prop.Type, Format: prop.Format,
			MinLength: prop.MinLength, MaxLength: prop.MaxLength, Minimum: prop.Minimum, Maximum: prop.Maximum}
		for _, r := range s.Required {
			f.Required = f.Required || r == n
		}
		for _, v := range prop.Enum {
			f.Enum = append(f.Enum, fmt.Sprint(v))
		}
		if len(prop.EnumNames) == len(prop.Enum) {
			f.EnumNames = prop.EnumNames
		}
		for _, o := range prop.OneOf {
			f.Enum = append(f.Enum, fmt.Sprint(o.Const))
			f.EnumNames = append(f.EnumNames, o.Title)
		}
		if prop.Default != nil {
			f.Default = fmt.Sprint(prop.Default)
		}
		switch f.Type {
		case "string", "number", "integer", "boolean":
		default:
			return nil, fmt.Errorf("property %q: type %q is not a form field (want string, number, integer or boolean)", n, f.Type)
		}
		e.Fields = append(e.Fields, f)
	}
	return e, nil
}

// CheckElicitValues checks the user's answers to a form and converts
// them to the schema's types: a front end may send every value as text.
// An empty optional field is left out. The error names each bad field.
func CheckElicitValues(e *event.Elicitation, in map[string]any) (map[string]any, error) {
	out := map[string]any{}
	var bad []string
	for _, f := range e.Fields {
		v, ok := in[f.Name]
		if s, isStr := v.(string); ok && isStr && s == "" && f.Type != "string" {
			ok = false
		}
		if !ok || v == nil {
			if f.Required {
				bad = append(bad, fieldName(f)+": required")
			}
			continue
		}
		val, err := checkField(f, v)
		if err != nil {
			bad = append(bad, fieldName(f)+": "+err.Error())
			continue
		}
		out[f.Name] = val
	}
	for name := range in {
		if !hasField(e, name) {
			bad = append(bad, name+": not a field of this form")
		}
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		return nil, fmt.Errorf("the answer does not fit the form: %s", strings.Join(bad, "; "))
	}
	return out, nil
}

func fieldName(f event.ElicitField) string {
	if f.Title != "" {
		return f.Title
	}
	return f.Name
}

func hasField(e *event.Elicitation, name string) bool {
	for _, f := range e.Fields {
		if f.Name == name {
			return true
		}
	}
	return false
}

func checkField(f event.ElicitField, v any) (any, error) {
	switch f.Type {
	case "boolean":
		switch b := v.(type) {
		case bool:
			return b, nil
		case string:
			if p, err := strconv.ParseBool(strings.TrimSpace(b)); err == nil {
				return p, nil
			}
		}
		return nil, fmt.Errorf("want true or false")
	case "number", "integer":
		n, err := toNumber(v)
		if err != nil {
			return nil, err
		}
		if f.Minimum != nil && n < *f.Minimum {
			return nil, fmt.Errorf("at least %v", *f.Minimum)
		}
		if f.Maximum != nil && n > *f.Maximum {
			return nil, fmt.Errorf("at most %v", *f.Maximum)
		}
		if f.Type == "integer" {
			if n != math.Trunc(n) || math.Abs(n) > 1<<53 {
				return nil, fmt.Errorf("want a whole number")
			}
			return int64(n), nil
		}
		return n, nil
	}
	s, ok := v.(string)
	if !ok {
		return nil, fmt.Errorf("want text")
	}
	if len(f.Enum) > 0 {
		for _, o := range f.Enum {
			if o == s {
				return s, nil
			}
		}
		return nil, fmt.Errorf("want one of %s", strings.Join(f.Enum, ", "))
	}
	n := len([]rune(s))
	if f.MinLength != nil && n < *f.MinLength {
		return nil, fmt.Errorf("at least %d characters", *f.MinLength)
	}
	if f.MaxLength != nil && n > *f.MaxLength {
		return nil, fmt.Errorf("at most %d characters", *f.MaxLength)
	}
	return s, checkFormat(f.Format, s)
}

func toNumber(v any) (float64, error) {
	switch n := v.(type) {
	case float64:
		return n, nil
	case int64:
		return float64(n), nil
	case int:
		return float64(n), nil
	case uint64:
		return float64(n), nil
	case string:
		if p, err := strconv.ParseFloat(strings.TrimSpace(n), 64); err == nil && !math.IsInf(p, 0) && !math.IsNaN(p) {
			return p, nil
		}
	}
	return 0, fmt.Errorf("want a number")
}

func checkFormat(format, s string) error {
	switch format {
	case "email":
		if a, err := mail.ParseAddress(s); err != nil || a.Address != s {
			return fmt.Errorf("want an e-mail address")
		}
	case "uri":
		if u, err := url.Parse(s); err != nil || u.Scheme == "" {
			return fmt.Errorf("want an address with a scheme (https://…)")
		}
	case "date":
		if _, err := time.Parse(time.DateOnly, s); err != nil {
			return fmt.Errorf("want a date (YYYY-MM-DD)")
		}
	case "date-time":
		if _, err := time.Parse(time.RFC3339, s); err != nil {
			return fmt.Errorf("want a date and time (RFC 3339)")
		}
	}
	return nil
}

// Describe is the request in a few lines, for a front end that cannot
// ask (exec prints it when it declines).
func Describe(e *event.Elicitation) string {
	var b strings.Builder
	fmt.Fprintf(&b, "MCP server %s asked: %s", e.Server, e.Message)
	if e.Mode == event.ElicitURL {
		fmt.Fprintf(&b, "\n  open: %s", e.URL)
	}
	for _, f := range e.Fields {
		kind := f.Type
		if len(f.Enum) > 0 {
			kind = "one of " + strings.Join(f.Enum, ", ")
		}
		req := ""
		if f.Required {
			req = ", required"
		}
		fmt.Fprintf(&b, "\n  %s (%s%s)", fieldName(f), kind, req)
		if f.Description != "" {
			b.WriteString(": " + f.Description)
		}
	}
	return b.String()
}
