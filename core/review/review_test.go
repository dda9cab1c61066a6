package review

import (
	"strings"
	"testing"
)

func TestApplySubsets(t *testing.T) {
	old := "a\nb\nc\nd\ne\nf\n"
	new := "a\nB\nc\nd\nnew\ne\n" // change b, insert before e, delete f
	hunks := Hunks(old, new)
	if len(hunks) != 3 {
		t.Fatalf("got %d hunks: %+v", len(hunks), hunks)
	}
	if hunks[0].OldStart != 2 || strings.Join(hunks[0].NewLines, "") != "B" {
		t.Errorf("hunk 0 = %+v", hunks[0])
	}
	tests := []struct {
		accepted []bool
		want     string
	}{
		{[]bool{true, true, true}, new},
		{[]bool{false, false, false}, old},
		{[]bool{true, false, false}, "a\nB\nc\nd\ne\nf\n"},
		{[]bool{false, true, false}, "a\nb\nc\nd\nnew\ne\nf\n"},
		{[]bool{false, false, true}, "a\nb\nc\nd\ne\n"},
		{[]bool{true, false, true}, "a\nB\nc\nd\ne\n"},
	}
	for _, tt := range tests {
		got, err := Apply(old, new, tt.accepted)
		if err != nil {
			t.Fatal(err)
		}
		if got != tt.want {
			t.Errorf("Apply(%v) = %q, want %q", tt.accepted, got, tt.want)
		}
	}
	if _, err := Apply(old, new, []bool{true}); err == nil {
		t.Error("wrong choice count accepted")
	}
}

func TestNewAndDeletedFiles(t *testing.T) {
	if h := Hunks("", "x\ny\n"); len(h) != 1 || len(h[0].NewLines) != 2 {
		t.Errorf("add: %+v", h)
	}
	got, err := Apply("x\n", "", []bool{false})
	if err != nil || got != "x\n" {
		t.Errorf("rejected delete = %q, %v", got, err)
	}
}
