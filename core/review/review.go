// Package review splits a proposed file change into hunks and applies the
// subset the user accepted, so a front end only shows hunks and sends back
// choices; the text itself is always computed here.
package review

import (
	"fmt"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"
)

// Hunk is one contiguous changed region of a file, without context lines.
type Hunk struct {
	OldStart int      `json:"old_start" msgpack:"old_start"` // 1-based first replaced line; for a pure insertion, the line it goes before
	OldLines []string `json:"old_lines" msgpack:"old_lines"` // lines removed
	NewLines []string `json:"new_lines" msgpack:"new_lines"` // lines added
	edit     udiff.Edit
}

// Hunks returns the hunks turning old into new, in file order.
func Hunks(old, new string) []Hunk {
	edits := udiff.Lines(old, new)
	hunks := make([]Hunk, 0, len(edits))
	for _, e := range edits {
		hunks = append(hunks, Hunk{
			OldStart: strings.Count(old[:e.Start], "\n") + 1,
			OldLines: splitLines(old[e.Start:e.End]),
			NewLines: splitLines(e.New),
			edit:     e,
		})
	}
	return hunks
}

// Apply returns old with exactly the accepted hunks of Hunks(old, new)
// applied. accepted must have one entry per hunk.
func Apply(old, new string, accepted []bool) (string, error) {
	hunks := Hunks(old, new)
	if len(accepted) != len(hunks) {
		return "", fmt.Errorf("review: %d hunk choices for %d hunks", len(accepted), len(hunks))
	}
	var edits []udiff.Edit
	for i, h := range hunks {
		if accepted[i] {
			edits = append(edits, h.edit)
		}
	}
	out, err := udiff.Apply(old, edits)
	if err != nil {
		return "", fmt.Errorf("review: %w", err)
	}
	return out, nil
}

func splitLines(s string) []string {
	if s == "" {
		return []string{}
	}
	return strings.SplitAfter(strings.TrimSuffix(s, "\n"), "\n")
}
