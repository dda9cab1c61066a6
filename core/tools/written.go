package tools

import (
	"context"
	"fmt"
	"strings"
)

// maxWrittenDiff caps the difference a note shows.
const maxWrittenDiff = 4000

// editorReader is an FS that can say whether its reads see the editor's
// buffers.
type editorReader interface{ ReadsEditor() bool }

// CheckWritten reads back the files a change set wrote when they went
// through an editor (a client FS): an editor may save its buffer otherwise
// than sent (codecompanion.nvim adds a blank line at the end). The read
// tracking then follows what the file holds, so the next edit is not
// refused as stale, and each note says how it differs from the change.
// Local writes are exact and are not read back, nor are writes to an
// editor whose reads do not go through it (the disk may lag its buffer).
func (w *Workspace) CheckWritten(ctx context.Context, changes []FileChange) []string {
	f, _ := w.fileSystem()
	if e, ok := f.(editorReader); !ok || !e.ReadsEditor() {
		return nil
	}
	var notes []string
	for _, c := range changes {
		if c.Op == OpDelete || c.Link != "" {
			continue
		}
		rel := c.Path
		if c.MoveTo != "" {
			rel = c.MoveTo
		}
		abs, _, err := w.Resolve(rel)
		if err != nil {
			continue
		}
		got, err := w.ReadFile(ctx, abs)
		if err != nil {
			notes = append(notes, fmt.Sprintf("%s was written, but reading it back failed (%v): check it before changing it again", rel, err))
			continue
		}
		if string(got) == c.New {
			continue
		}
		w.markSeen(abs, got)
		d := strings.TrimRight(FileChange{Path: rel, Op: OpUpdate, Old: c.New, New: string(got)}.Diff(), "\n")
		// A formatter run on save may rewrite the whole file.
		if len(d) > maxWrittenDiff {
			cut := d[:maxWrittenDiff]
			if i := strings.LastIndexByte(cut, '\n'); i > 0 {
				cut = cut[:i]
			}
			d = strings.ToValidUTF8(cut, "") + fmt.Sprintf("\n… (the difference is cut at %d of its %d bytes: read %s)", len(cut), len(d), rel)
		}
		notes = append(notes, fmt.Sprintf("The editor saved %s otherwise than sent; the file holds the editor's version, which differs from your change by:\n%s", rel, d))
	}
	return notes
}
