package worktree

import (
	"context"
	"fmt"
	"strings"
)

// ReviewHunk is one hunk of a task's change as the merge review shows it.
type ReviewHunk struct {
	ID      int      `msgpack:"id" json:"id"`
	Path    string   `msgpack:"path" json:"path"`
	Line    int      `msgpack:"line" json:"line"`
	Old     []string `msgpack:"old" json:"old"`
	New     []string `msgpack:"new" json:"new"`
	Verdict string   `msgpack:"verdict" json:"verdict"` // "", "kept" or "rejected"
	Reason  string   `msgpack:"reason" json:"reason"`
}

// TaskReview is task n's change, hunk by hunk, with the user's verdicts
// so far (the shape of a turn's review, so one view serves both).
type TaskReview struct {
	N     int          `msgpack:"n" json:"n"`
	Input string       `msgpack:"input" json:"input"`
	Hunks []ReviewHunk `msgpack:"hunks" json:"hunks"`
}

// verdict is one hunk's decision, keyed by path and place so that a
// verdict survives the task's change growing elsewhere.
type verdict struct {
	keep   bool
	reason string
}

func hunkKey(path string, i int) string { return fmt.Sprintf("%s\x00%d", path, i) }

// Review lists task n's hunks with the verdicts given so far.
func (m *Manager) Review(ctx context.Context, n int) (TaskReview, error) {
	rec, err := m.Get(n)
	if err != nil {
		return TaskReview{}, err
	}
	files, err := m.Changes(ctx, n)
	if err != nil {
		return TaskReview{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	rv := TaskReview{N: n, Input: rec.Title}
	for _, fc := range files {
		for i, h := range fc.Hunks {
			rh := ReviewHunk{ID: len(rv.Hunks) + 1, Path: fc.Path, Line: h.OldStart, Old: trim(h.OldLines), New: trim(h.NewLines)}
			if v, ok := m.verdicts[n][hunkKey(fc.Path, i)]; ok {
				rh.Verdict, rh.Reason = "rejected", v.reason
				if v.keep {
					rh.Verdict, rh.Reason = "kept", ""
				}
			}
			rv.Hunks = append(rv.Hunks, rh)
		}
	}
	return rv, nil
}

func trim(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.TrimRight(l, "\n")
	}
	return out
}

// Judge records the user's verdict on hunk id (as Review numbers them)
// and returns the review as it stands.
func (m *Manager) Judge(ctx context.Context, n, id int, keep bool, reason string) (TaskReview, error) {
	files, err := m.Changes(ctx, n)
	if err != nil {
		return TaskReview{}, err
	}
	seen := 0
	for _, fc := range files {
		for i := range fc.Hunks {
			seen++
			if seen != id {
				continue
			}
			m.mu.Lock()
			if m.verdicts == nil {
				m.verdicts = map[int]map[string]verdict{}
			}
			if m.verdicts[n] == nil {
				m.verdicts[n] = map[string]verdict{}
			}
			m.verdicts[n][hunkKey(fc.Path, i)] = verdict{keep: keep, reason: reason}
			m.mu.Unlock()
			return m.Review(ctx, n)
		}
	}
	return TaskReview{}, fmt.Errorf("task %d has no hunk %d", n, id)
}

// Merge applies task n's change to the user's working tree without the
// hunks the user rejected in its review (Apply).
func (m *Manager) Merge(ctx context.Context, n int) (MergeResult, error) {
	if rec, err := m.Get(n); err != nil {
		return MergeResult{}, err
	} else if rec.State.Active() {
		return MergeResult{}, fmt.Errorf("task %d is still at work: stop it or wait, then merge", n)
	}
	files, err := m.Changes(ctx, n)
	if err != nil {
		return MergeResult{}, err
	}
	m.mu.Lock()
	accepted := map[string][]bool{}
	for _, fc := range files {
		choice := make([]bool, len(fc.Hunks))
		rejected := false
		for i := range fc.Hunks {
			v, ok := m.verdicts[n][hunkKey(fc.Path, i)]
			choice[i] = !ok || v.keep
			rejected = rejected || !choice[i]
		}
		if rejected {
			accepted[fc.Path] = choice
		}
	}
	m.mu.Unlock()
	res, err := m.Apply(ctx, n, accepted)
	if err == nil {
		m.mu.Lock()
		delete(m.verdicts, n)
		m.mu.Unlock()
	}
	return res, err
}
