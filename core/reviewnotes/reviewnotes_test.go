package reviewnotes

import (
	"slices"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/store"
)

func TestRejectedAndTake(t *testing.T) {
	note := Rejected(2, "edit n.txt\nmore", "n.txt", 9, []string{"9\n"}, []string{"nine\n"}, "keep the digits")
	want := "In turn 2 (\"edit n.txt\") the user rejected and reverted your change to n.txt at line 9:\n  (kept) 9\n  (removed) nine\nReason: keep the digits\n" + End
	if note != want {
		t.Errorf("note:\n%s\nwant:\n%s", note, want)
	}
	var q Queue
	if q.Take() != "" {
		t.Error("an empty queue gave notes")
	}
	q.Add("a")
	q.Add("b")
	if got := q.Take(); got != "a\n\nb" {
		t.Errorf("Take = %q", got)
	}
	if got := q.Take(); got != "" {
		t.Errorf("told twice: %q", got)
	}
}

// Rewind to before turn 2: turn 1's note, told by a cut message, is told
// again; turn 2's and turn 3's go with their turns, queued or told.
func TestRewind(t *testing.T) {
	n1 := Rejected(1, "one", "a", 1, nil, []string{"x"}, "")
	n2 := Rejected(2, "two", "b", 1, nil, []string{"y"}, "")
	n3 := Rejected(3, "three", "c", 1, nil, []string{"z"}, "")
	cut := []llm.Message{{Role: llm.RoleUser, Content: "later" + Mark + n1 + "\n\n" + n2}, {Role: llm.RoleAssistant, Content: Mark + "not a user's"}}
	var q Queue
	q.Add(n3)
	q.Rewind(cut, 2)
	if got := q.Take(); got != n1 {
		t.Errorf("after the rewind: %q, want turn 1's note alone", got)
	}
}

func TestPending(t *testing.T) {
	told := Rejected(1, "one", "a", 1, nil, []string{"x"}, "")
	waiting := Rejected(2, "two", "b", 1, nil, []string{"y"}, "")
	turns := []store.Turn{
		{Start: 1, Review: []store.HunkVerdict{{Note: told}}},
		{Start: 5, Review: []store.HunkVerdict{{Keep: true, Note: "kept"}, {Note: waiting}}},
		{Start: 9, Rewound: true, Review: []store.HunkVerdict{{Note: "rewound"}}},
	}
	msgs := []llm.Message{{Role: llm.RoleUser, Content: "next" + Mark + told}}
	if got := Pending(turns, 0, msgs); !slices.Equal(got, []string{waiting}) {
		t.Errorf("Pending = %q", got)
	}
	if got := Pending(turns, 5, nil); len(got) != 0 {
		t.Errorf("turns before the base were told already: %q", got)
	}
	if got := Pending(turns, 0, nil); len(got) != 2 || !strings.HasPrefix(got[0], "In turn 1") {
		t.Errorf("nothing told yet: %q", got)
	}
}
