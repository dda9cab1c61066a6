package tools

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRollbackSays: a failed change set says exactly where its files were
// left: rolled back, stuck changed, or written although the write failed.
func TestRollbackSays(t *testing.T) {
	dir := t.TempDir()
	landed := filepath.Join(dir, "landed.txt")
	if err := os.WriteFile(landed, []byte("NEW\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	untouched := filepath.Join(dir, "untouched.txt")
	if err := os.WriteFile(untouched, []byte("OLD\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// otherwise is written after its state is taken, not as sent (an
	// editor added a final blank line).
	otherwise := filepath.Join(dir, "otherwise.txt")
	if err := os.WriteFile(otherwise, []byte("OLD\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := statDisk(otherwise)
	if err := os.WriteFile(otherwise, []byte("NEW\n\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ok := func() error { return nil }
	bad := func() error { return errors.New("editor gone") }
	tests := []struct {
		name    string
		target  string
		before  diskState
		undo    []undoStep
		want    []string
		notWant string
	}{
		{"nothing written", untouched, statDisk(untouched), nil, []string{"; no files were changed"}, "now holds"},
		{"earlier rolled back", untouched, statDisk(untouched), []undoStep{{"a.txt", ok}}, []string{"no files were changed (the earlier writes of this set were rolled back: a.txt)"}, "now holds"},
		{"written unconfirmed", landed, statDisk(landed), []undoStep{{"a.txt", ok}}, []string{"c.txt now holds the new content", "rolled back: a.txt"}, "no files were changed"},
		{"undo failed", untouched, statDisk(untouched), []undoStep{{"a.txt", ok}, {"b.txt", bad}}, []string{"could not be undone and stay changed: b.txt (editor gone)", "these were rolled back: a.txt"}, "no files were changed"},
		{"written otherwise", otherwise, before, nil, []string{"c.txt changed on disk during the write, though not to the content sent", "no other file was changed"}, "no files were changed"},
		{"created otherwise", otherwise, diskState{}, nil, []string{"c.txt changed on disk during the write"}, "no files were changed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := FileChange{Path: "c.txt", Old: "OLD\n", New: "NEW\n"}
			err := rollback(c, tt.target, tt.before, errors.New("the editor did not answer"), tt.undo)
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%v\nwant it to contain %q", err, w)
				}
			}
			if strings.Contains(err.Error(), tt.notWant) {
				t.Errorf("%v\nshould not say %q", err, tt.notWant)
			}
		})
	}
}
