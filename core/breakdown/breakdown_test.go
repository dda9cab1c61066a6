package breakdown

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/mention"
)

func TestHistoryStart(t *testing.T) {
	sys := llm.Message{Role: llm.RoleSystem, Content: "you are"}
	agents := llm.Message{Role: llm.RoleUser, Content: "<project_instructions>\nrules</project_instructions>"}
	user := llm.Message{Role: llm.RoleUser, Content: "hello"}
	for _, c := range []struct {
		name string
		msgs []llm.Message
		want int
	}{
		{"empty", nil, 0},
		{"system only", []llm.Message{sys}, 1},
		{"system, AGENTS.md, user", []llm.Message{sys, agents, user}, 2},
		{"no AGENTS.md", []llm.Message{sys, user, agents}, 1},
		{"user first", []llm.Message{user, sys}, 0},
	} {
		if got := HistoryStart(c.msgs); got != c.want {
			t.Errorf("%s: HistoryStart = %d, want %d", c.name, got, c.want)
		}
	}
}

// TestOf: each message and schema counts in its part, attachments apart
// from the typed text; the parts add up to the total; what /compact
// would summarise is counted; the biggest are named by what they are.
func TestOf(t *testing.T) {
	long := strings.Repeat("é", 200) // a name cut must stay valid UTF-8
	attached := "look" + mention.AttachmentsStart + strings.Repeat("x", 4000)
	req := llm.Request{
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: strings.Repeat("s", 800)},
			{Role: llm.RoleUser, Content: "<project_instructions>\n" + strings.Repeat("a", 400) + "</project_instructions>"},
			{Role: llm.RoleUser, Content: attached},
			{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c1", Type: "function", Function: llm.FunctionCall{Name: "bash", Arguments: `{"command":"` + long + `"}`}}}},
			{Role: llm.RoleTool, ToolCallID: "c1", Content: strings.Repeat("out\n", 3000)},
			{Role: llm.RoleUser, Content: "next"},
		},
		Tools: []llm.Tool{
			{Type: "function", Function: llm.FunctionDef{Name: "read", Description: "reads"}},
			{Type: "function", Function: llm.FunctionDef{Name: "srv__search", Description: strings.Repeat("d", 300)}},
		},
	}
	r := Of(req, 10000, 5)
	parts := map[string]int{}
	sum := 0
	for _, p := range r.Parts {
		parts[p.Name] = p.Tokens
		sum += p.Tokens
	}
	if sum != r.Total {
		t.Errorf("parts add up to %d, total %d", sum, r.Total)
	}
	for _, name := range []string{"instructions", "AGENTS.md", "tool schemas (built-in)", "tool schemas (MCP)", "user messages", "attachments", "assistant messages", "tool results"} {
		if parts[name] <= 0 {
			t.Errorf("no %q part: %+v", name, r.Parts)
		}
	}
	if parts["attachments"] < 900 || parts["user messages"] > 100 {
		t.Errorf("attachments %d, user messages %d: the attachment is not counted apart", parts["attachments"], parts["user messages"])
	}
	body, _ := json.Marshal(req)
	if real := len(body) / 4; r.Total < real*95/100 || r.Total > real*105/100 {
		t.Errorf("total %d tokens, the request is %d", r.Total, real)
	}
	if r.Biggest[0].What != "result of bash "+short(`{"command":"`+long+`"}`) {
		t.Errorf("biggest = %+v", r.Biggest)
	}
	for _, it := range r.Biggest {
		if !utf8.ValidString(it.What) {
			t.Errorf("%q is not valid UTF-8", it.What)
		}
	}
	if r.CompactItems != 4 || r.CompactSaves <= 0 {
		t.Errorf("compact: %d items, saves %d", r.CompactItems, r.CompactSaves)
	}
	s := r.String()
	for _, want := range []string{"of a 10,000-token window", "biggest:", "/compact would save about"} {
		if !strings.Contains(s, want) {
			t.Errorf("report lacks %q:\n%s", want, s)
		}
	}
	if short := Of(llm.Request{Messages: req.Messages[:2]}, 10000, 1).String(); !strings.Contains(short, "/compact would save nothing yet") {
		t.Errorf("a short history:\n%s", short)
	}
}
