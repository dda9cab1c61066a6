package mcp

import (
	"fmt"
	"maps"
	"slices"
	"sync"
)

// Failures keeps each server's latest failure not told yet, from the
// pool's notices, so that it is said once, in the next turn — not per
// attempt, nor outside any turn — and not at all when the server
// recovered first. The zero value is ready; safe for concurrent use (the
// pool notifies from its own goroutines).
type Failures struct {
	mu     sync.Mutex
	failed map[string]string
}

// Note follows notice n: a failure or an exit is kept, a start forgets it.
func (f *Failures) Note(n Notice) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch n.Kind {
	case NoticeFailed, NoticeExited:
		if f.failed == nil {
			f.failed = map[string]string{}
		}
		f.failed[n.Server] = n.Text
	case NoticeStarted:
		delete(f.failed, n.Server) // it recovered before anyone was told
	}
}

// Take returns the kept failures once, a line a server in name order.
func (f *Failures) Take() []string {
	f.mu.Lock()
	failed := f.failed
	f.failed = nil
	f.mu.Unlock()
	var out []string
	for _, name := range slices.Sorted(maps.Keys(failed)) {
		out = append(out, fmt.Sprintf("MCP server %s: %s", name, failed[name]))
	}
	return out
}
