package todo

import (
	"strings"
	"testing"
)

func TestTypedText(t *testing.T) {
	code := "```go\n" + strings.Repeat("x := compute(a, b) // then refactor, migrate and test\n", 40) + "```"
	for _, tc := range []struct{ in, want string }{
		{"explain", "explain"},
		{"explain\n\nsrc/a.go:3-42\n" + code, "explain\n"},
		{"explain\n\n[No Name]:1-40\n" + code + "\nand this", "explain\n\nand this"},
		{"fix\n" + code, "fix"},
		{"half open\n```\nrest", "half open"},
	} {
		if got := TypedText(tc.in); got != tc.want {
			t.Errorf("TypedText(%.30q…) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestShown: a replay shows the user's message without the complex
// task's note, whatever follows it, and leaves other text alone.
func TestShown(t *testing.T) {
	tests := []struct{ name, stored, want string }{
		{"note", WithComplexNote("fix the loader and the tests"), "fix the loader and the tests"},
		{"note then hook context", WithComplexNote("fix it") + "\n\n[hook context]\nbranch main", "fix it\n\n[hook context]\nbranch main"},
		{"no note", "a [note] of my own", "a [note] of my own"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Shown(tc.stored); got != tc.want {
				t.Errorf("Shown = %q, want %q", got, tc.want)
			}
		})
	}
}
