package text

import (
	"strings"
	"testing"
)

func TestCutRuns(t *testing.T) {
	long := strings.Repeat("x", 300)
	tests := []struct{ in, want string }{
		{`model: "gpt-4o"`, `model: "gpt-4o"`},
		{`model: "` + strings.Repeat(" ", 1200) + `"`, `model: "` + strings.Repeat(" ", 10) + MoreChars(1190) + `"`},
		{`runs "npx -y ` + long + `" with env {"A":"b"} in "tools"`, `runs "npx -y ` + strings.Repeat("x", 10) + MoreChars(290) + `" with env {"A":"b"} in "tools"`},
		{strings.Repeat("ab,", 100), strings.Repeat("ab,", 33) + "a" + MoreChars(200)},
		{"é" + strings.Repeat("é", 40), "é" + strings.Repeat("é", 9) + MoreChars(31)},
	}
	for _, tc := range tests {
		if got := CutRuns(tc.in, 24, 10, 100); got != tc.want {
			t.Errorf("CutRuns(%.40q…) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
