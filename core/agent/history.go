package agent

import (
	"regexp"
	"strings"
	"sync"

	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/google/uuid"
)

// pendingPrefix starts pendingResult; interruptedHandOver replaces it in a
// history loaded after the process ended during the hand-over.
const (
	pendingPrefix       = "pending: handed to conversation "
	interruptedHandOver = "interrupted: the conversation did not answer (the session ended during the hand-over); call again if still needed"
)

// repairHistory makes a saved history valid for the next request. A
// session killed mid-turn (kill -9) is saved with tool calls whose results
// were never written, and an edited or older file may hold calls without
// ids, duplicate ids or stray tool messages; any of these makes real
// providers reject the request. Every assistant tool call ends up with a
// unique id and exactly one tool message right after its assistant
// message (when it had none: "outcome unknown" if it is in started, the
// calls that had begun running, else "aborted"); tool messages answering
// no call are dropped.
func repairHistory(msgs []llm.Message, started map[string]bool) []llm.Message {
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
			res := llm.Message{Role: llm.RoleTool, Name: c.Function.Name, Content: abortedResult}
			if c.ID != "" && started[c.ID] {
				res.Content = unknownResult
			}
			if c.ID != "" {
				for k, r := range results {
					if !taken[k] && r.ToolCallID == c.ID {
						taken[k], res = true, r
						break
					}
				}
			}
			if strings.HasPrefix(res.Content, pendingPrefix) {
				// Saved mid-hand-over: nothing will answer it now.
				res.Content = interruptedHandOver
			}
			if c.ID == "" || used[c.ID] {
				calls[j].ID = newCallID()
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

// uniqueCallIDs gives every call of a new assistant message an id that no
// call in the conversation has used yet. Servers may send no ids (the
// provider then numbers them from call_0 in every response) or repeat one;
// results are matched by id, so duplicates make the next request invalid.
func uniqueCallIDs(history []llm.Message, calls []llm.ToolCall) {
	used := map[string]bool{}
	for _, m := range history {
		for _, c := range m.ToolCalls {
			used[c.ID] = true
		}
	}
	for i := range calls {
		if calls[i].ID == "" || used[calls[i].ID] {
			calls[i].ID = newCallID()
		}
		used[calls[i].ID] = true
	}
}

// newCallID returns a fresh tool call id in OpenAI's style.
func newCallID() string {
	return "call_" + strings.ReplaceAll(uuid.NewString(), "-", "")[:24]
}

// toolNameChars matches what OpenAI accepts in a function name.
var toolNameChars = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`) })

// sanitizeToolNames rewrites function names a provider would reject in the
// history (empty, dots, spaces, too long), so one bad call from the model
// cannot make every later request invalid. Such calls are unknown tools
// anyway and get an error result.
func sanitizeToolNames(calls []llm.ToolCall) {
	for i := range calls {
		name := calls[i].Function.Name
		if toolNameChars().MatchString(name) {
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
