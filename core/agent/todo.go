package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"

	"github.com/coder-nvim/coder-nvim/core/complexity"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/store"
	"github.com/coder-nvim/coder-nvim/core/tools"
)

// Todo statuses.
const (
	TodoPending    = "pending"
	TodoInProgress = "in_progress"
	TodoCompleted  = "completed"
)

// ownTool is a tool the session implements itself (todo list, skills).
// These touch nothing outside the session, so they skip policy and
// approval (seed 001 §5: skills load without approval).
type ownTool interface {
	tools.Tool
	own()
}

// todoTool replaces the session's whole todo list.
type todoTool struct{ s *Session }

func (todoTool) own() {}

func (todoTool) Kind() tools.Kind { return tools.KindOther }

func (todoTool) Spec() llm.Tool {
	return llm.Tool{Type: "function", Function: llm.FunctionDef{
		Name:        "todo",
		Description: "Replace the task's todo list (whole list each time). Use it for multi-step work; keep one item in_progress.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"todos":{"type":"array","items":{"type":"object",` +
			`"properties":{"content":{"type":"string"},"status":{"type":"string","enum":["pending","in_progress","completed"]}},` +
			`"required":["content","status"],"additionalProperties":false}}},"required":["todos"],"additionalProperties":false}`),
	}}
}

func (t todoTool) Prepare(_ context.Context, _ *tools.Workspace, raw json.RawMessage) (*tools.Invocation, error) {
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
		case TodoPending, TodoInProgress, TodoCompleted:
		default:
			return nil, fmt.Errorf("invalid arguments for todo: todos[%d].status is %q; want pending, in_progress or completed", i, td.Status)
		}
	}
	title := fmt.Sprintf("todo: %d items", len(args.Todos))
	return tools.NewInvocation("todo", tools.KindOther, title, func(ctx context.Context) tools.Result {
		t.s.setTodos(taskFrom(ctx), args.Todos)
		text := formatTodos(args.Todos)
		return tools.Result{Output: "Todo list updated:\n" + text, Display: text, Summary: summarizeTodos(args.Todos)}
	}), nil
}

// setTodos replaces the todo list of the task's conversation (the root's
// without a task) and reports it.
func (s *Session) setTodos(t *task, todos []store.Todo) {
	s.mu.Lock()
	c := s.rootConv // read under s.mu: reset replaces it
	if t != nil {
		c = t.conv
	}
	c.mu.Lock()
	c.todos = append([]store.Todo(nil), todos...)
	c.mu.Unlock()
	err := s.recordLocked(store.Record{Kind: store.KindTodos, Conv: s.convKeyLocked(c), Todos: todos})
	s.mu.Unlock()
	s.reportSave(err)
	ev := event.Event{Kind: event.TodosUpdated, Conversation: string(c.ID)}
	for _, td := range todos {
		ev.Todos = append(ev.Todos, event.Todo{Content: td.Content, Status: td.Status})
	}
	if t != nil {
		t.emit(ev)
		return
	}
	s.emit(ev)
}

func unfinished(todos []store.Todo) int {
	n := 0
	for _, td := range todos {
		if td.Status != TodoCompleted {
			n++
		}
	}
	return n
}

func formatTodos(todos []store.Todo) string {
	if len(todos) == 0 {
		return "no todos"
	}
	var b strings.Builder
	for _, td := range todos {
		mark := "[ ]"
		switch td.Status {
		case TodoCompleted:
			mark = "[x]"
		case TodoInProgress:
			mark = "[~]"
		}
		fmt.Fprintf(&b, "%s %s\n", mark, td.Content)
	}
	return b.String()
}

func summarizeTodos(todos []store.Todo) string {
	done := len(todos) - unfinished(todos)
	return fmt.Sprintf("%d/%d completed", done, len(todos))
}

// complexNote tells the model the todo list was started for a complex task.
const complexNote = "This request is a complex, multi-step task. A todo list was started with the request as its first item: before working, replace it with the concrete steps using the todo tool, then keep it current (one item in_progress at a time) and finish with every item completed."

// startComplexTask initialises the todo list for a complex input when
// require_todo_for_complex is on and no todo is unfinished (seed 001 §2,
// §7).
func (s *Session) startComplexTask(t *task, input string) {
	if !s.opts.Config.Workflow.RequireTodoForComplex || unfinished(t.conv.todoList()) > 0 {
		return
	}
	typed := typedText(input)
	// A slash chain naming a workspace path (src/Core/Util) is no list.
	res := complexity.DetectIn(typed, func(p string) bool {
		abs, _, err := s.ws.Resolve(p)
		if err != nil {
			return false
		}
		_, err = os.Lstat(abs)
		return err == nil
	})
	if !res.Complex {
		return
	}
	s.setTodos(t, []store.Todo{{Content: truncate(firstLine(strings.TrimSpace(typed)), 120), Status: TodoInProgress}})
	t.note = complexNote
	s.notice(t, fmt.Sprintf("complex task (%s): todo list started", res.Rule))
}

// typedText is input without the context an editor attaches to it (a
// selection: a "path:3-9" line and a fenced code block): whether a task is
// complex depends on what the user typed, not on how much code came with it.
func typedText(input string) string {
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
