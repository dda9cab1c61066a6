package acp

import (
	"fmt"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
)

// TestListPages: session/list pages of listPageSize, each with the cursor
// of the next, the last without one.
func TestListPages(t *testing.T) {
	var all []sdk.SessionInfo
	for i := range listPageSize*2 + 3 {
		all = append(all, sdk.SessionInfo{SessionId: sdk.SessionId(fmt.Sprint(i)), Cwd: t.TempDir()})
	}
	seen, start, pages := 0, 0, 0
	for {
		c := fmt.Sprint(start)
		n, err := listCursor(&c)
		if err != nil {
			t.Fatal(err)
		}
		p := page(all, n)
		pages++
		for _, s := range p.Sessions {
			if string(s.SessionId) != fmt.Sprint(seen) {
				t.Fatalf("session %s at position %d", s.SessionId, seen)
			}
			seen++
		}
		if p.NextCursor == nil {
			break
		}
		fmt.Sscan(*p.NextCursor, &start)
	}
	if seen != len(all) || pages != 3 {
		t.Errorf("%d sessions in %d pages, want %d in 3", seen, pages, len(all))
	}
	if _, err := listCursor(sdk.Ptr("-1")); err == nil {
		t.Error("a negative cursor was taken")
	}
}
