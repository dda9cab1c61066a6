package todo

import (
	"slices"
	"testing"
)

func TestFromPlan(t *testing.T) {
	tests := []struct {
		name, plan string
		want       []string
	}{
		{"numbered", "# Plan\n\n1. Read it\n2) Fix **it**\n   - detail\n10. Test\n", []string{"Read it", "Fix **it**", "Test"}},
		{"nested and code are no steps", "1. Top\n    1. nested\n```\n2. in code\n```\n~~~sh\n3. also\n~~~\n2. Next", []string{"Top", "Next"}},
		{"no numbers", "- a\n- b\nprose 1. not", nil},
		{"empty item", "1. \n2. real", []string{"real"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, td := range FromPlan(tt.plan) {
				if td.Status != Pending {
					t.Errorf("%q is %s", td.Content, td.Status)
				}
				got = append(got, td.Content)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
