package agent

import (
	"context"
	"errors"
	"fmt"
	"github.com/coder-nvim/coder-nvim/core/reviewnotes"
	"strings"

	"github.com/coder-nvim/coder-nvim/core/agent/command"
	"github.com/coder-nvim/coder-nvim/core/agent/compact"
	"github.com/coder-nvim/coder-nvim/core/agent/todo"
	"github.com/coder-nvim/coder-nvim/core/agent/toolcalls"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/policy"
	"github.com/coder-nvim/coder-nvim/core/sandbox"
	"github.com/coder-nvim/coder-nvim/core/shellcheck"
	"github.com/coder-nvim/coder-nvim/core/skills"
	"github.com/coder-nvim/coder-nvim/core/store"
	"github.com/coder-nvim/coder-nvim/core/tools"
	"github.com/coder-nvim/coder-nvim/core/web"
)

// errReplaced ends a task whose call handed the turn to another
// conversation (TurnAborted(Replaced)).
var errReplaced = errors.New("replaced by a hand-over")

// errDestroyed ends a task whose conversation one of its calls destroyed.
var errDestroyed = errors.New("its conversation was destroyed")

// runPlan runs a scheduled plan. It runs on the task goroutine and leaves
// the task's closing event (TaskComplete or TurnAborted) in t.end; the
// scheduler sends it.
func (s *Session) runPlan(ctx context.Context, t *task) {
	switch p := t.plan; p.kind {
	case planTarget:
		if p.fresh {
			// The first message is in its history already: shown, not
			// appended again.
			t.emit(event.Event{Kind: event.UserMessage, Text: t.conv.UserInstructions})
			s.beginTurn(ctx, t, t.conv.UserInstructions, t.conv.length())
		}
		if p.input != "" || len(p.images) > 0 {
			t.emit(event.Event{Kind: event.UserMessage, Text: p.input})
			s.appendMessage(t.conv, llm.Message{Role: llm.RoleUser, Content: p.input, Images: p.images})
		}
		s.modelLoop(ctx, t, p.input)
	case planContinue:
		s.closeCall(t, p.closure)
		s.modelLoop(ctx, t, "")
	case planExternal:
		s.runExternal(ctx, t)
	default:
		s.runTask(ctx, t, p.input)
	}
}

// runTask runs one user input to its end.
func (s *Session) runTask(ctx context.Context, t *task, input string) {
	with := t.with
	trimmed := strings.TrimSpace(input)
	// shown is what the user typed: /init's turn runs on its built-in
	// prompt.
	shown := input
	prompt, isPrompt := command.Prompt(trimmed)
	var promptErr error
	if !isPrompt && strings.HasPrefix(trimmed, "/") {
		// The user's prompt files: their text is the user's message.
		prompt, isPrompt, promptErr = s.promptFileText(ctx, t, trimmed)
	}
	switch {
	case promptErr != nil:
		s.emit(with(event.Event{Kind: event.UserMessage, Text: trimmed}))
		s.emit(with(event.Event{Kind: event.Error, Text: promptErr.Error()}))
		t.end = with(event.Event{Kind: event.TaskComplete, Reason: event.StopCommand})
		return
	case isPrompt:
		input, shown = prompt, trimmed
	case trimmed == "":
		s.emit(with(event.Event{Kind: event.Notice, Text: "empty input: nothing to do"}))
		t.end = with(event.Event{Kind: event.TaskComplete, Reason: event.StopCommand})
		return
	case strings.HasPrefix(trimmed, "/"):
		s.emit(with(event.Event{Kind: event.UserMessage, Text: trimmed}))
		out, err := command.Run(ctx, slash{s, t}, trimmed)
		if err != nil && ctx.Err() != nil {
			// Interrupted (/compact, /undo): not an error to show with
			// Go's "context canceled" in it.
			t.end = with(event.Event{Kind: event.TurnAborted, Reason: event.ReasonInterrupted})
			return
		}
		if err != nil {
			ev := event.Event{Kind: event.Error, Text: err.Error()}
			if errors.Is(err, store.ErrLocked) {
				ev.Reason = event.ReasonSessionLocked
			}
			s.emit(with(ev))
		} else if out != "" {
			s.emit(with(event.Event{Kind: event.CommandOutput, Text: out}))
			s.recordCommand(t.conv, trimmed, out)
		}
		t.end = with(event.Event{Kind: event.TaskComplete, Reason: event.StopCommand})
		if t.runs != "" && err == nil {
			// /conversation new queued the new conversation's first run:
			// the user's turn goes on there, as after a hand-over.
			t.end = with(event.Event{Kind: event.TurnAborted, Reason: event.ReasonReplaced, Text: fmt.Sprintf("handed to conversation %s", t.runs)})
		}
		return
	case strings.HasPrefix(trimmed, "!"):
		s.emit(with(event.Event{Kind: event.UserMessage, Text: trimmed}))
		s.beginTurn(ctx, t, trimmed, t.conv.length()+1)
		s.runBang(ctx, t, strings.TrimSpace(trimmed[1:]))
		s.endTurn(t)
		if ctx.Err() != nil {
			t.end = with(event.Event{Kind: event.TurnAborted, Reason: event.ReasonInterrupted})
			return
		}
		t.end = with(event.Event{Kind: event.TaskComplete, Reason: event.StopCommand})
		return
	}

	typed := shown
	if t.plan.typed != "" {
		typed = t.plan.typed // what the user wrote, before mentions were expanded
	}
	added, blocked := s.promptHooks(ctx, t, typed)
	if blocked {
		t.end = with(event.Event{Kind: event.TaskComplete, Reason: event.StopCommand})
		return
	}
	s.emit(with(event.Event{Kind: event.UserMessage, Text: shown}))
	s.startComplexTask(t, typed)
	// A per-turn note goes after the user's message, never into the system
	// message: the system message and every earlier message stay byte for
	// byte what the provider's prompt cache saw (issue 11 §4b).
	content := input
	if t.complex {
		content = todo.WithComplexNote(content)
	}
	if added != "" {
		content += "\n\n[hook context]\n" + added
	}
	if notes := s.reviewNotes.Take(); notes != "" {
		content += reviewnotes.Mark + notes
	}
	// On disk (an fsynced journal record) before the turn's first slow
	// step, the workspace snapshot: a kill at any later moment does not
	// lose what the user typed.
	s.appendMessage(t.conv, llm.Message{Role: llm.RoleUser, Content: content, Images: t.images})
	s.beginTurn(ctx, t, shown, t.conv.length()) // its message is the last
	s.modelLoop(ctx, t, input)
}

// modelLoop calls the model and runs its tools until it answers, then
// leaves the closing event in t.end.
func (s *Session) modelLoop(ctx context.Context, t *task, input string) {
	with := t.with
	maxSteps := s.opts.Config.MaxSteps
	for t.snaps.steps.Add(1) <= int64(maxSteps) {
		done, err := s.step(ctx, t)
		switch {
		case errors.Is(err, errReplaced) && ctx.Err() == nil:
			s.endTurn(t)
			t.end = with(event.Event{Kind: event.TurnAborted, Reason: event.ReasonReplaced, Text: fmt.Sprintf("handed to conversation %s", t.handover.closure.target)})
			return
		case errors.Is(err, errDestroyed):
			s.endTurn(t)
			t.end = with(event.Event{Kind: event.TurnAborted, Reason: event.ReasonInterrupted, Text: "the conversation was destroyed"})
			return
		case ctx.Err() != nil:
			s.endTurn(t)
			t.end = with(event.Event{Kind: event.TurnAborted, Reason: event.ReasonInterrupted})
			return
		case err != nil:
			s.endTurn(t)
			s.emit(with(event.Event{Kind: event.Error, Text: err.Error()}))
			t.end = with(event.Event{Kind: event.TurnAborted, Reason: event.ReasonError, Text: err.Error()})
			return
		case done && s.autoVerify(ctx, t, input):
			continue // a failed verification went back to the model
		case ctx.Err() != nil:
			s.endTurn(t)
			t.end = with(event.Event{Kind: event.TurnAborted, Reason: event.ReasonInterrupted})
			return
		case done && s.stopHooks(ctx, t):
			continue // a stop hook sent the model back to work
		case done:
			s.finishPlanTodos(t)
			s.endTurn(t)
			reason := event.StopEndTurn
			if t.refused {
				reason = event.StopRefusal
			}
			t.end = with(event.Event{Kind: event.TaskComplete, Reason: reason, Text: t.conv.lastAssistant()})
			return
		}
	}
	s.endTurn(t)
	s.emit(with(event.Event{Kind: event.Notice, Text: fmt.Sprintf("stopped after %d model calls (max_steps); send another message to continue", maxSteps)}))
	t.end = with(event.Event{Kind: event.TaskComplete, Reason: event.StopMaxSteps, Text: t.conv.lastAssistant()})
}

// step makes one model call and runs the tool calls it asks for. done
// reports that the model answered without tool calls.
func (s *Session) step(ctx context.Context, t *task) (done bool, err error) {
	with := t.with
	// Every tool result is already on disk: appendMessage journals it.
	req, err := s.compactIfNeeded(ctx, t)
	if err != nil {
		return false, err
	}
	if offersTool(req.Tools, "bash") {
		// A bash starts while the model answers: its start is most of
		// what a quick command costs. The first guess is a read-only
		// call's environment, as a turn mostly begins by looking around.
		mode := s.Mode()
		s.ws.Shells().Prestart(shellcheck.ReadOnlyEnv(), func() *sandbox.Policy { return s.confinement(s.life, mode) })
	}
	// The provider returns what it streamed with its error (see
	// Provider), so the text is not accumulated a second time here: a
	// long answer would be held twice.
	resp, err := t.provider().Stream(ctx, req, func(d llm.Delta) {
		if d.Retry != nil {
			s.emit(with(retryEvent(*d.Retry)))
		}
		if d.Reasoning != "" {
			s.emit(with(event.Event{Kind: event.AgentReasoningDelta, Text: d.Reasoning}))
		}
		if d.Content != "" {
			s.emit(with(event.Event{Kind: event.AgentMessageDelta, Text: d.Content}))
		}
		if d.ToolCall != "" {
			s.prefetchBefore(t, d.ToolCall)
		}
	})
	if err != nil {
		// Keep what the user already saw, so the history matches the
		// transcript; no tool calls survive a broken stream.
		if m := resp.Message; m.Content != "" || m.Reasoning != "" {
			s.appendMessage(t.conv, llm.Message{Role: llm.RoleAssistant, Content: m.Content + "\n[interrupted]", Reasoning: m.Reasoning})
		}
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		return false, err
	}
	s.countTokens(t, req, resp)

	msg := resp.Message
	msg.Role = llm.RoleAssistant
	t.conv.mu.Lock()
	toolcalls.UniqueIDs(t.conv.history, msg.ToolCalls)
	t.conv.mu.Unlock()
	toolcalls.SanitizeNames(msg.ToolCalls)
	for i := range msg.ToolCalls {
		msg.ToolCalls[i].Type = "function"
	}
	if len(msg.ToolCalls) == 0 {
		s.appendMessage(t.conv, msg)
		t.refused = resp.FinishReason == "content_filter"
		return true, nil
	}
	s.appendCalls(t.conv, msg)
	for i, call := range msg.ToolCalls {
		if ctx.Err() != nil {
			for _, rest := range msg.ToolCalls[i:] {
				s.appendMessage(t.conv, llm.Message{Role: llm.RoleTool, ToolCallID: rest.ID, Name: rest.Function.Name, Content: toolcalls.Aborted})
				s.emit(with(event.Event{Kind: event.ToolCallEnd, Tool: &event.Tool{CallID: rest.ID, Name: rest.Function.Name, Status: event.ToolAborted, Summary: "aborted"}}))
			}
			return false, ctx.Err()
		}
		t.call = call
		content := s.runTool(ctx, t, call)
		if t.destroyed {
			return false, errDestroyed
		}
		if ho := t.handover; ho != nil && ho.closure.callID == call.ID {
			// The interrupting call keeps its place; calls after it do
			// not run.
			target := string(ho.closure.target)
			s.appendMessage(t.conv, llm.Message{Role: llm.RoleTool, ToolCallID: call.ID, Name: call.Function.Name, Content: fmt.Sprintf(toolcalls.Pending, target)})
			for _, rest := range msg.ToolCalls[i+1:] {
				text := fmt.Sprintf(toolcalls.NotRun, target)
				s.appendMessage(t.conv, llm.Message{Role: llm.RoleTool, ToolCallID: rest.ID, Name: rest.Function.Name, Content: text})
				s.emit(with(event.Event{Kind: event.ToolCallEnd, Tool: &event.Tool{CallID: rest.ID, Name: rest.Function.Name, Status: event.ToolAborted, Summary: "not run: handed over"}}))
			}
			return false, errReplaced
		}
		result := llm.Message{Role: llm.RoleTool, ToolCallID: call.ID, Name: call.Function.Name, Content: content}
		if t.ranDurable {
			s.appendMessage(t.conv, result)
		} else {
			s.appendQuietResult(t.conv, result)
		}
		if end := t.planEnd; end != planNone {
			t.planEnd = planNone
			s.skipAfterPlan(t, msg.ToolCalls[i+1:])
			return end == planFinal, nil
		}
	}
	s.flushMCPImages(t)
	return false, nil
}

// request builds the model request: instructions, history, offered tools.
// It has no side effect; the tools are recorded once the call is made.
func (s *Session) request(tc *turnContext) llm.Request {
	c := tc.t.conv
	c.mu.Lock()
	defer c.mu.Unlock()
	// Only what is sent is copied: the summary view and the messages after
	// it, which the history bounds keep short.
	prefix, tail := c.sentLocked()
	msgs := make([]llm.Message, 0, 2+len(prefix)+len(tail))
	msgs = append(msgs, llm.Message{Role: llm.RoleSystem, Content: tc.system})
	msgs = append(msgs, agentsMessage(c)...) // fixed for the conversation: the prefix stays
	msgs = append(msgs, prefix...)
	msgs = append(msgs, tail...)
	return llm.Request{Model: tc.model, Messages: msgs, Tools: tc.specs}
}

func (s *Session) systemPromptLocked(c *Conversation) string {
	return instructions(c.Instructions, s.root, s.mode, []string{skills.Prompt(s.skills)})
}

// offeredToolsLocked is a conversation's tool view in the current mode, in
// stable order: the built-ins its preferences keep, then the conversation
// tools. s.mu is held.
func (s *Session) offeredToolsLocked(c *Conversation) []tools.Tool {
	names := make([]string, len(s.tools))
	for i, t := range s.tools {
		names[i] = t.Spec().Function.Name
	}
	offered := map[string]bool{}
	for _, n := range policy.OfferedTools(s.mode, names) {
		offered[n] = true
	}
	var out []tools.Tool
	for _, t := range s.tools {
		if _, ok := t.(skillTool); ok && len(s.skills) == 0 {
			continue // nothing to load
		}
		name := t.Spec().Function.Name
		if !offered[name] || !c.Tools.Plan && name == "todo" || !c.Tools.Patch && name == "patch" || !c.Tools.WebSearch && web.IsTool(name) {
			continue
		}
		out = append(out, t)
	}
	return out
}

func (s *Session) countTokens(t *task, req llm.Request, resp llm.Response) {
	s.mu.Lock()
	tok := &event.Tokens{Window: s.windowLocked(req.Model)}
	s.mu.Unlock()
	if u := resp.Usage; u != nil {
		reported(tok, u, s.costOf(req.Model, u))
		tok.Context = u.PromptTokens + u.CompletionTokens
	} else {
		tok.Context = compact.EstimateTokens(req.Messages) + compact.EstimateTokens([]llm.Message{resp.Message})
	}
	t.conv.countModelCall(req, resp, tok.Cost)
	t.conv.mu.Lock()
	t.conv.ctxTokens = tok.Context
	t.conv.sentTools = req.Tools
	if len(req.Messages) > 0 && req.Messages[0].Role == llm.RoleSystem {
		t.conv.sentSystem = req.Messages[0].Content
	}
	t.conv.mu.Unlock()
	addUsage(&t.usage, tok)
	turn := t.usage
	tok.Turn = &turn
	s.mu.Lock()
	s.lastTurn = &turn
	s.mu.Unlock()
	t.emit(event.Event{Kind: event.TokenCount, Tokens: tok})
}

// reported fills tok from the usage an endpoint reported and the call's
// cost (costOf).
func reported(tok *event.Tokens, u *llm.Usage, cost float64) {
	tok.Prompt, tok.Completion, tok.Total = u.PromptTokens, u.CompletionTokens, u.TotalTokens
	tok.Cached, tok.Cost = u.Cached(), cost
}

// costOf is what a call to model cost: what the endpoint reported
// (OpenRouter), else its tokens at the model's known prices
// (config.PriceOf), else 0 and only tokens are shown.
func (s *Session) costOf(model string, u *llm.Usage) float64 {
	if u == nil {
		return 0
	}
	if u.Cost > 0 {
		return u.Cost
	}
	p, _, ok := s.currentEndpoint().cfg.PriceOf(model)
	if !ok {
		return 0
	}
	return p.Cost(u.PromptTokens, u.Cached(), u.CompletionTokens)
}

// addUsage counts one model call in a turn's usage. Estimates are not
// usage: only reported tokens are summed.
func addUsage(turn *event.TurnUsage, tok *event.Tokens) {
	turn.Calls++
	turn.In += tok.Prompt
	turn.Out += tok.Completion
	turn.Cached += tok.Cached
	turn.Cost += tok.Cost
}

// offersTool reports whether specs offer the tool name.
func offersTool(specs []llm.Tool, name string) bool {
	for _, t := range specs {
		if t.Function.Name == name {
			return true
		}
	}
	return false
}
