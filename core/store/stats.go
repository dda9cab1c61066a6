package store

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// Stats are one conversation's metrics (seed 004 §9, §10), summed over its
// life: kept in its state, saved with the session, restored on resume and
// never reset. Token counts are the endpoint's usage, estimated (chars/4)
// for a call it reported none for.
type Stats struct {
	TokensIn     int `json:"tokens_in"`
	TokensOut    int `json:"tokens_out"`
	TokensCached int `json:"tokens_cached,omitempty"`
	ModelCalls   int `json:"model_calls"`
	// Cost is what the model calls cost in US dollars, as the endpoint
	// reported it or at the model's known prices (core/pricing); 0 when
	// neither knows.
	Cost float64 `json:"cost,omitempty"`
	// ToolCalls counts calls by tool name; ToolFailures those that failed,
	// were denied or aborted.
	ToolCalls    map[string]int `json:"tool_calls,omitempty"`
	ToolFailures int            `json:"tool_failures,omitempty"`
	// MCP calls and their latency (milliseconds, summed and the longest).
	MCPCalls     int   `json:"mcp_calls,omitempty"`
	MCPLatencyMS int64 `json:"mcp_latency_ms,omitempty"`
	MCPMaxMS     int64 `json:"mcp_max_ms,omitempty"`
	// Tasks that ran in the conversation; Cancelled those interrupted,
	// Failed those that ended on an error.
	Tasks     int `json:"tasks"`
	Cancelled int `json:"cancelled,omitempty"`
	Failed    int `json:"failed,omitempty"`
	// WallMS is the time its tasks ran, in milliseconds.
	WallMS int64 `json:"wall_ms"`
}

// Clone is a deep copy.
func (s Stats) Clone() Stats {
	s.ToolCalls = maps.Clone(s.ToolCalls)
	return s
}

// Sub is s minus an earlier value of the same counters: what happened in
// between. MCPMaxMS stays s's.
func (s Stats) Sub(before Stats) Stats {
	out := Stats{
		TokensIn:     s.TokensIn - before.TokensIn,
		TokensOut:    s.TokensOut - before.TokensOut,
		TokensCached: s.TokensCached - before.TokensCached,
		ModelCalls:   s.ModelCalls - before.ModelCalls,
		Cost:         s.Cost - before.Cost,
		ToolFailures: s.ToolFailures - before.ToolFailures,
		MCPCalls:     s.MCPCalls - before.MCPCalls,
		MCPLatencyMS: s.MCPLatencyMS - before.MCPLatencyMS,
		MCPMaxMS:     s.MCPMaxMS,
		Tasks:        s.Tasks - before.Tasks,
		Cancelled:    s.Cancelled - before.Cancelled,
		Failed:       s.Failed - before.Failed,
		WallMS:       s.WallMS - before.WallMS,
	}
	for name, n := range s.ToolCalls {
		if d := n - before.ToolCalls[name]; d > 0 {
			if out.ToolCalls == nil {
				out.ToolCalls = map[string]int{}
			}
			out.ToolCalls[name] = d
		}
	}
	return out
}

// Tools is the number of tool calls of every tool.
func (s Stats) Tools() int {
	n := 0
	for _, c := range s.ToolCalls {
		n += c
	}
	return n
}

// Short is a one-line summary for lists and pickers.
func (s Stats) Short() string {
	return fmt.Sprintf("%s in / %s out tokens, %d model calls, %d tool calls", Count(s.TokensIn), Count(s.TokensOut), s.ModelCalls, s.Tools())
}

// Lines describes every metric, one per line, for /status.
func (s Stats) Lines() []string {
	tokens := fmt.Sprintf("tokens: %d in, %d out", s.TokensIn, s.TokensOut)
	if s.TokensCached > 0 {
		tokens += fmt.Sprintf(" (%d of the input served from the cache)", s.TokensCached)
	}
	calls := fmt.Sprintf("model calls: %d", s.ModelCalls)
	if s.Cost > 0 {
		calls += fmt.Sprintf(", cost $%.4f", s.Cost)
	}
	out := []string{tokens, calls}
	calls = fmt.Sprintf("tool calls: %d", s.Tools())
	if len(s.ToolCalls) > 0 {
		var by []string
		for _, name := range slices.Sorted(maps.Keys(s.ToolCalls)) {
			by = append(by, fmt.Sprintf("%s %d", name, s.ToolCalls[name]))
		}
		calls += " (" + strings.Join(by, ", ") + ")"
	}
	if s.ToolFailures > 0 {
		calls += fmt.Sprintf("; %d failed or denied", s.ToolFailures)
	}
	out = append(out, calls)
	if s.MCPCalls > 0 {
		out = append(out, fmt.Sprintf("MCP calls: %d, mean latency %d ms, longest %d ms", s.MCPCalls, s.MCPLatencyMS/int64(s.MCPCalls), s.MCPMaxMS))
	}
	out = append(out, fmt.Sprintf("tasks: %d (%d cancelled, %d failed), wall time %s", s.Tasks, s.Cancelled, s.Failed, (time.Duration(s.WallMS)*time.Millisecond).Round(time.Millisecond)))
	return out
}

// Count writes a count short: 950, 12.3k, 4.5M.
func Count(n int) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 1000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}
