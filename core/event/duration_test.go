package event

import (
	"testing"
	"time"
)

func TestFormatDuration(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0 ms"},
		{340 * time.Millisecond, "340 ms"},
		{1234 * time.Millisecond, "1.2 s"},
		{125 * time.Second, "2 min 5 s"},
	} {
		if got := FormatDuration(tc.d); got != tc.want {
			t.Errorf("FormatDuration(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}

func TestSplitDuration(t *testing.T) {
	for _, tc := range []struct {
		in, text string
		d        time.Duration
		ok       bool
	}{
		{"exit 0 (1.2s)", "exit 0", 1200 * time.Millisecond, true},
		{"passed (35ms)", "passed", 35 * time.Millisecond, true},
		{"12 lines (of 40)", "12 lines (of 40)", 0, false},
		{"3 lines", "3 lines", 0, false},
	} {
		text, d, ok := SplitDuration(tc.in)
		if text != tc.text || d != tc.d || ok != tc.ok {
			t.Errorf("SplitDuration(%q) = %q, %v, %v", tc.in, text, d, ok)
		}
	}
}
