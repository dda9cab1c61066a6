package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/coder-nvim/coder-nvim/core/agent/todo"
	"github.com/coder-nvim/coder-nvim/core/complexity"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/store"
	"github.com/coder-nvim/coder-nvim/core/text"
	"github.com/coder-nvim/coder-nvim/core/tools"
)

// ownTool is a tool the session implements itself (todo list, skills).
// These touch nothing outside the session, so they skip policy and
// approval (seed 001 §5: skills load without approval).
type ownTool interface {
	tools.Tool
	own()
}

// owned marks a tool of another package as the session's own.
type owned struct{ tools.Tool }

func (owned) own() {}

// todoTool replaces the session's whole todo list.
type todoTool struct{ s *Session }

func (todoTool) own() {}

func (todoTool) Kind() tools.Kind { return tools.KindOther }

func (todoTool) Spec() llm.Tool { return todo.Spec() }

func (t todoTool) Prepare(_ context.Context, _ *tools.Workspace, raw json.RawMessage) (*tools.Invocation, error) {
	todos, err := todo.Parse(raw)
	if err != nil {
		return nil, err
	}
	title := fmt.Sprintf("todo: %d items", len(todos))
	return tools.NewInvocation("todo", tools.KindOther, title, func(ctx context.Context) tools.Result {
		t.s.setTodos(taskFrom(ctx), todos)
		list := todo.Format(todos)
		return tools.Result{Output: "Todo list updated:\n" + list, Display: list, Summary: todo.Summary(todos)}
	}), nil
}

// setTodos replaces the todo list of the task's conversation (the root's
// without a task) and reports it.
func (s *Session) setTodos(t *task, todos []store.Todo) {
	c := s.storeTodos(t, todos)
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

// storeTodos replaces the todo list of the task's conversation (the
// root's without a task), recorded, and returns the conversation.
func (s *Session) storeTodos(t *task, todos []store.Todo) *Conversation {
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
	return c
}

// startComplexTask initialises the todo list for a complex input when
// require_todo_for_complex is on and no todo is unfinished (seed 001 §2,
// §7).
func (s *Session) startComplexTask(t *task, input string) {
	if !s.opts.Config.Workflow.RequireTodoForComplex || todo.Unfinished(t.conv.todoList()) > 0 {
		return
	}
	typed := todo.TypedText(input)
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
	// Quietly: the list shows once the model writes its steps with the
	// todo tool; a list holding only the request, and a notice, made
	// every longer question look like a project (issue 39, newcomer run 6).
	s.storeTodos(t, []store.Todo{quietStart(typed)})
	t.complex = true
}

// quietStart is the one item a complex task's list starts with, unseen.
func quietStart(typed string) store.Todo {
	return store.Todo{Content: text.Truncate(text.FirstLine(strings.TrimSpace(typed)), 120), Status: todo.InProgress}
}

// ShownTodos is the root conversation's todo list as the user saw it: none
// while it is only the quiet start of a complex task (a replay must not
// show what never was).
func (s *Session) ShownTodos() []store.Todo {
	todos := s.Todos()
	if len(todos) != 1 || todos[0].Status != todo.InProgress {
		return todos
	}
	item := strings.TrimSuffix(todos[0].Content, "…")
	for _, m := range s.History("") {
		// A complex task's message carries its note for the model.
		if shown := todo.Shown(m.Content); m.Role == llm.RoleUser && shown != m.Content && strings.Contains(shown, item) {
			return nil
		}
	}
	return todos
}
