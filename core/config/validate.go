package config

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/coder-nvim/coder-nvim/core/mcp"
	"github.com/coder-nvim/coder-nvim/core/policy"
	"github.com/coder-nvim/coder-nvim/core/store"
)

// Validate checks values that JSON types cannot.
func (c Config) Validate() error { return c.validate(false) }

// validate checks the values; providerUnset allows the empty provider that
// files may leave to Load to decide.
func (c Config) validate(providerUnset bool) error {
	var errs []string
	bad := func(key, format string, args ...any) {
		errs = append(errs, fmt.Sprintf("key %q: ", key)+fmt.Sprintf(format, args...))
	}
	switch c.Provider {
	case "":
		if !providerUnset {
			bad("provider", "must not be empty")
		}
	default:
		if _, ok := LookupPreset(c.Provider); !ok {
			bad("provider", "unknown provider %q (known: %s)", c.Provider, strings.Join(PresetNames(), ", "))
		}
	}
	c.Sandbox.validate(bad)
	c.Web.validate(bad)
	switch c.WireAPI {
	case "", WireChat, WireResponses:
	default:
		bad("wire_api", "want %q or %q, got %q", WireChat, WireResponses, c.WireAPI)
	}
	switch c.ReasoningEffort {
	case "", "minimal", "low", "medium", "high", "xhigh", "none":
	default:
		bad("reasoning_effort", "want minimal, low, medium or high, got %q", c.ReasoningEffort)
	}
	if c.Model == "" {
		bad("model", "must not be empty")
	}
	for _, model := range slices.Sorted(maps.Keys(c.Prices)) {
		if p := c.Prices[model]; model == "" || p.Input < 0 || p.CachedInput < 0 || p.Output < 0 {
			bad("prices."+model, "want a model name and prices of 0 or more (input, cached_input, output, US dollars per million tokens), got %+v", p)
		}
	}
	if c.MaxSteps < 1 {
		bad("max_steps", "must be at least 1, got %d", c.MaxSteps)
	}
	// Enumerated values are taken exactly: "auto-edit " must not pass as
	// a mode that later ranks as none of them.
	if !slices.Contains(policy.Modes, policy.Mode(c.Mode)) {
		bad("mode", "want one of %s, got %q", joinNames(policy.Modes), c.Mode)
	}
	// The preset and the rules are checked by the package that applies
	// them; its messages name the keys (permissions.preset,
	// permissions.rules[i]).
	if err := (policy.Policy{Preset: policy.Preset(c.Permissions.Preset), Rules: c.Permissions.Rules}).Validate(); err != nil {
		errs = append(errs, err.Error())
	}
	if !slices.Contains(policy.Presets, policy.Preset(c.Permissions.Preset)) {
		bad("permissions.preset", "want one of %s, got %q", joinNames(policy.Presets), c.Permissions.Preset)
	}
	switch c.Approval.Scope {
	case "session", "conversation":
	default:
		bad("approval.scope", "want session or conversation, got %q", c.Approval.Scope)
	}
	if c.Approval.TTL != "" {
		if d, err := time.ParseDuration(c.Approval.TTL); err != nil || d < 0 {
			bad("approval.ttl", "want a duration such as \"30m\", got %q", c.Approval.TTL)
		}
	}
	if d, err := time.ParseDuration(c.StreamIdleTimeout); err != nil || d <= 0 {
		bad("stream_idle_timeout", "want a positive duration such as \"120s\", got %q", c.StreamIdleTimeout)
	}
	if d, err := time.ParseDuration(c.LSP.Settle); err != nil || d < 0 {
		bad("lsp.settle", "want a duration such as \"1.5s\" (\"0\" turns the diagnostics after edits off), got %q", c.LSP.Settle)
	}
	if d, err := time.ParseDuration(c.LSP.Timeout); err != nil || d <= 0 {
		bad("lsp.timeout", "want a positive duration such as \"5s\", got %q", c.LSP.Timeout)
	}
	if c.ContextWindow < 1000 {
		bad("context_window", "must be at least 1000, got %d", c.ContextWindow)
	}
	if c.CompactThreshold < 0.1 || c.CompactThreshold > 1 {
		bad("compact_threshold", "must be between 0.1 and 1, got %v", c.CompactThreshold)
	}
	if c.Conversations.MaxInterruptChainDepth < 0 {
		bad("conversations.max_interrupt_chain_depth", "must not be negative, got %d", c.Conversations.MaxInterruptChainDepth)
	}
	if c.Conversations.CloseTimeout != "" {
		if d, err := time.ParseDuration(c.Conversations.CloseTimeout); err != nil || d <= 0 {
			bad("conversations.close_timeout", "want a positive duration such as \"10s\", got %q", c.Conversations.CloseTimeout)
		}
	}
	if c.Workflow.MaxVerifyAttempts < 0 || c.Workflow.MaxVerifyAttempts > 2 {
		bad("workflow.max_verify_attempts", "must be between 0 and 2 (it can only tighten the default), got %d", c.Workflow.MaxVerifyAttempts)
	}
	if c.Undo.KeepTurns < 1 {
		bad("undo.keep_turns", "must be at least 1, got %d", c.Undo.KeepTurns)
	}
	if c.Undo.MaxFileMB < 0 {
		bad("undo.max_file_mb", "must be 0 (no limit) or more, got %d", c.Undo.MaxFileMB)
	}
	if err := mcp.ValidateServers(c.MCPServers); err != nil {
		errs = append(errs, err.Error())
	}
	if err := c.Hooks.Validate(); err != nil {
		errs = append(errs, err.Error())
	}
	if d, err := time.ParseDuration(c.MCP.CallTimeout); err != nil || d <= 0 {
		bad("mcp.call_timeout", "want a positive duration such as \"120s\", got %q", c.MCP.CallTimeout)
	}
	if d, err := time.ParseDuration(c.MCP.IdleTimeout); err != nil || d < 0 {
		bad("mcp.idle_timeout", "want a duration such as \"10m\" (\"0\": never), got %q", c.MCP.IdleTimeout)
	}
	if c.MCP.ToolBudgetTokens < 0 {
		bad("mcp.tool_budget_tokens", "want a number of tokens (0: every schema, always), got %d", c.MCP.ToolBudgetTokens)
	}
	if d, err := time.ParseDuration(c.MCP.StartTimeout); err != nil || d <= 0 {
		bad("mcp.start_timeout", "want a positive duration such as \"30s\", got %q", c.MCP.StartTimeout)
	}
	if d, err := time.ParseDuration(c.MCP.FirstTurnWait); err != nil || d < 0 {
		bad("mcp.first_turn_wait", "want a duration such as \"2s\", got %q", c.MCP.FirstTurnWait)
	}
	for _, l := range []struct {
		key string
		v   int
	}{{"mcp.concurrent", c.MCP.Concurrent}, {"mcp.calls_per_minute", c.MCP.CallsPerMinute},
		{"mcp.session_concurrent", c.MCP.SessionConcurrent}, {"mcp.session_calls_per_minute", c.MCP.SessionCallsPerMinute}} {
		if l.v < 0 {
			bad(l.key, "must be 0 (the default) or more, got %d", l.v)
		}
	}
	if c.History.MaxItems < 0 || c.History.MaxItems > 0 && c.History.MaxItems < 8 {
		bad("history.max_items", "must be 0 (no bound) or at least 8, got %d", c.History.MaxItems)
	}
	if c.History.MaxTokens < 0 {
		bad("history.max_tokens", "must be 0 (compact_threshold of context_window) or more, got %d", c.History.MaxTokens)
	}
	if _, err := store.ParsePolicy(c.Storage.Policy); err != nil || c.Storage.Policy == "" {
		bad("storage.policy", "want full, headers_only, none or ttl, got %q", c.Storage.Policy)
	}
	if d, err := time.ParseDuration(c.Storage.TTL); err != nil || d <= 0 {
		bad("storage.ttl", "want a positive duration such as \"72h\", got %q", c.Storage.TTL)
	}
	c.validateAgentsMD(bad)
	c.validateTasks(bad)
	if len(errs) > 0 {
		return errors.New(strings.Join(errs, "; "))
	}
	return nil
}

// joinNames lists enumerated values for an error message.
func joinNames[T ~string](names []T) string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = string(n)
	}
	return strings.Join(out, ", ")
}
