package inline

import (
	"fmt"
	"strings"
	"testing"
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

// The model's answer, fenced, is the selection's new lines; hunks carry
// buffer line numbers and apply per choice.
func TestParseAndReview(t *testing.T) {
	r := Request{Path: "a.txt", Instruction: "upper-case the odd lines", First: 101, Selection: []string{"one", "two", "three"}}
	got, err := Parse("```\nONE\ntwo\nTHREE\n```", r.Selection)
	if err != nil || strings.Join(got, "|") != "ONE|two|THREE" {
		t.Fatalf("Parse = %q, %v", got, err)
	}
	e := Edit{First: r.First, Old: r.Selection, New: got}
	hunks := e.Hunks()
	if len(hunks) != 2 || hunks[0].OldStart != 101 || hunks[1].OldStart != 103 {
		t.Fatalf("hunks %+v", hunks)
	}
	out, err := e.Apply([]bool{true, false})
	if err != nil || strings.Join(out, "|") != "ONE|two|three" {
		t.Errorf("Apply = %q, %v", out, err)
	}
}

// TestProgress: while the answer streams, a hunk is given once enough
// unchanged lines follow it, in order, each time there are more; at the
// end they are the whole answer's hunks but the last.
func TestProgress(t *testing.T) {
	sel := strings.Split("a\nb\nc\nd\ne\nf\ng\nh\ni\nj", "\n")
	answer := "```go\na\nB\nc\nd\ne\nf\nG\nh\ni\nj\n```\n"
	p := NewProgress(10, sel)
	var got [][]int // the old start of each hunk, per report
	for _, r := range answer {
		if hunks := p.Add(string(r)); hunks != nil {
			var starts []int
			for _, h := range hunks {
				starts = append(starts, h.OldStart)
			}
			got = append(got, starts)
		}
	}
	// B (line 11) settles once c, d, e arrived; G (line 16) once h, i, j
	// did: it is then no longer the last hunk (the closing fence is).
	if want := [][]int{{11}, {11, 16}}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("reports %v, want %v", got, want)
	}
	final, err := Parse(answer, sel)
	if err != nil {
		t.Fatal(err)
	}
	whole := Hunks(10, sel, final)
	settled := Settled(10, sel, answer)
	if len(whole) != 2 || fmt.Sprint(settled) != fmt.Sprint(whole) {
		t.Errorf("settled %+v, whole answer's %+v", settled, whole)
	}
	if len(Settled(1, sel, "a\nB")) != 0 || len(Settled(1, sel, "no newline yet")) != 0 {
		t.Error("hunks from an answer without a complete line after the change")
	}
}
