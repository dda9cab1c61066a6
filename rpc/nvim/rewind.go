package nvimhost

import (
	"context"
	"time"
)

// rewindRequest lists the turns `:Coder rewind` picks from: what
// /rewind N takes, and a picker line. The rewind itself is the /rewind N
// command, so the transcript shows where it happened.
func (h *host) rewindRequest() ([]map[string]any, error) {
	h.waitOpened()
	sess, err := h.session()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out := []map[string]any{}
	for _, t := range sess.RewindTurns(ctx) {
		out = append(out, map[string]any{"n": t.N, "label": t.Label()})
	}
	return out, nil
}
