package acp

import (
	"fmt"
	"strconv"

	"github.com/coder-nvim/coder-nvim/core/store"
	sdk "github.com/coder/acp-go-sdk"
)

// listPageSize is how many sessions one session/list answer holds; the
// next page starts at its nextCursor.
const listPageSize = 50

// listCursor is where the page a cursor names starts: 0 without one. A
// cursor is the offset of the page's first session, as this agent gave it.
func listCursor(c *string) (int, error) {
	if c == nil || *c == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(*c)
	if err != nil || n < 0 {
		return 0, sdk.NewInvalidParams(map[string]any{"cursor": *c, "error": fmt.Sprintf("cursor %q is not one this agent gave: pass a nextCursor from an earlier session/list, or none for the first page", *c)})
	}
	return n, nil
}

// page is the sessions from start, at most listPageSize, with the cursor
// of the next page when more follow; the sessions held by another process
// are marked.
func page(all []sdk.SessionInfo, start int) sdk.ListSessionsResponse {
	out := sdk.ListSessionsResponse{Sessions: []sdk.SessionInfo{}}
	if start >= len(all) {
		return out
	}
	end := min(start+listPageSize, len(all))
	for _, info := range all[start:end] {
		markInUse(&info, store.Holder(store.Dir(info.Cwd), string(info.SessionId)))
		out.Sessions = append(out.Sessions, info)
	}
	if end < len(all) {
		out.NextCursor = sdk.Ptr(strconv.Itoa(end))
	}
	return out
}
