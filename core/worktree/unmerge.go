package worktree

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/coder-nvim/coder-nvim/core/atomicfile"
)

// undoEntry is one file a merge wrote or removed: what it held before
// (had: it existed) and what the merge left.
type undoEntry struct {
	rel           string // beneath the user's tree
	before, after string
	had, left     bool
}

// undoLog records a merge's writes so that Unmerge can take them back.
type undoLog struct{ entries []undoEntry }

func (u *undoLog) note(root *os.Root, rel string, after string, left bool) {
	data, err := root.ReadFile(rel)
	u.entries = append(u.entries, undoEntry{rel: rel, before: string(data), had: err == nil, after: after, left: left})
}

// write and remove change the user's tree beneath root (no link out
// followed), noting what was there.
func (u *undoLog) write(root *os.Root, rel, text string) error {
	u.note(root, rel, text, true)
	return writeIn(root, rel, text)
}

func (u *undoLog) remove(root *os.Root, rel string) error {
	u.note(root, rel, "", false)
	return atomicfile.InRootError(rel, root.Remove(rel))
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
	root, err := os.OpenRoot(m.opts.Root)
	if err != nil {
		return "", err
	}
	defer root.Close()
	var restored, kept []string
	var errs []error
	for i := len(u.entries) - 1; i >= 0; i-- {
		e := u.entries[i]
		data, err := root.ReadFile(e.rel)
		rel := filepath.ToSlash(e.rel)
		if exists := err == nil; exists != e.left || string(data) != e.after {
			kept = append(kept, rel)
			continue
		}
		if e.had {
			err = writeIn(root, e.rel, e.before)
		} else {
			err = root.Remove(e.rel)
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
