package policy

import (
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/shellcheck"
)

func TestOffersAlways(t *testing.T) {
	keys := []Key{{Tool: "write", Path: []string{"src/**"}}}
	for _, tc := range []struct {
		name    string
		v       Verdict
		outside bool
		want    bool
	}{
		{"a remembered write", Verdict{Decision: Ask, Keys: keys}, false, true},
		{"nothing to remember (a protected path, the plan)", Verdict{Decision: Ask}, false, false},
		{"dangerous", Verdict{Decision: Ask, Keys: keys, Dangerous: true}, false, false},
		{"analysed as dangerous", Verdict{Decision: Ask, Keys: keys, Analysis: &shellcheck.Analysis{Class: shellcheck.Dangerous}}, false, false},
		{"unparsed", Verdict{Decision: Ask, Keys: keys, Analysis: &shellcheck.Analysis{ParseError: "x"}}, false, false},
		{"outside the sandbox", Verdict{Decision: Ask, Keys: keys}, true, false},
		{"no ask", Verdict{Decision: Allow, Keys: keys}, false, false},
	} {
		if got := OffersAlways(tc.v, tc.outside); got != tc.want {
			t.Errorf("%s: OffersAlways = %v, want %v", tc.name, got, tc.want)
		}
		if got := AlwaysAnswer(tc.want); (got == AnswerAlways) != tc.want {
			t.Errorf("%s: AlwaysAnswer = %v", tc.name, got)
		}
	}
}

func TestOnceScope(t *testing.T) {
	keys := []Key{{Tool: "bash:outside", Path: []string{"touch"}}}
	for _, tc := range []struct {
		v       Verdict
		outside bool
		want    string
	}{
		{Verdict{Decision: Ask, Keys: keys}, true, "outside the sandbox are asked every time"},
		{Verdict{Decision: Ask, Keys: keys, Dangerous: true}, false, "dangerous commands are never remembered"},
		{Verdict{Decision: Ask, Scope: "this call only: writes to skills are never remembered"}, false, "skills"},
	} {
		if got := OnceScope(tc.v, tc.outside); !strings.Contains(got, tc.want) || !strings.HasPrefix(got, "this call only") {
			t.Errorf("OnceScope(%+v, %v) = %q, want %q", tc.v, tc.outside, got, tc.want)
		}
	}
}
