package nvimhost

import (
	"context"
	"strings"
	"time"

	"github.com/coder-nvim/coder-nvim/core/agent"
)

// rewindRequest lists the turns `:Coder rewind` picks from: what
// /rewind N takes, and a picker line. The rewind itself is the /rewind N
// command, so the transcript shows where it happened.
func (h *host) rewindRequest() ([]map[string]any, error) {
	sess, ctx, cancel, err := h.sessionFor(30 * time.Second)
	if err != nil {
		return nil, err
	}
	defer cancel()
	out := []map[string]any{}
	for _, t := range sess.RewindTurns(ctx) {
		out = append(out, map[string]any{"n": t.N, "label": t.Label()})
	}
	return out, nil
}

// reviewRequest is turn n's hunks for `:Coder review [N]` (0: the last
// turn that changed files).
func (h *host) reviewRequest(n int) (map[string]any, error) {
	sess, ctx, cancel, err := h.sessionFor(30 * time.Second)
	if err != nil {
		return nil, err
	}
	defer cancel()
	rv, err := sess.ReviewTurn(ctx, n)
	if err != nil {
		return nil, err
	}
	return reviewMap(rv), nil
}

// reviewVerdictRequest keeps or rejects hunk id of turn n and returns the
// review as it now stands.
func (h *host) reviewVerdictRequest(n, id int, keep bool, reason string) (map[string]any, error) {
	sess, ctx, cancel, err := h.sessionFor(30 * time.Second)
	if err != nil {
		return nil, err
	}
	defer cancel()
	rv, err := sess.JudgeHunk(ctx, n, id, keep, reason)
	if err != nil {
		return nil, err
	}
	return reviewMap(rv), nil
}

func reviewMap(rv agent.TurnReview) map[string]any {
	hunks := []map[string]any{}
	for _, hk := range rv.Hunks {
		hunks = append(hunks, map[string]any{"id": hk.ID, "path": hk.Path, "line": hk.Line,
			"old": trimLines(hk.OldLines), "new": trimLines(hk.NewLines), "verdict": hk.Verdict, "reason": hk.Reason})
	}
	return map[string]any{"n": rv.N, "input": rv.Input, "hunks": hunks}
}

// trimLines are lines without their line ends, as buffers hold them.
func trimLines(ls []string) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = strings.TrimRight(l, "\r\n")
	}
	return out
}

// sessionFor is the open session and a context for a request to it that
// gives up after d.
func (h *host) sessionFor(d time.Duration) (*agent.Session, context.Context, context.CancelFunc, error) {
	h.waitOpened()
	sess, err := h.session()
	if err != nil {
		return nil, nil, nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), d)
	return sess, ctx, cancel, nil
}
