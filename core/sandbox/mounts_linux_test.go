package sandbox

import (
	"slices"
	"testing"
)

// TestMountPlan: outermost first, so that a reopened directory is made
// on top of the read-only one holding it and a protected file on top of
// it; at one depth pins first.
func TestMountPlan(t *testing.T) {
	got := mountPlan(Policy{
		Pinned:    []string{"/r/.git", "/r"},
		Protected: []string{"/r/.git/worktrees/x/commondir", "/r/.git/worktrees", "/r/.git/config"},
		Reopened:  []string{"/r/.git/worktrees/x"},
	})
	var order []string
	for _, s := range got {
		order = append(order, s.path)
	}
	want := []string{"/r", "/r/.git", "/r/.git/worktrees", "/r/.git/config", "/r/.git/worktrees/x", "/r/.git/worktrees/x/commondir"}
	if !slices.Equal(order, want) {
		t.Errorf("order %q, want %q", order, want)
	}
}
