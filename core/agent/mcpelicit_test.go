package agent

import (
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/mcp"
	"github.com/coder-nvim/coder-nvim/core/mcp/elicitserver"
)

// A server's question during a tool call reaches the user as an
// approval with the form; what they answer (typed, checked) goes back
// to the server, and the model only sees the tool's result.
func TestMCPElicitationAnswers(t *testing.T) {
	tests := []struct {
		name     string
		prompter bool
		tool     string
		answer   func(f *fixture, a *event.Approval) error
		want     string
	}{
		{"accept typed values", true, "signup", func(f *fixture, a *event.Approval) error {
			// A value that does not fit is refused and the question stays open.
			if err := f.sess.Answer(a.ID, Answer{Decision: ElicitAccept, Values: map[string]any{"name": "Ada", "age": "old"}}); err == nil || !strings.Contains(err.Error(), "age: want a number") {
				t.Errorf("bad age answered: %v", err)
			}
			return f.sess.Answer(a.ID, Answer{Decision: ElicitAccept, Values: map[string]any{"name": "Ada", "age": "36", "subscribe": "true", "color": "green"}})
		}, `action=accept content={"age":36,"color":"green","name":"Ada","subscribe":true}`},
		{"decline", true, "signup", func(f *fixture, a *event.Approval) error {
			return f.sess.Answer(a.ID, Answer{Decision: ElicitDecline})
		}, "action=decline content=null"},
		{"cancel", true, "signup", func(f *fixture, a *event.Approval) error {
			return f.sess.Answer(a.ID, Answer{Decision: ElicitCancel})
		}, "action=cancel content=null"},
		{"url accepted", true, "visit", func(f *fixture, a *event.Approval) error {
			if a.Elicitation.Mode != event.ElicitURL || a.Command != "https://example.invalid/login" {
				t.Errorf("url request = %+v", a.Elicitation)
			}
			return f.sess.Answer(a.ID, Answer{Decision: ElicitAccept})
		}, "action=accept content=null"},
		{"nobody to ask", false, "signup", nil, "action=decline content=null"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := elicitserver.New()
			t.Cleanup(srv.Close)
			f := newFixture(t, func(c *config.Config, o *Options) {
				o.Prompter = tc.prompter
				c.Mode = "auto-edit"
				c.MCPServers = map[string]mcp.ServerConfig{"ask": {URL: srv.URL, Trusted: true}}
				c.MCP.FirstTurnWait = "30s"
			})
			var asked []*event.Approval
			f.rec.onAsk = func(a *event.Approval) {
				if a.Elicitation == nil {
					_ = f.sess.Answer(a.ID, Answer{Decision: AllowOnce})
					return
				}
				asked = append(asked, a)
				if err := tc.answer(f, a); err != nil {
					t.Errorf("answer: %v", err)
				}
			}
			f.srv.Enqueue(fakellm.Reply{ToolCalls: []llm.ToolCall{call("c1", "ask__"+tc.tool, map[string]any{})}}, fakellm.Reply{Content: "done"})
			f.run(t, "sign me up")
			reqs := f.srv.Requests()
			if m := toolMsg(reqs[1].Messages, "c1"); m == nil || m.Content != tc.want {
				t.Fatalf("tool result = %+v, want %q", m, tc.want)
			}
			if !tc.prompter {
				if len(asked) != 0 {
					t.Fatalf("asked %d times with nobody to ask", len(asked))
				}
				found := false
				for _, n := range f.rec.find(event.Notice) {
					found = found || (strings.Contains(n.Text, "MCP server ask asked: Who are you?") && strings.Contains(n.Text, "Name (string, required)") && strings.Contains(n.Text, "declined"))
				}
				if !found {
					t.Errorf("no notice of what was asked: %+v", f.rec.find(event.Notice))
				}
				return
			}
			if len(asked) != 1 || asked[0].Elicitation.Server != "ask" || asked[0].CallID != "c1" {
				t.Fatalf("asked = %+v", asked)
			}
			if tc.tool == "signup" && len(asked[0].Elicitation.Fields) != 4 {
				t.Errorf("fields = %+v", asked[0].Elicitation.Fields)
			}
			// The model never sees the question, only the tool's result.
			for _, m := range reqs[1].Messages {
				if strings.Contains(m.Content, "Who are you?") {
					t.Errorf("the question reached the model: %+v", m)
				}
			}
		})
	}
}
