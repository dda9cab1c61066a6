package agent

// The plan hand-off of plan mode (issue 36): propose_plan puts the
// model's plan to the user as an approval request with a Plan. The user's
// answer, and only it, leaves plan mode: core switches the mode, seeds the
// todo list from the plan's numbered steps, and the model gets one tool
// message saying what the user decided, with the plan as they left it.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/coder-nvim/coder-nvim/core/agent/todo"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/policy"
	"github.com/coder-nvim/coder-nvim/core/store"
	"github.com/coder-nvim/coder-nvim/core/text"
	"github.com/coder-nvim/coder-nvim/core/tools"
	"github.com/google/uuid"
)

// The answers to a plan hand-off, besides Deny (cancel).
const (
	PlanApprove  Decision = "approve"           // carry it out in default mode: edits ask
	PlanAutoEdit Decision = "approve_auto_edit" // carry it out in auto-edit mode
	PlanRevise   Decision = "keep_planning"     // stay in plan mode; Answer.Comment says what to change
)

// planEnd is what a plan hand-off does to the rest of its step.
type planEnd int

const (
	planNone  planEnd = iota
	planGoOn          // the step's later calls do not run; the model is called again
	planFinal         // the turn ends after the call
)

// revisePrefix starts the tool message of "keep planning": the next
// proposal is shown as a revision of the one it answers.
const revisePrefix = "keep planning"

// maxPlanBytes bounds a plan: it is shown in an editor buffer and sent back.
const maxPlanBytes = 64 << 10

type planArgs struct {
	Plan    string `json:"plan"`
	Summary string `json:"summary,omitempty"`
}

// planTool is propose_plan, offered in plan mode only (policy.PlanTool).
type planTool struct{ s *Session }

func (planTool) own() {}

func (planTool) Kind() tools.Kind { return tools.KindOther }

func (planTool) Spec() llm.Tool {
	return llm.Tool{Type: "function", Function: llm.FunctionDef{
		Name: policy.PlanTool,
		Description: "Hand your finished plan to the user. Call it once you have explored enough and the plan is complete; " +
			"the user reviews and may edit it, then approves (you then carry it out, in the same turn), asks you to keep planning " +
			"with a comment, or cancels. Write the plan in Markdown with numbered steps: they become the todo list.",
		Parameters: json.RawMessage(`{"type":"object","properties":{` +
			`"plan":{"type":"string","description":"the plan, Markdown, numbered steps"},` +
			`"summary":{"type":"string","description":"one line saying what the plan does"}},` +
			`"required":["plan"],"additionalProperties":false}`),
	}}
}

func (p planTool) Prepare(_ context.Context, _ *tools.Workspace, raw json.RawMessage) (*tools.Invocation, error) {
	args, err := parsePlanArgs(raw)
	if err != nil {
		return nil, err
	}
	title := "plan"
	if args.Summary != "" {
		title += ": " + text.Truncate(text.FirstLine(args.Summary), 100)
	}
	return tools.NewInvocation(policy.PlanTool, tools.KindOther, title, func(ctx context.Context) tools.Result {
		return p.s.proposePlan(ctx, taskFrom(ctx), title, args)
	}), nil
}

func parsePlanArgs(raw json.RawMessage) (planArgs, error) {
	var a planArgs
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return a, fmt.Errorf("invalid arguments for %s: %s (want {\"plan\": \"Markdown\", \"summary\": \"one line\"})", policy.PlanTool, strings.TrimPrefix(err.Error(), "json: "))
	}
	a.Plan = strings.TrimSpace(a.Plan)
	a.Summary = strings.TrimSpace(a.Summary)
	switch {
	case a.Plan == "":
		return a, errors.New("invalid arguments for " + policy.PlanTool + ": \"plan\" is empty; write the plan first")
	case len(a.Plan) > maxPlanBytes:
		return a, fmt.Errorf("invalid arguments for %s: the plan is %d bytes, more than %d; shorten it", policy.PlanTool, len(a.Plan), maxPlanBytes)
	}
	return a, nil
}

// proposePlan puts the plan to the user and returns the one tool message
// of the call. Where nobody can answer (exec, --yes too) the plan is the
// turn's answer and plan mode stays: leaving it is the user's call.
func (s *Session) proposePlan(ctx context.Context, t *task, title string, args planArgs) tools.Result {
	if !s.opts.Prompter {
		t.planEnd = planFinal
		return tools.Result{
			Output:  "The plan was shown to the user as this turn's answer. Nobody can approve it here, so plan mode stays and nothing is carried out: end the turn now, without repeating the plan.",
			Display: args.Plan,
			Summary: "proposed; plan mode stays (approve it in an interactive session)",
		}
	}
	req := &event.Approval{
		ID:     uuid.NewString(),
		CallID: t.call.ID,
		Tool:   policy.PlanTool,
		Kind:   string(tools.KindOther),
		Title:  title,
		Reason: "the agent proposes a plan: approve it to leave plan mode and carry it out",
		Plan:   &event.Plan{Text: args.Plan, Summary: args.Summary, Previous: s.previousPlan(t.conv, t.call.ID)},
	}
	t.planEnd = planGoOn
	ans, ok := s.ask(ctx, t, req)
	if !ok {
		t.planEnd = planFinal
		return tools.Result{Output: "the plan was not answered", Summary: "aborted", IsError: true} // execute adds the interrupt
	}
	plan := strings.TrimSpace(ans.Plan)
	if plan == "" {
		plan = args.Plan
	}
	edited := plan != args.Plan
	switch ans.Decision {
	case PlanApprove, PlanAutoEdit:
		return s.approvePlan(t, ans.Decision, plan, edited)
	case PlanRevise:
		msg := revisePrefix + ": "
		if c := strings.TrimSpace(ans.Comment); c != "" {
			msg += c
		} else {
			msg += "the user wants the plan revised and said nothing more; ask what to change if it is unclear"
		}
		msg += "\nPlan mode stays: revise the plan, then call " + policy.PlanTool + " again."
		if edited {
			msg += "\n\nThe user edited your plan to:\n<plan>\n" + plan + "\n</plan>"
		}
		return tools.Result{Output: msg, Display: ans.Comment, Summary: "keep planning"}
	}
	t.planEnd = planFinal
	return tools.Result{Output: "The user cancelled the plan: do not carry it out. Plan mode stays; the turn ends here.", Summary: "cancelled by the user"}
}

// approvePlan switches the mode the user chose, seeds the todo list with
// the plan's numbered steps and tells the model to carry the plan out.
func (s *Session) approvePlan(t *task, d Decision, plan string, edited bool) tools.Result {
	mode, how := policy.ModeDefault, "file edits and commands still ask for approval"
	if d == PlanAutoEdit {
		mode, how = policy.ModeAutoEdit, "file edits in the workspace run without asking"
	}
	s.SetMode(mode) // the user's own answer: the one thing that widens
	steps := ""
	if todos := todo.FromPlan(plan); len(todos) > 0 && t.conv.Tools.Plan {
		todos[0].Status = todo.InProgress // the model starts on it now
		s.setTodos(t, todos)
		t.planTodos = todos
		steps = " Its numbered steps are now the todo list: keep it current with the todo tool as you go."
	}
	as := ""
	if edited {
		as = " (as the user edited it)"
	}
	msg := fmt.Sprintf("The user approved the plan%s and switched to %s mode: %s. Carry it out now, step by step.%s\n\n<approved_plan>\n%s\n</approved_plan>", as, mode, how, steps, plan)
	return tools.Result{Output: msg, Display: plan, Summary: fmt.Sprintf("approved; %s mode", mode)}
}

// previousPlan is the proposal the user asked to keep working on: the last
// propose_plan before call, when its answer was "keep planning".
func (s *Session) previousPlan(c *Conversation, call string) string {
	msgs := s.allMessages(c)
	prev := ""
	for i := len(msgs) - 1; i >= 0 && prev == ""; i-- {
		m := msgs[i]
		if m.Role != llm.RoleTool || m.Name != policy.PlanTool || m.ToolCallID == call {
			continue
		}
		if !strings.HasPrefix(m.Content, revisePrefix) {
			return ""
		}
		prev = m.ToolCallID
	}
	if prev == "" {
		return ""
	}
	for _, m := range msgs {
		for _, tc := range m.ToolCalls {
			if tc.ID == prev {
				a, err := parsePlanArgs(json.RawMessage(tc.Function.Arguments))
				if err == nil {
					return a.Plan
				}
			}
		}
	}
	return ""
}

// skipAfterPlan answers the calls made beside a plan hand-off: they were
// asked for before the user's answer, which may have changed the mode.
func (s *Session) skipAfterPlan(t *task, rest []llm.ToolCall) {
	for _, call := range rest {
		msg := "not run: the plan hand-off ended this step; call it again if it is still needed"
		s.appendMessage(t.conv, llm.Message{Role: llm.RoleTool, ToolCallID: call.ID, Name: call.Function.Name, Content: msg})
		t.emit(event.Event{Kind: event.ToolCallEnd, Tool: &event.Tool{CallID: call.ID, Name: call.Function.Name, Status: event.ToolAborted, Summary: "not run: plan hand-off"}})
	}
}

// finishPlanTodos marks the steps of the plan approved in this turn
// completed when the turn ends with the model's answer and the model never
// updated the list itself: its answer says the plan was carried out, and
// the list must not show the steps pending ever after (issue 48). A list
// the model kept current is left as it is.
func (s *Session) finishPlanTodos(t *task) {
	if t.planTodos == nil || !slices.Equal(t.conv.todoList(), t.planTodos) {
		return
	}
	done := make([]store.Todo, len(t.planTodos))
	for i, td := range t.planTodos {
		done[i] = store.Todo{Content: td.Content, Status: todo.Completed}
	}
	t.planTodos = nil
	s.setTodos(t, done)
}
