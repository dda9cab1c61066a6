package gitsnap

import (
	"fmt"
	"strings"
)

// Report says what Undo did. Paths are relative to the workspace root.
type Report struct {
	Restored    []string          // files written back to their content before the turn
	Removed     []string          // files the turn created, deleted again
	Skipped     []string          // files left alone; SkipReasons says why
	SkipReasons map[string]string // path → reason
	// Others changed during the turn but not by it (UndoOwn only):
	// another session or the user. They are left alone.
	Others []string
	// TooLarge are untracked files the turn may have changed that were
	// over the snapshot size limit, so not snapshotted: neither restored
	// nor removed.
	TooLarge []string
}

// String is a short account of the undo for the user, one line per file.
func (rep Report) String() string {
	if len(rep.Restored)+len(rep.Removed)+len(rep.Skipped)+len(rep.Others)+len(rep.TooLarge) == 0 {
		return "nothing to undo: the turn changed no files"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "restored %d, removed %d, skipped %d file(s)", len(rep.Restored), len(rep.Removed), len(rep.Skipped))
	if len(rep.Others) > 0 {
		fmt.Fprintf(&b, "; %d changed by others left alone", len(rep.Others))
	}
	b.WriteByte('\n')
	for _, p := range rep.Restored {
		fmt.Fprintf(&b, "  restored %s\n", p)
	}
	for _, p := range rep.Removed {
		fmt.Fprintf(&b, "  removed  %s\n", p)
	}
	for _, p := range rep.Skipped {
		fmt.Fprintf(&b, "  skipped  %s: %s\n", p, rep.SkipReasons[p])
	}
	for _, p := range rep.Others {
		fmt.Fprintf(&b, "  left     %s: changed during the turn, but not by it (another session or you)\n", p)
	}
	for _, p := range rep.TooLarge {
		fmt.Fprintf(&b, "  not covered %s: larger than the snapshot size limit, so not snapshotted; neither restored nor removed\n", p)
	}
	return b.String()
}

func (rep *Report) skip(path, reason string) {
	rep.Skipped = append(rep.Skipped, path)
	rep.SkipReasons[path] = reason
}
