package inline

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/provider"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name, answer string
		sel          []string
		want         string
		err          bool
	}{
		{"plain", "a\nb\n", []string{"x"}, "a|b", false},
		{"fenced", "```go\na\n  b\n```\n", []string{"x"}, "a|  b", false},
		{"fence kept when the selection is one", "```\na\n```", []string{"```", "x", "```"}, "```|a|```", false},
		{"selection tags", "<selection lines=\"1-2\">\na\n</selection>", []string{"x"}, "a", false},
		{"crlf", "a\r\nb\r\n", []string{"x"}, "a|b", false},
		{"empty", "\n  \n", []string{"x"}, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.answer, tt.sel)
			if (err != nil) != tt.err || strings.Join(got, "|") != tt.want {
				t.Errorf("Parse = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestCheck(t *testing.T) {
	for _, r := range []Request{
		{Instruction: " ", First: 1, Selection: []string{"a"}},
		{Instruction: "x", First: 1},
		{Instruction: "x", First: 0, Selection: []string{"a"}},
		{Instruction: "x", First: 1, Selection: make([]string, MaxSelectionLines+1)},
	} {
		if r.Check() == nil {
			t.Errorf("%+v accepted", r)
		}
	}
}

// The model gets the selection with its surroundings (cut to the
// limits) and the instruction; hunks carry buffer line numbers and apply
// per choice.
func TestRewriteAndReview(t *testing.T) {
	srv := fakellm.New()
	t.Cleanup(srv.Close)
	srv.Enqueue(fakellm.Reply{Content: "```\nONE\ntwo\nTHREE\n```"})
	p := provider.NewOpenAI(provider.Options{BaseURL: srv.URL(), APIKey: "k", BaseBackoff: time.Millisecond, MaxAttempts: 1})
	var before []string
	for i := range 100 {
		before = append(before, fmt.Sprintf("line %d", i+1))
	}
	r := Request{Path: "a.txt", Filetype: "text", Instruction: "upper-case the odd lines", First: 101, Before: before, Selection: []string{"one", "two", "three"}, After: []string{"after"}}
	got, err := Rewrite(context.Background(), p, "m", r)
	if err != nil || strings.Join(got, "|") != "ONE|two|THREE" {
		t.Fatalf("Rewrite = %q, %v", got, err)
	}
	msg := srv.Requests()[0].Messages[1].Content
	if !strings.Contains(msg, "Instruction: upper-case the odd lines") || !strings.Contains(msg, "<selection lines=\"101-103\">\none\ntwo\nthree\n</selection>") ||
		strings.Contains(msg, "line 60\n") || !strings.Contains(msg, "line 61\n") || !strings.Contains(msg, "<after>\nafter\n</after>") {
		t.Errorf("request:\n%s", msg)
	}
	hunks := Hunks(r.First, r.Selection, got)
	if len(hunks) != 2 || hunks[0].OldStart != 101 || hunks[1].OldStart != 103 {
		t.Fatalf("hunks %+v", hunks)
	}
	out, err := Apply(r.Selection, got, []bool{true, false})
	if err != nil || strings.Join(out, "|") != "ONE|two|three" {
		t.Errorf("Apply = %q, %v", out, err)
	}
}
