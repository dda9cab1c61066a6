package agent

// An MCP server's question to the user (elicitation/create) takes the
// approval path: an ApprovalRequested carrying the Elicitation, answered
// through Session.Answer. Nobody else answers it: with no one to ask
// (exec, or no turn running) it is declined and what was asked is told.

import (
	"context"
	"fmt"

	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/mcp"
)

// Elicitation answers: accept (with Answer.Values), decline, cancel.
const (
	ElicitAccept  Decision = mcp.ElicitAccept
	ElicitDecline Decision = mcp.ElicitDecline
	ElicitCancel  Decision = mcp.ElicitCancel
)

type mcpCallKey struct{}

// withMCPCall records the MCP tool call ctx runs, so that a question its
// server asks meanwhile carries the call's id (ACP clients show it on
// the call).
func withMCPCall(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, mcpCallKey{}, id)
}

func (s *Session) elicit(ctx context.Context, server string, e *event.Elicitation) (string, map[string]any, error) {
	t := taskFrom(ctx)
	if !s.opts.Prompter || t == nil {
		why := "nobody can answer here"
		if t == nil {
			why = "no tool call of this session was running"
		}
		s.emit(event.Event{Kind: event.Notice, Conversation: string(s.RootConversation()), Text: mcp.Describe(e) + "\n(declined: " + why + ")"})
		return mcp.ElicitDecline, nil, nil
	}
	callID, _ := ctx.Value(mcpCallKey{}).(string)
	req, done := s.mcp.forms.Open(server, callID, string(KindMCP), e)
	defer done()
	ans, ok := s.ask(ctx, t, req)
	if !ok {
		return mcp.ElicitCancel, nil, nil
	}
	switch {
	case ans.Decision.acceptsForm():
		return mcp.ElicitAccept, ans.Values, nil
	case ans.Decision == ElicitCancel:
		return mcp.ElicitCancel, nil, nil
	}
	return mcp.ElicitDecline, nil, nil
}

// checkElicitAnswer converts an accepted form's values to the schema's
// types; an answer that does not fit is an error and the question stays
// open. Answers to other requests pass unchanged.
func (s *Session) checkElicitAnswer(id string, a *Answer) error {
	if s.mcp == nil {
		return nil
	}
	vals, known, err := s.mcp.forms.Check(id, a.Decision.acceptsForm(), a.Values)
	switch {
	case !known && (a.Decision == ElicitAccept || a.Decision == ElicitDecline || a.Decision == ElicitCancel):
		return fmt.Errorf("%s answers an MCP server's question, and %q is not one", a.Decision, id)
	case !known:
		return nil
	case err != nil:
		return err
	}
	a.Values = vals
	return nil
}

// acceptsForm reports whether d accepts an MCP server's question (an ACP
// client answers it as a permission: once or always).
func (d Decision) acceptsForm() bool {
	return d == ElicitAccept || d == AllowOnce || d == AllowAlways
}
