package text

import "testing"

func TestTruncateAndFirstLine(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"abcdef", 3, "abc…"},
		{"aé", 2, "a…"}, // é is two bytes: never split
		{"", 0, ""},
	} {
		if got := Truncate(tc.in, tc.n); got != tc.want {
			t.Errorf("Truncate(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
	if got := FirstLine("one\ntwo"); got != "one" {
		t.Errorf("FirstLine = %q", got)
	}
	long := string(make([]byte, 200))
	if got := FirstLine(long); len(got) != 160+len("…") {
		t.Errorf("FirstLine of 200 bytes has %d bytes", len(got))
	}
}
