package worktree

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/llm"
)

func TestApplyRejectsAHunkAndKeepsConflicts(t *testing.T) {
	f := newFixture(t, 0)
	a := start(t, f.m, "TASK-A work")
	r := f.waitState(t, f.m, a.N, Done)
	// The task also edits main.txt in two places; the user edits it too.
	writeFile(t, filepath.Join(r.Path, "main.txt"), "ONE\ntwo\nthree\nfour\nfive\nsix\nSEVEN\n")
	writeFile(t, filepath.Join(f.root, "main.txt"), "one\ntwo\nthree\nfour\nfive\nsix\nuser's seven\n")
	files, err := f.m.Changes(context.Background(), a.N)
	if err != nil {
		t.Fatal(err)
	}
	accepted := map[string][]bool{}
	for _, fc := range files {
		if fc.Path == "main.txt" && len(fc.Hunks) != 2 {
			t.Fatalf("main.txt hunks: %+v", fc.Hunks)
		}
		if fc.Path == "task-a-bash.txt" {
			accepted[fc.Path] = []bool{false} // rejected whole
		}
	}
	res, err := f.m.Apply(context.Background(), a.N, accepted)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(f.root, "task-a-bash.txt")); !os.IsNotExist(err) {
		t.Errorf("a rejected file was applied")
	}
	if got := readFile(t, filepath.Join(f.root, "task-a.txt")); got != "TASK-A was here\n" {
		t.Errorf("task-a.txt = %q", got)
	}
	main := readFile(t, filepath.Join(f.root, "main.txt"))
	if !strings.HasPrefix(main, "ONE\n") || !strings.Contains(main, "<<<<<<< yours") || !strings.Contains(main, "user's seven") || !strings.Contains(main, "SEVEN") {
		t.Errorf("main.txt after merge:\n%s", main)
	}
	if len(res.Conflicts) != 1 || res.Conflicts[0] != "main.txt" || len(res.Skipped) != 1 {
		t.Errorf("result %+v", res)
	}
	if r, _ := f.m.Get(a.N); !r.Merged {
		t.Errorf("not marked merged")
	}
	// Unmerge takes it back, but for a file the user changed since; a
	// later host too.
	writeFile(t, filepath.Join(f.root, "task-a.txt"), "the user's now\n")
	f.m.Close()
	m2 := f.manager(t, 0)
	msg, err := m2.Unmerge(a.N)
	if err != nil || !strings.Contains(msg, "left as they are: task-a.txt") {
		t.Errorf("unmerge: %q %v", msg, err)
	}
	if got := readFile(t, filepath.Join(f.root, "main.txt")); got != "one\ntwo\nthree\nfour\nfive\nsix\nuser's seven\n" {
		t.Errorf("main.txt after unmerge:\n%s", got)
	}
	if got := readFile(t, filepath.Join(f.root, "task-a.txt")); got != "the user's now\n" {
		t.Errorf("task-a.txt after unmerge = %q", got)
	}
	if r, _ := m2.Get(a.N); r.Merged {
		t.Errorf("still marked merged")
	}
	if _, err := m2.Unmerge(a.N); err == nil {
		t.Errorf("a merge taken back twice")
	}
}

// TestMergeTellsTheTaskWhatWasLeftOut: a hunk rejected with a reason in
// the merge review is left out of the user's tree, named in the merge's
// summary, and told to the task's model with its next input.
func TestMergeTellsTheTaskWhatWasLeftOut(t *testing.T) {
	f := newFixture(t, 0)
	a := start(t, f.m, "TASK-A work")
	f.waitState(t, f.m, a.N, Done)
	ctx := context.Background()
	rv, err := f.m.Review(ctx, a.N)
	if err != nil {
		t.Fatal(err)
	}
	id := 0
	for _, h := range rv.Hunks {
		if h.Path == "task-a-bash.txt" {
			id = h.ID
		}
	}
	if id == 0 {
		t.Fatalf("no hunk of task-a-bash.txt in %+v", rv.Hunks)
	}
	if _, err := f.m.Judge(ctx, a.N, id, false, "no build output in the tree"); err != nil {
		t.Fatal(err)
	}
	res, err := f.m.Merge(ctx, a.N)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(f.root, "task-a-bash.txt")); !os.IsNotExist(err) {
		t.Errorf("the rejected hunk reached the tree: %v", err)
	}
	if got := readFile(t, filepath.Join(f.root, "task-a.txt")); got != "TASK-A was here\n" {
		t.Errorf("task-a.txt = %q", got)
	}
	if sum := res.Summary(); !res.Told || !strings.Contains(sum, "1 hunk left out (task-a-bash.txt:1: no build output in the tree), which the task is told") {
		t.Errorf("merge summary %q (told %v)", sum, res.Told)
	}
	// The host goes before the task hears it: a new one still tells it.
	f.m.Close()
	m2 := f.manager(t, 0)
	if r, _ := m2.Get(a.N); !strings.Contains(r.Note, "no build output in the tree") {
		t.Errorf("the record does not keep the note: %q", r.Note)
	}
	if err := m2.Continue(ctx, a.N, "TASK-A follow-up"); err != nil {
		t.Fatal(err)
	}
	f.waitRequest(t, "TASK-A follow-up")
	var last string
	for _, r := range f.srv.Requests() {
		for _, m := range r.Messages {
			if m.Role == llm.RoleUser && strings.Contains(m.Content, "TASK-A follow-up") {
				last = m.Content
			}
		}
	}
	for _, want := range []string{"When the user merged task 1 into their working tree, they left out:", "your change to task-a-bash.txt at line 1:", "(removed) ran", "Reason: no build output in the tree", "Do not make that change again unless asked."} {
		if !strings.Contains(last, want) {
			t.Errorf("the task's next input lacks %q:\n%s", want, last)
		}
	}
	if n := strings.Count(last, "no build output in the tree"); n != 1 {
		t.Errorf("the note is told %d times in one message", n)
	}
	if r := f.waitState(t, m2, a.N, Done); r.Note != "" {
		t.Errorf("the note is kept after it was told: %q", r.Note)
	}
}
