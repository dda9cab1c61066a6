package acp

// An MCP server's question (elicitation) to an ACP client: ACP has only
// permission requests, so a form that is a single choice (one boolean or
// one enum field) becomes one, its options the choice's values, and a
// URL one offers to go on once the user has opened it. Any other form is
// declined, and the client is told what was asked and why.

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/coder-nvim/coder-nvim/core/agent"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/mcp"
)

// elicitChoice is one option of a single-choice question: its value.
// The first option's id is allow_once and the decline's reject_once, the
// ids every client knows; a client that answers an option it does not
// know with one of those (avante) can at worst decline.
type elicitChoice struct {
	id    sdk.PermissionOptionId
	name  string
	kind  sdk.PermissionOptionKind
	value any
}

// elicitChoices are the options of e, or nil when e is not a single
// choice an ACP client can answer.
func elicitChoices(e *event.Elicitation) []elicitChoice {
	if e.Mode == event.ElicitURL {
		return []elicitChoice{{id: optAllowOnce, name: "I have opened it: continue", kind: sdk.PermissionOptionKindAllowOnce}}
	}
	if len(e.Fields) != 1 {
		return nil
	}
	f := e.Fields[0]
	switch {
	case f.Type == "boolean":
		return []elicitChoice{{id: optAllowOnce, name: "Yes", kind: sdk.PermissionOptionKindAllowOnce, value: true}, {id: "answer_no", name: "No", kind: sdk.PermissionOptionKindRejectOnce, value: false}}
	case len(f.Enum) > 0 && f.Type == "string":
		var out []elicitChoice
		for i, v := range f.Enum {
			name := v
			if i < len(f.EnumNames) && f.EnumNames[i] != "" {
				name = f.EnumNames[i]
			}
			out = append(out, elicitChoice{id: sdk.PermissionOptionId("choice_" + strconv.Itoa(i)), name: name, kind: sdk.PermissionOptionKindAllowOnce, value: v})
		}
		return out
	}
	return nil
}

// askElicit puts the question a carries to the client, or declines it.
func (s *session) askElicit(ctx context.Context, t *turn, a *event.Approval) {
	e := a.Elicitation
	choices := elicitChoices(e)
	if choices == nil {
		s.send(sdk.UpdateAgentMessageText("\n" + mcp.Describe(e) + "\n(declined: this client can answer only a single choice)\n"))
		s.answerElicit(a.ID, agent.Answer{Decision: agent.ElicitDecline})
		return
	}
	opts := make([]sdk.PermissionOption, 0, len(choices)+1)
	for _, c := range choices {
		opts = append(opts, sdk.PermissionOption{OptionId: c.id, Name: c.name, Kind: c.kind})
	}
	opts = append(opts, sdk.PermissionOption{OptionId: optReject, Name: "Decline", Kind: sdk.PermissionOptionKindRejectOnce})
	text := fmt.Sprintf("MCP server %s asks: %s", e.Server, e.Message)
	if e.Mode == event.ElicitURL {
		text += "\nopen: " + e.URL
	} else if f := e.Fields[0]; f.Title != "" || f.Description != "" {
		text += "\n" + strings.TrimSpace(f.Title+" "+f.Description)
	}
	req := sdk.RequestPermissionRequest{SessionId: s.id, Options: opts, ToolCall: sdk.ToolCallUpdate{
		ToolCallId: sdk.ToolCallId(a.CallID),
		Title:      sdk.Ptr(a.Title),
		Kind:       sdk.Ptr(sdk.ToolKindOther),
		Status:     sdk.Ptr(sdk.ToolCallStatusPending),
		Content:    textContent(text),
	}}
	id, ok := s.choose(ctx, t, req)
	if !ok {
		return // the turn was cancelled: the engine cancels the question
	}
	for _, c := range choices {
		if c.id == id {
			ans := agent.Answer{Decision: agent.ElicitAccept}
			if e.Mode == event.ElicitForm {
				ans.Values = map[string]any{e.Fields[0].Name: c.value}
			}
			s.answerElicit(a.ID, ans)
			return
		}
	}
	s.answerElicit(a.ID, agent.Answer{Decision: agent.ElicitDecline})
}

func (s *session) answerElicit(id string, a agent.Answer) {
	if err := s.eng.Answer(id, a); err != nil {
		s.srv.log.Debug("elicitation answer not delivered", "session", s.id, "err", err)
	}
}
