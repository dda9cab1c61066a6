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
	ok := func() error { return nil }
	bad := func() error { return errors.New("editor gone") }
	tests := []struct {
		name    string
		target  string
		undo    []undoStep
		want    []string
		notWant string
	}{
		{"nothing written", untouched, nil, []string{"; no files were changed"}, "now holds"},
		{"earlier rolled back", untouched, []undoStep{{"a.txt", ok}}, []string{"no files were changed (the earlier writes of this set were rolled back: a.txt)"}, "now holds"},
		{"written unconfirmed", landed, []undoStep{{"a.txt", ok}}, []string{"c.txt now holds the new content", "rolled back: a.txt"}, "no files were changed"},
		{"undo failed", untouched, []undoStep{{"a.txt", ok}, {"b.txt", bad}}, []string{"could not be undone and stay changed: b.txt (editor gone)", "these were rolled back: a.txt"}, "no files were changed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := FileChange{Path: "c.txt", Old: "OLD\n", New: "NEW\n"}
			err := rollback(c, tt.target, errors.New("the editor did not answer"), tt.undo)
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
