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
