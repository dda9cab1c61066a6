package worktree

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// undoEntry is one file a merge wrote or removed: what it held before
// (had: it existed) and what the merge left.
type undoEntry struct {
	path          string
	before, after string
	had, left     bool
}

// undoLog records a merge's writes so that Unmerge can take them back.
type undoLog struct{ entries []undoEntry }

func (u *undoLog) note(path string, after string, left bool) {
	data, err := os.ReadFile(path)
	u.entries = append(u.entries, undoEntry{path: path, before: string(data), had: err == nil, after: after, left: left})
}

func (u *undoLog) write(path, text string) error {
	u.note(path, text, true)
	return write(path, text)
}

func (u *undoLog) remove(path string) error {
	u.note(path, "", false)
	return os.Remove(path)
}

// Unmerge takes back the last merge (gm) of task n in this host: each file
// it wrote or removed is put back as it was, unless the user changed it
// since (those are named and left alone).
func (m *Manager) Unmerge(n int) (string, error) {
	m.mu.Lock()
	u := m.undo[n]
	delete(m.undo, n)
	m.mu.Unlock()
	if u == nil {
		return "", fmt.Errorf("task %d: no merge of it to take back in this editor", n)
	}
	var restored, kept []string
	var errs []error
	for i := len(u.entries) - 1; i >= 0; i-- {
		e := u.entries[i]
		data, err := os.ReadFile(e.path)
		rel, _ := filepath.Rel(m.opts.Root, e.path)
		if exists := err == nil; exists != e.left || string(data) != e.after {
			kept = append(kept, rel)
			continue
		}
		if e.had {
			err = write(e.path, e.before)
		} else {
			err = os.Remove(e.path)
		}
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
			continue
		}
		restored = append(restored, rel)
	}
	m.mu.Lock()
	if l := m.live[n]; l != nil {
		l.rec.Merged = false
		rec := l.rec
		m.mu.Unlock()
		m.saveRecord(rec)
	} else {
		m.mu.Unlock()
		if rec, err := m.Get(n); err == nil {
			rec.Merged = false
			m.saveRecord(rec)
		}
	}
	msg := fmt.Sprintf("task %d's merge taken back: %d files restored", n, len(restored))
	if len(kept) > 0 {
		msg += fmt.Sprintf("; changed since, left as they are: %s", strings.Join(kept, ", "))
	}
	return msg, errors.Join(errs...)
}
