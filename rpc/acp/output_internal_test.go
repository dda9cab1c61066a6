package acp

import (
	"strings"
	"testing"
)

// TestLiveOutputKeepsTheEnd: a long running output is shown by its last
// maxStreamText bytes, from a line start, saying that more came before.
func TestLiveOutputKeepsTheEnd(t *testing.T) {
	var o liveOutput
	o.add("héllo\n")
	if o.text() != "héllo\n" {
		t.Errorf("short output %q", o.text())
	}
	for i := range 10000 {
		o.add(strings.Repeat("x", 9) + string(rune('a'+i%26)) + "\n")
	}
	got := o.text()
	if len(got) > maxStreamText+64 || !strings.HasPrefix(got, "… (earlier output not shown)\nxxxxxxxxx") || !strings.HasSuffix(got, "xxxxxxxxx"+string(rune('a'+9999%26))+"\n") {
		t.Errorf("cut output: %d bytes, %q … %q", len(got), got[:60], got[len(got)-20:])
	}
	o.limited = true
	if !strings.HasSuffix(o.text(), "\n… (more output: the rest comes when the command ends)") {
		t.Errorf("no note at the limit: %q", o.text()[len(o.text())-80:])
	}
}
