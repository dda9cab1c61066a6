package worktree

import (
	"context"
	"fmt"
	"strings"

	"github.com/coder-nvim/coder-nvim/core/agent"
	"github.com/coder-nvim/coder-nvim/core/review"
	"github.com/coder-nvim/coder-nvim/core/reviewnotes"
	"github.com/coder-nvim/coder-nvim/core/text"
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
	var left []string
	var note strings.Builder
	for _, fc := range files {
		choice := make([]bool, len(fc.Hunks))
		rejected := false
		for i, h := range fc.Hunks {
			v, ok := m.verdicts[n][hunkKey(fc.Path, i)]
			choice[i] = !ok || v.keep
			if !choice[i] {
				rejected = true
				left = append(left, leftOut(fc.Path, h.OldStart, v.reason))
				writeLeftOut(&note, fc.Path, h, v.reason)
			}
		}
		if rejected {
			accepted[fc.Path] = choice
		}
	}
	m.mu.Unlock()
	res, err := m.Apply(ctx, n, accepted)
	if err != nil {
		return res, err
	}
	m.mu.Lock()
	delete(m.verdicts, n)
	m.mu.Unlock()
	res.LeftOut = left
	if note.Len() > 0 {
		// The task's model hears it with its next input, as a turn
		// review's rejections reach the chat's: now when its session is
		// open, else when it opens (the record keeps it).
		told := fmt.Sprintf("When the user merged task %d into their working tree, they left out:\n%s%s", n, note.String(), reviewnotes.End)
		res.Told = m.updateRecord(n, func(r *Record) { r.Note = strings.TrimSpace(r.Note + "\n\n" + told) })
		m.mu.Lock()
		var sess *agent.Session
		if l := m.live[n]; l != nil {
			sess = l.sess
		}
		m.mu.Unlock()
		if sess != nil {
			sess.TellWithNextInput(told)
		}
	}
	return res, nil
}

// leftOut is a rejected hunk in one line, for the merge's summary.
func leftOut(path string, line int, reason string) string {
	s := fmt.Sprintf("%s:%d", path, line)
	if reason != "" {
		s += ": " + text.Truncate(text.FirstLine(reason), 80)
	}
	return s
}

// writeLeftOut tells the task's model one rejected hunk and why.
func writeLeftOut(b *strings.Builder, path string, h review.Hunk, reason string) {
	fmt.Fprintf(b, "your change to %s at line %d:\n", path, h.OldStart)
	reviewnotes.WriteHunk(b, h.OldLines, h.NewLines, reason)
}
