package reviewcomments

import (
	"strings"
	"testing"
)

func TestPending(t *testing.T) {
	var p Pending
	for _, bad := range []Comment{{Path: "a.go", Text: "  "}, {Text: "x"}, {Path: "a.go", Text: "x", Start: -1}} {
		if _, err := p.Add(bad); err == nil {
			t.Errorf("Add(%+v) accepted", bad)
		}
	}
	kept, rejected := true, false
	p.Add(Comment{Path: "a.go", Start: 3, End: 5, Hunk: "@@ -3 +3,3 @@\n+x\n", Text: "rename", Kept: &kept})
	if n, _ := p.Add(Comment{Path: "b.go", Start: 7, Text: "why?", Kept: &rejected}); n != 2 {
		t.Fatalf("%d waiting", n)
	}
	if got := Summary(p.List()); !strings.Contains(got, "2 waiting (a.go:3-5, b.go:7)") {
		t.Errorf("summary %q", got)
	}
	msg := Message(p.Take())
	for _, want := range []string{"(2)", "1. a.go:3-5 (hunk kept)", "```diff\n@@ -3 +3,3 @@\n+x\n```", "Comment: rename", "2. b.go:7 (hunk rejected: not in the file)", "Comment: why?"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
	if len(p.List()) != 0 {
		t.Error("Take left comments")
	}
}
