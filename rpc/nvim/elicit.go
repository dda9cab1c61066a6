package nvimhost

// An MCP server's question (elicitation) in Neovim: the request goes to
// coder.elicit (a form in a float, or a URL to open once the user says
// so); the answer comes back as the coder_answer_elicit request, so that
// one the form does not fit is told to the user and the float stays.

import (
	"github.com/coder-nvim/coder-nvim/core/agent"
	"github.com/coder-nvim/coder-nvim/core/event"
)

// elicitOp is the elicitation part of an approval op.
func elicitOp(e *event.Elicitation) map[string]any {
	fields := make([]any, 0, len(e.Fields))
	for _, f := range e.Fields {
		m := map[string]any{
			"name": f.Name, "title": f.Title, "description": f.Description, "type": f.Type,
			"required": f.Required, "default": f.Default, "format": f.Format,
			"enum": orEmpty(f.Enum), "enum_names": orEmpty(f.EnumNames),
		}
		if f.MinLength != nil {
			m["min_length"] = *f.MinLength
		}
		if f.MaxLength != nil {
			m["max_length"] = *f.MaxLength
		}
		if f.Minimum != nil {
			m["minimum"] = *f.Minimum
		}
		if f.Maximum != nil {
			m["maximum"] = *f.Maximum
		}
		fields = append(fields, m)
	}
	return map[string]any{"server": e.Server, "message": e.Message, "mode": e.Mode, "url": e.URL, "fields": fields}
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// elicitAnswerText is how the transcript records the user's answer
// (never the values).
var elicitAnswerText = map[string]string{
	string(agent.ElicitAccept):  "answered",
	string(agent.AllowOnce):     "answered",
	string(agent.ElicitDecline): "declined",
	string(agent.Deny):          "declined",
	string(agent.ElicitCancel):  "cancelled",
}

// answerElicitRequest answers an MCP server's question: accept (with the
// form's values), decline or cancel. It returns "" when the answer was
// taken, else why not (the question stays open).
func (h *host) answerElicitRequest(id, decision string, values map[string]any) (string, error) {
	sess, err := h.approvalSession(id)
	if err != nil {
		return err.Error(), nil
	}
	if err := sess.Answer(id, agent.Answer{Decision: agent.Decision(decision), Values: values}); err != nil {
		return err.Error(), nil
	}
	return "", nil
}

// openURL has the editor open a sign-in page with the user's opener: the
// user asked for it (/mcp login).
func (r *renderer) openURL(ev event.Event) {
	r.line(hlNotice, "ℹ "+ev.Detail+": "+ev.Text)
	r.emitOp(op{"t": "open_url", "url": ev.Text, "what": ev.Detail}, true)
}
