package worktree

import (
	"context"
	"fmt"
	"time"
)

// Commit commits what task n's worktree holds to its branch (exec
// --worktree does, so the branch carries the change to merge later).
func (m *Manager) Commit(ctx context.Context, n int) error {
	rec, err := m.Get(n)
	if err != nil {
		return err
	}
	return commitAll(ctx, rec.Path, m.repo.prefix, fmt.Sprintf("coder task %d: %s", n, rec.Title))
}

// Diff is task n's whole change against its base, as a patch.
func (m *Manager) Diff(ctx context.Context, n int) (string, error) {
	rec, err := m.Get(n)
	if err != nil {
		return "", err
	}
	return diff(ctx, rec.Path, m.repo.prefix, rec.Base, false)
}

// StateLabel is how a state reads in a list.
func StateLabel(s State) string {
	if s == Waiting {
		return "waiting for you"
	}
	return string(s)
}

// Header names Line's columns.
func Header() string {
	return fmt.Sprintf("%-3s %-15s %-9s %5s %11s %8s %8s %8s  %s", "#", "state", "mode", "turns", "files", "tokens", "cost", "elapsed", "title")
}

// Line is one task in a list: number, state, mode, turns, files changed
// (+/−), tokens and cost, elapsed time and title.
func Line(r Record, now time.Time) string {
	files := fmt.Sprintf("%d +%d −%d", r.Files, r.Added, r.Removed)
	cost := "-"
	if r.Cost > 0 {
		cost = fmt.Sprintf("$%.4f", r.Cost)
	}
	title := r.Title
	if r.Merged {
		title += " (merged)"
	}
	return fmt.Sprintf("%-3d %-15s %-9s %5d %11s %8s %8s %8s  %s", r.N, StateLabel(r.State), r.Mode, r.Turns, files, tokens(r.TokensIn+r.TokensOut), cost, r.Elapsed(now), title)
}

func tokens(n int) string {
	if n >= 1000 {
		return fmt.Sprintf("%.1fk", float64(n)/1000)
	}
	return fmt.Sprint(n)
}

// Total is the list's last line: how many tasks, at work, and their cost.
func Total(list []Record) string {
	var cost float64
	counts := map[State]int{}
	for _, r := range list {
		cost += r.Cost
		counts[r.State]++
	}
	return fmt.Sprintf("%d tasks: %d running, %d waiting, %d queued; total cost $%.4f", len(list), counts[Running], counts[Waiting], counts[Queued], cost)
}

// Segment is the status line's summary of the tasks at work ("⚑ 2
// running · 1 waiting"); "" when none is.
func Segment(list []Record) string {
	counts := map[State]int{}
	for _, r := range list {
		counts[r.State]++
	}
	s := ""
	for _, st := range []State{Running, Waiting, Queued} {
		if counts[st] == 0 {
			continue
		}
		if s != "" {
			s += " · "
		}
		s += fmt.Sprintf("%d %s", counts[st], st)
	}
	if s == "" {
		return ""
	}
	return "⚑ " + s
}
