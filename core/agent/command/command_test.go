package command

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseSettings(t *testing.T) {
	for _, tc := range []struct {
		line string
		want []Setting
		rest string
		err  string
	}{
		{"", nil, "", ""},
		{"model=m fix it", []Setting{{"model", "m"}}, "fix it", ""},
		{`instructions="be \"brief\"" user='a b' go`, []Setting{{"instructions", `be "brief"`}, {"user", "a b"}}, "go", ""},
		{"deny=bash:git push* ask=write:src/**", []Setting{{"deny", "bash:git"}}, "push* ask=write:src/**", ""},
		{`deny="bash:git push*" ask=write:src/**`, []Setting{{"deny", "bash:git push*"}, {"ask", "write:src/**"}}, "", ""},
		{"note=x model=m", nil, "note=x model=m", ""}, // not a key: the message starts
		{"fix a=b", nil, "fix a=b", ""},
		{`model="open`, nil, "", "unterminated"},
		{`model="a"b`, nil, "", "followed by a space"},
		{"mcp= model=m", []Setting{{"mcp", ""}, {"model", "m"}}, "", ""},
	} {
		got, rest, err := ParseSettings(tc.line, NewKeys)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want %q", tc.line, err, tc.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) || rest != tc.rest {
			t.Errorf("%q = %q, %q, %v; want %q, %q", tc.line, got, rest, err, tc.want, tc.rest)
		}
	}
	for _, tc := range []struct {
		line string
		want []Setting
	}{
		{"instructions be brief and kind", []Setting{{"instructions", "be brief and kind"}}},
		{`instructions "be brief"`, []Setting{{"instructions", "be brief"}}},
		{"model=a preset=strict", []Setting{{"model", "a"}, {"preset", "strict"}}},
		{"refresh_mcp", []Setting{{"refresh_mcp", ""}}},
	} {
		if got, err := SetArgs(tc.line); err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("SetArgs(%q) = %q, %v; want %q", tc.line, got, err, tc.want)
		}
	}
	if _, err := SetArgs("colour blue"); err == nil {
		t.Error("SetArgs accepted an unknown key")
	}
}

// The user opens a conversation with every setting: base instructions from
// a file, a model, no MCP tools, less storage, narrower permissions and
// fewer tools; a wider preset is clamped and the user is told exactly
// that; it runs on its first message at once.
func TestNearestModels(t *testing.T) {
	models := []string{"anthropic/claude-sonnet-4", "deepseek/deepseek-chat", "openai/gpt-4o", "openai/gpt-4o-mini", "x-ai/grok-4"}
	for _, c := range []struct{ name, want string }{
		{"claude-sonnet-4", "anthropic/claude-sonnet-4"},
		{"GPT-4o", "openai/gpt-4o"},
		{"openai/gpt-4p", "openai/gpt-4o"},
		{"grok", "x-ai/grok-4"},
	} {
		if got := NearestModels(c.name, models, 3); len(got) == 0 || got[0] != c.want {
			t.Errorf("NearestModels(%q) = %v, want %s first", c.name, got, c.want)
		}
	}
	if got := NearestModels("zzz", models, 3); len(got) != 3 {
		t.Errorf("nothing near: %v, want 3 names anyway", got)
	}
}

// TestHelpText (seed 001 §4): /help lists every command and says the
// input rules: how input is sent (Enter, Ctrl+S), how exec's input ends
// (Ctrl+D) and how streaming is interrupted (Ctrl+C, :Coder stop).
func TestHelpText(t *testing.T) {
	help := helpText()
	for _, c := range commands() {
		if !c.alias && !strings.Contains(help, "/"+c.name) {
			t.Errorf("/help does not list /%s", c.name)
		}
	}
	for _, want := range []string{"Enter (Normal mode)", "Ctrl+S (Insert mode)", "Ctrl+D", "Ctrl+C", ":Coder stop", "interrupts streaming", "!COMMAND"} {
		if !strings.Contains(help, want) {
			t.Errorf("/help lacks %q:\n%s", want, help)
		}
	}
	if strings.Contains(help, "empty line") {
		t.Error("/help says an empty line ends exec's input; exec reads stdin to its end")
	}
}

// TestHelpAligned: /help's descriptions start in one column (issue 52,
// newcomer 9).
func TestHelpAligned(t *testing.T) {
	text := helpText()
	col := -1
	for _, c := range append(commands(), command{name: "plan (shortcuts)", help: "shortcuts for /mode"}) {
		if c.alias {
			continue
		}
		found := false
		for _, line := range strings.Split(text, "\n") {
			if i := strings.Index(line, " "+c.help); i >= 0 && strings.HasSuffix(line, c.help) {
				at := utf8.RuneCountInString(line[:i+1])
				if col < 0 {
					col = at
				}
				if at != col {
					t.Errorf("/%s: description at column %d, others at %d:\n%s", c.name, at, col, text)
				}
				found = true
				break
			}
		}
		if !found {
			t.Errorf("/%s: no line ends with its description %q", c.name, c.help)
		}
	}
}
