package agent

import (
	"context"

	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/mcp"
	"github.com/coder-nvim/coder-nvim/core/policy"
	"github.com/coder-nvim/coder-nvim/core/store"
	"github.com/coder-nvim/coder-nvim/core/tools"
)

// task is one scheduled run: a user input, a hand-over's target or a
// caller's continuation. Its fields other than conv are owned by the task
// goroutine.
type task struct {
	s      *Session
	id     TaskID
	conv   *Conversation // reassigned only by /new and /resume
	plan   *taskPlan
	cancel context.CancelFunc
	done   chan struct{}

	edited     []string           // paths written since the last auto-verify
	verifyRuns int                // auto-verify runs in this turn
	end        event.Event        // the closing event, sent by the scheduler
	changed    *event.TurnChanges // what the turn changed, set by endTurn; carried by end
	refused    bool               // the last answer was stopped by the content filter
	complex    bool               // a complex task: the model's copy of the user's message carries todo.ComplexNote
	handover   *handover          // set by an interrupting call: the task ends Replaced
	runs       ConversationID     // set by /conversation new: its first run follows, the task ends Replaced
	destroyed  bool               // its own conversation was destroyed by one of its calls
	call       llm.ToolCall       // the tool call running now
	ranDurable bool               // the last call's start was recorded durably: it may have changed something
	planEnd    planEnd            // set by a plan hand-off: the step (or turn) ends after it (plan.go)
	planTodos  []store.Todo       // the todo list an approved plan seeded in this turn (plan.go)
	usage      event.TurnUsage    // the model calls' tokens so far
	images     []llm.Image        // attached to the user message of the turn
	// stopHookRuns counts the stop hooks that sent the model back to work
	// in this turn (their stop_hook_active).
	stopHookRuns int

	snaps *turnSnaps // the turn's snapshot state, shared by its hand-over chain (turns.go)

	mcpCat    *mcp.Catalog // MCP tools of this task, fixed at its first model call
	mcpImages []llm.Image  // pictures MCP tools returned in the current step

	ep *endpoint // the endpoint the task calls, fixed at its start
}

// emit stamps the task's conversation and task ids on an event.
func (t *task) emit(ev event.Event) {
	t.s.emit(t.with(ev))
}

// with stamps the ids without sending (events kept for later).
func (t *task) with(ev event.Event) event.Event {
	ev.Conversation, ev.Task = string(t.conv.ID), string(t.id)
	ev.Trace, ev.Span = string(t.turnID()), string(t.id)
	return ev
}

// turnID is the user task whose git turn this task extends.
func (t *task) turnID() TaskID {
	if t.plan != nil {
		return TaskID(t.plan.trace())
	}
	return t.id
}

type taskKey struct{}

// withTask lets tools the session implements (todo, skill, conv_*) find
// the task they run in.
func withTask(ctx context.Context, t *task) context.Context {
	return context.WithValue(ctx, taskKey{}, t)
}

func taskFrom(ctx context.Context) *task {
	t, _ := ctx.Value(taskKey{}).(*task)
	return t
}

// turnContext is what one model call works with, built once per call and
// never changed (the mode may switch between calls).
type turnContext struct {
	t      *task
	mode   policy.Mode
	model  string
	window int // the model's context window
	system string
	tools  []tools.Tool
	specs  []llm.Tool
}

// turnContext builds the context of the task's next model call.
func (s *Session) turnContext(t *task) *turnContext {
	c := t.conv
	c.mu.Lock()
	if c.refreshMCP {
		c.refreshMCP = false
		t.mcpCat = nil // the servers' tools as they are now
	}
	c.mu.Unlock()
	if t.mcpCat == nil {
		t.mcpCat = s.mcpBoundary(t)
	}
	s.mu.Lock()
	tc := &turnContext{t: t, mode: s.mode, model: s.model, system: s.systemPromptLocked(c), tools: s.offeredToolsLocked(c)}
	if c.Model != "" {
		tc.model = c.Model
	}
	tc.window = s.windowLocked(tc.model)
	s.mu.Unlock()
	// The editor's tools, then MCP tools, come after the built-ins and
	// the conversation tools.
	tc.tools = append(tc.tools, s.editorTools()...)
	tc.tools = append(tc.tools, s.mcpTools(t, tc.mode)...)
	tc.specs = tools.Specs(tc.tools)
	return tc
}
