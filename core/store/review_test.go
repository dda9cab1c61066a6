package store

import "testing"

// A session stored headers only keeps no text of a rejection: the reason
// is a size, the note to the model (the hunk's lines) is gone; stored
// with no content, neither is kept.
func TestHeaderVerdicts(t *testing.T) {
	in := []HunkVerdict{{Path: "a.go", Hunk: 1, Reason: "too clever", Note: "In turn 1 … (removed) secret line"}, {Path: "b.go", Keep: true}}
	for _, c := range []struct {
		p      Policy
		reason string
	}{
		{PolicyHeaders, "[not stored: 10 bytes]"},
		{PolicyNone, ""},
	} {
		out := headerVerdicts(in, c.p)
		if out[0].Reason != c.reason || out[0].Note != "" || out[0].Path != "a.go" || out[0].Hunk != 1 || !out[1].Keep {
			t.Errorf("%s: %+v", c.p, out)
		}
	}
	if in[0].Note == "" || in[0].Reason != "too clever" {
		t.Errorf("the input was changed: %+v", in)
	}
}
