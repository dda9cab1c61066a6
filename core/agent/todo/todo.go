// Package todo is the todo list's tool surface (seed 001 §2, §7): the
// tool's schema, strict parsing of its arguments, the list as text, and
// what of an input decides whether a task is complex. Keeping the list
// and reporting it is the session's; this package may not import
// core/agent.
package todo

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/store"
)

// Todo statuses.
const (
	Pending    = "pending"
	InProgress = "in_progress"
	Completed  = "completed"
)

// Spec is the todo tool: it replaces the whole list.
func Spec() llm.Tool {
	return llm.Tool{Type: "function", Function: llm.FunctionDef{
		Name:        "todo",
		Description: "Replace the task's todo list (whole list each time). Use it for multi-step work; keep one item in_progress.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"todos":{"type":"array","items":{"type":"object",` +
			`"properties":{"content":{"type":"string"},"status":{"type":"string","enum":["pending","in_progress","completed"]}},` +
			`"required":["content","status"],"additionalProperties":false}}},"required":["todos"],"additionalProperties":false}`),
	}}
}

// Parse decodes the todo tool's arguments strictly, saying what is wrong
// in JSON terms.
func Parse(raw json.RawMessage) ([]store.Todo, error) {
	var args struct {
		Todos []store.Todo `json:"todos"`
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&args); err != nil {
		// Go's decoding errors name Go types; say what is wrong in JSON terms.
		why := strings.TrimPrefix(err.Error(), "json: ")
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			why = fmt.Sprintf("wrong JSON type (%s)", typeErr.Value)
			if typeErr.Field != "" {
				why = fmt.Sprintf("%q has the wrong JSON type (%s)", typeErr.Field, typeErr.Value)
			}
		}
		return nil, fmt.Errorf("invalid arguments for todo: %s (want {\"todos\": [{\"content\": \"...\", \"status\": \"pending|in_progress|completed\"}]})", why)
	}
	if args.Todos == nil {
		return nil, fmt.Errorf("invalid arguments for todo: \"todos\" is required (an empty list clears it)")
	}
	for i, td := range args.Todos {
		if strings.TrimSpace(td.Content) == "" {
			return nil, fmt.Errorf("invalid arguments for todo: todos[%d].content is empty", i)
		}
		switch td.Status {
		case Pending, InProgress, Completed:
		default:
			return nil, fmt.Errorf("invalid arguments for todo: todos[%d].status is %q; want pending, in_progress or completed", i, td.Status)
		}
	}
	return args.Todos, nil
}

// Unfinished counts the items not completed.
func Unfinished(todos []store.Todo) int {
	n := 0
	for _, td := range todos {
		if td.Status != Completed {
			n++
		}
	}
	return n
}

// Format is the list as text, one "[ ]", "[~]" or "[x]" line per item.
func Format(todos []store.Todo) string {
	if len(todos) == 0 {
		return "no todos"
	}
	var b strings.Builder
	for _, td := range todos {
		mark := "[ ]"
		switch td.Status {
		case Completed:
			mark = "[x]"
		case InProgress:
			mark = "[~]"
		}
		fmt.Fprintf(&b, "%s %s\n", mark, td.Content)
	}
	return b.String()
}

// Summary is "done/all completed".
func Summary(todos []store.Todo) string {
	done := len(todos) - Unfinished(todos)
	return fmt.Sprintf("%d/%d completed", done, len(todos))
}

// ComplexNote tells the model the todo list was started for a complex task.
const ComplexNote = "This request is a complex, multi-step task. A todo list was started with the request as its first item: before working, replace it with the concrete steps using the todo tool, then keep it current (one item in_progress at a time) and finish with every item completed."

// complexSuffix is how ComplexNote follows the user's words in the
// message the model gets.
const complexSuffix = "\n\n[note] " + ComplexNote

// WithComplexNote is the user's message as the model gets it for a
// complex task.
func WithComplexNote(content string) string { return content + complexSuffix }

// Shown is a user message as its sender wrote it, without the note a
// complex task added for the model: what a replay shows.
func Shown(content string) string { return strings.Replace(content, complexSuffix, "", 1) }

// TypedText is input without the context an editor attaches to it (a
// selection: a "path:3-9" line and a fenced code block): whether a task is
// complex depends on what the user typed, not on how much code came with it.
func TypedText(input string) string {
	lines := strings.Split(input, "\n")
	out := make([]string, 0, len(lines))
	for i := 0; i < len(lines); i++ {
		if attachedLine().MatchString(lines[i]) {
			continue // an ACP context item or attachment header
		}
		if !strings.HasPrefix(strings.TrimSpace(lines[i]), "```") {
			out = append(out, lines[i])
			continue
		}
		for i++; i < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[i]), "```"); i++ {
		}
		if n := len(out); n > 0 && selectionHeader().MatchString(out[n-1]) {
			out = out[:n-1]
		}
	}
	return strings.Join(out, "\n")
}

// attachedLine names context a client attached (rpc/acp): "Context:
// `path`", "Contents of path (as open in the editor):", "Attached path:
// binary content, not included."
var attachedLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile("^(Context: `[^`]*`|Contents of .* \\(as open in the editor\\):|Attached .*: binary content, not included\\.)$")
})

// selectionHeader is the line naming an attached selection: "src/a.go:3-9".
var selectionHeader = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\S.*:\d+-\d+$`) })
