// Package mcp connects a session to Model Context Protocol servers: one pool
// per session that starts each configured server once, keeps a stable,
// conflict-free tool catalog that changes only at turn boundaries, gives
// each conversation its own view (allowlist and limits) and turns results
// into tool messages (seed 002, seed 004 §5, §7). It knows nothing of the
// agent: the agent asks for the catalog, offers it and calls through a view.
package mcp

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"
)

// ServerConfig is one entry of "mcpServers", in the shape Claude Desktop
// and Codex use: a command (stdio) or a url (streamable HTTP).
type ServerConfig struct {
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	Cwd     string            `json:"cwd,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	// Type is accepted for compatibility ("stdio", "http",
	// "streamable-http"); the transport follows from command or url.
	Type     string `json:"type,omitempty"`
	Disabled bool   `json:"disabled,omitempty"`
	// Trusted lets this server's tools annotated readOnlyHint run unasked
	// under the strict and balanced presets.
	Trusted bool `json:"trusted,omitempty"`
	// OAuth is the client the user registered for this url server
	// (auth.go); without it the client registers itself.
	OAuth *OAuthConfig `json:"oauth,omitempty"`
	// FromProject: the entry comes from the workspace's own config file,
	// which the user trusted; such a server starts in the workspace
	// without a cwd. Never read from JSON.
	FromProject bool `json:"-"`
}

// Limits bound MCP calls; zero fields take the defaults.
type Limits struct {
	// Per view (conversation).
	Concurrent     int `json:"concurrent"`
	CallsPerMinute int `json:"calls_per_minute"`
	// Session-wide hard cap over all views.
	SessionConcurrent     int `json:"session_concurrent"`
	SessionCallsPerMinute int `json:"session_calls_per_minute"`
}

// Default limits.
const (
	DefaultConcurrent            = 4
	DefaultCallsPerMinute        = 60
	DefaultSessionConcurrent     = 8
	DefaultSessionCallsPerMinute = 120
	DefaultStartTimeout          = 30 * time.Second
	DefaultCallTimeout           = 120 * time.Second
)

// WithDefaults fills zero fields.
func (l Limits) WithDefaults() Limits {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&l.Concurrent, DefaultConcurrent)
	def(&l.CallsPerMinute, DefaultCallsPerMinute)
	def(&l.SessionConcurrent, DefaultSessionConcurrent)
	def(&l.SessionCallsPerMinute, DefaultSessionCallsPerMinute)
	return l
}

var serverNameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z0-9_-]+$`) })

// ValidName reports whether name may name a server.
func ValidName(name string) bool { return serverNameRE().MatchString(name) }

// Validate checks one server entry.
func (c ServerConfig) Validate() error {
	switch {
	case c.Command == "" && c.URL == "":
		return errors.New(`needs "command" (stdio) or "url" (streamable HTTP)`)
	case c.Command != "" && c.URL != "":
		return errors.New(`has both "command" and "url"; use one`)
	case c.URL != "" && !strings.HasPrefix(c.URL, "http://") && !strings.HasPrefix(c.URL, "https://"):
		return fmt.Errorf("url %q: want http:// or https://", c.URL)
	case c.URL != "" && (len(c.Args) > 0 || len(c.Env) > 0 || c.Cwd != ""):
		return errors.New(`"args", "env" and "cwd" belong to a "command" server, not a "url" one`)
	case c.Command != "" && len(c.Headers) > 0:
		return errors.New(`"headers" belong to a "url" server, not a "command" one`)
	}
	switch c.Type {
	case "", "stdio", "http", "streamable-http", "streamableHttp":
	default:
		return fmt.Errorf("type %q: want stdio or http", c.Type)
	}
	return nil
}

// ValidateServers checks every entry; errors name the key
// (mcpServers.<name>).
func ValidateServers(servers map[string]ServerConfig) error {
	var errs []string
	for _, name := range sortedNames(servers) {
		if !ValidName(name) {
			errs = append(errs, fmt.Sprintf("key \"mcpServers.%s\": server names may use only letters, digits, _ and -", name))
			continue
		}
		if err := servers[name].Validate(); err != nil {
			errs = append(errs, fmt.Sprintf("key \"mcpServers.%s\": %v", name, err))
		}
	}
	if len(errs) > 0 {
		return errors.New(strings.Join(errs, "; "))
	}
	return nil
}

func sortedNames[V any](m map[string]V) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
