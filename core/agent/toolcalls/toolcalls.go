// Package toolcalls keeps a conversation's message list valid for the next
// model request: every tool call has a unique id and exactly one result,
// and the fixed result texts the engine writes for calls that did not run.
// It knows messages (core/llm) only; it may not import core/agent or any
// other engine package.
package toolcalls

import (
	"regexp"
	"strings"
	"sync"

	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/google/uuid"
)

// The tool results the engine writes itself.
const (
	// Aborted is the result of a call that never ran because the turn
	// stopped: every call needs exactly one result or the next request is
	// invalid.
	Aborted = "aborted: the turn was interrupted before this tool call ran"
	// Unknown answers, on resume, a tool call that had started when the
	// host died: it may have done all, some or none of its work.
	Unknown = "outcome unknown: the host stopped while this ran; check before running it again"
	// NotRun answers the calls after an interrupting one in the same
	// assistant message (a format with the target conversation's id):
	// every call keeps exactly one tool message (seed 003).
	NotRun = "not run: the turn was handed to conversation %s; call again if still needed"
	// Pending holds an interrupting call's place (a format with the target
	// conversation's id) until its continuation writes the result under
	// the same call id.
	Pending = PendingPrefix + "%s; the result is written here when it answers"
	// PendingPrefix starts Pending; InterruptedHandOver replaces it in a
	// history loaded after the process ended during the hand-over.
	PendingPrefix       = "pending: handed to conversation "
	InterruptedHandOver = "interrupted: the conversation did not answer (the session ended during the hand-over); call again if still needed"
)

// Failed recognises, in a saved history, the tool results the engine
// writes for calls that did not succeed (front ends replaying a session
// show them as failed).
func Failed(content string) bool {
	for _, p := range []string{"error:", "denied", "aborted", "not run:", "not applied:", "interrupted", "outcome unknown:", `{"error":`} {
		if strings.HasPrefix(content, p) {
			return true
		}
	}
	return false
}

// Repair makes a saved history valid for the next request. A
// session killed mid-turn (kill -9) is saved with tool calls whose results
// were never written, and an edited or older file may hold calls without
// ids, duplicate ids or stray tool messages; any of these makes real
// providers reject the request. Every assistant tool call ends up with a
// unique id and exactly one tool message right after its assistant
// message (when it had none: "outcome unknown" if it is in started, the
// calls that had begun running, else "aborted"); tool messages answering
// no call are dropped.
func Repair(msgs []llm.Message, started map[string]bool) []llm.Message {
	out := make([]llm.Message, 0, len(msgs))
	used := map[string]bool{}
	for i := 0; i < len(msgs); {
		m := msgs[i]
		i++
		if m.Role == llm.RoleTool {
			continue // answers no call of the message before it
		}
		if m.Role != llm.RoleAssistant || len(m.ToolCalls) == 0 {
			out = append(out, m)
			continue
		}
		var results []llm.Message
		for ; i < len(msgs) && msgs[i].Role == llm.RoleTool; i++ {
			results = append(results, msgs[i])
		}
		taken := make([]bool, len(results))
		calls := append([]llm.ToolCall(nil), m.ToolCalls...)
		var answers []llm.Message
		for j, c := range calls {
			res := llm.Message{Role: llm.RoleTool, Name: c.Function.Name, Content: Aborted}
			if c.ID != "" && started[c.ID] {
				res.Content = Unknown
			}
			if c.ID != "" {
				for k, r := range results {
					if !taken[k] && r.ToolCallID == c.ID {
						taken[k], res = true, r
						break
					}
				}
			}
			if strings.HasPrefix(res.Content, PendingPrefix) {
				// Saved mid-hand-over: nothing will answer it now.
				res.Content = InterruptedHandOver
			}
			if c.ID == "" || used[c.ID] {
				calls[j].ID = NewID()
			}
			used[calls[j].ID] = true
			res.ToolCallID, res.Name = calls[j].ID, c.Function.Name
			answers = append(answers, res)
		}
		m.ToolCalls = calls
		out = append(out, m)
		out = append(out, answers...)
	}
	return out
}

// UniqueIDs gives every call of a new assistant message an id that no
// call in the conversation has used yet. Servers may send no ids (the
// provider then numbers them from call_0 in every response) or repeat one;
// results are matched by id, so duplicates make the next request invalid.
func UniqueIDs(history []llm.Message, calls []llm.ToolCall) {
	used := map[string]bool{}
	for _, m := range history {
		for _, c := range m.ToolCalls {
			used[c.ID] = true
		}
	}
	for i := range calls {
		if calls[i].ID == "" || used[calls[i].ID] {
			calls[i].ID = NewID()
		}
		used[calls[i].ID] = true
	}
}

// NewID returns a fresh tool call id in OpenAI's style.
func NewID() string {
	return "call_" + strings.ReplaceAll(uuid.NewString(), "-", "")[:24]
}

// toolNameChars matches what OpenAI accepts in a function name.
var toolNameChars = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`) })

// ValidName reports whether OpenAI accepts name as a function name.
func ValidName(name string) bool { return toolNameChars().MatchString(name) }

// SanitizeNames rewrites function names a provider would reject in the
// history (empty, dots, spaces, too long), so one bad call from the model
// cannot make every later request invalid. Such calls are unknown tools
// anyway and get an error result.
func SanitizeNames(calls []llm.ToolCall) {
	for i := range calls {
		name := calls[i].Function.Name
		if ValidName(name) {
			continue
		}
		clean := strings.Map(func(r rune) rune {
			if r < 0x80 && (r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
				return r
			}
			return '_'
		}, name)
		if len(clean) > 64 {
			clean = clean[:64]
		}
		if clean == "" {
			clean = "invalid_tool_name"
		}
		calls[i].Function.Name = clean
	}
}
