package agent

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/hooks"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/text"
)

// sessionHooks is the session's hook runner and what its session_start
// hooks added for the model, handed to the next user turn.
type sessionHooks struct {
	run *hooks.Runner
	// startDone closes when the session_start hooks ended; startContext
	// (their stdout) is then set. Both guarded by Session.mu; taken is set
	// once a turn took the context.
	startDone    chan struct{}
	startContext string
	taken        bool
}

// Hooks lists the configured hooks, one line each, for /status and
// :checkhealth.
func (s *Session) Hooks() []string { return s.hooks.run.Describe() }

// startHooks runs the session_start hooks in the background (source:
// startup, resume or clear): the session opens at once, and the first
// turn waits for them to add their context.
func (s *Session) startHooks(source string) {
	done := make(chan struct{})
	s.mu.Lock()
	s.hooks.startDone, s.hooks.startContext, s.hooks.taken = done, "", false
	s.mu.Unlock()
	if !s.hooks.run.Has(hooks.SessionStart, "") {
		close(done)
		return
	}
	s.bg.Add(1)
	go func() {
		defer s.bg.Done()
		defer close(done)
		out := s.runHooks(s.life, nil, hooks.SessionStart, hooks.Input{Source: source})
		s.mu.Lock()
		if s.hooks.startDone == done {
			s.hooks.startContext = out.Context
		}
		s.mu.Unlock()
	}()
}

// takeStartContext waits for the session_start hooks and returns their
// context the first time it is asked, "" after that.
func (s *Session) takeStartContext(ctx context.Context) string {
	s.mu.Lock()
	done := s.hooks.startDone
	s.mu.Unlock()
	if done == nil {
		return ""
	}
	select {
	case <-done:
	case <-ctx.Done():
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.hooks.startDone != done || s.hooks.taken {
		return ""
	}
	s.hooks.taken = true
	return s.hooks.startContext
}

// runHooks runs ev's hooks with the session's ids filled in (the root
// conversation's when t is nil) and tells the user their warnings.
func (s *Session) runHooks(ctx context.Context, t *task, ev hooks.Event, in hooks.Input) hooks.Outcome {
	s.mu.Lock()
	in.SessionID, in.PermissionMode = string(s.id), string(s.mode)
	conv := s.rootConv.ID
	s.mu.Unlock()
	in.ConversationID = string(conv)
	if t != nil {
		in.ConversationID, in.TaskID = string(t.conv.ID), string(t.id)
	}
	out := s.hooks.run.Run(ctx, ev, in)
	for _, w := range out.Warnings {
		n := event.Event{Kind: event.Notice, Text: w}
		if t != nil {
			t.emit(n)
		} else {
			n.Conversation = string(conv)
			s.emit(n)
		}
	}
	return out
}

// promptHooks runs the user_prompt_submit hooks on a user's input. It
// returns the context they add for the model (with the session_start
// hooks' on the session's first turn), or blocked with the user told why.
func (s *Session) promptHooks(ctx context.Context, t *task, input string) (added string, blocked bool) {
	start := s.takeStartContext(ctx)
	if !s.hooks.run.Has(hooks.UserPromptSubmit, "") {
		return start, false
	}
	out := s.runHooks(ctx, t, hooks.UserPromptSubmit, hooks.Input{Prompt: input})
	if out.Blocked {
		// An error, not a notice: exec exits non-zero on an input that
		// was never answered.
		t.emit(event.Event{Kind: event.Error, Text: "not sent: a user_prompt_submit hook blocked it: " + out.Reason + "\nyour input was:\n" + input})
		return "", true
	}
	return joinNonEmpty(start, out.Context), false
}

// preToolHooks runs the pre_tool_use hooks on a call; it returns why the
// call is refused, or "".
func (s *Session) preToolHooks(ctx context.Context, c *toolCall) string {
	if !s.hooks.run.Has(hooks.PreToolUse, c.name) {
		return ""
	}
	out := s.runHooks(ctx, c.t, hooks.PreToolUse, hooks.Input{ToolName: c.name, ToolUseID: c.call.ID, ToolInput: toolInput(c.call.Function.Arguments)})
	if !out.Blocked {
		return ""
	}
	return "blocked by a pre_tool_use hook: " + out.Reason
}

// postToolHooks runs the post_tool_use hooks on a call's result; it
// returns what they add to the result for the model: the stdout of those
// that exited 0, the stderr of one that exited 2.
func (s *Session) postToolHooks(ctx context.Context, c *toolCall, status, output string) string {
	if !s.hooks.run.Has(hooks.PostToolUse, c.name) {
		return ""
	}
	resp := &hooks.ToolResponse{Status: status, IsError: status != event.ToolCompleted, Output: output}
	out := s.runHooks(ctx, c.t, hooks.PostToolUse, hooks.Input{ToolName: c.name, ToolUseID: c.call.ID, ToolInput: toolInput(c.call.Function.Arguments), ToolResponse: resp})
	var b strings.Builder
	if out.Context != "" {
		b.WriteString("\n\n[post_tool_use hook]\n" + out.Context)
	}
	if out.Blocked {
		b.WriteString("\n\n[post_tool_use hook objects]\n" + out.Reason)
	}
	return b.String()
}

// stopHooks runs the stop hooks on the turn's final answer. It reports
// whether one sent the model back to work (exit 2: its stderr goes to the
// model as the user's word); max_steps bounds how often.
func (s *Session) stopHooks(ctx context.Context, t *task) (more bool) {
	if !s.hooks.run.Has(hooks.Stop, "") {
		return false
	}
	active := t.stopHookRuns > 0
	out := s.runHooks(ctx, t, hooks.Stop, hooks.Input{StopHookActive: &active, LastAssistantMessage: t.conv.lastAssistant()})
	if !out.Blocked || ctx.Err() != nil {
		return false
	}
	t.stopHookRuns++
	s.notice(t, "a stop hook sent the model back to work: "+text.FirstLine(out.Reason))
	s.appendMessage(t.conv, llm.Message{Role: llm.RoleUser, Content: "[stop hook] " + out.Reason})
	return true
}

// toolInput is a call's arguments as JSON for a hook ({} when there are
// none or they are not JSON: such a call is refused before hooks run).
func toolInput(args string) json.RawMessage {
	if args = strings.TrimSpace(args); args == "" || !json.Valid([]byte(args)) {
		return json.RawMessage("{}")
	}
	return json.RawMessage(args)
}

func joinNonEmpty(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "\n" + b
}
