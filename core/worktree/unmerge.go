package worktree

import (
	"encoding/json"
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
	Path   string `json:"path"` // beneath the user's tree
	Before string `json:"before"`
	After  string `json:"after"`
	Had    bool   `json:"had"`
	Left   bool   `json:"left"`
}

// undoLog records a merge's writes so that Unmerge can take them back;
// it is kept beside the task's record (<n>.undo.json), so a later host
// can too.
type undoLog struct {
	Entries []undoEntry `json:"entries"`
}

func (u *undoLog) note(root *os.Root, rel string, after string, left bool) {
	data, err := root.ReadFile(rel)
	u.Entries = append(u.Entries, undoEntry{Path: rel, Before: string(data), Had: err == nil, After: after, Left: left})
}

func (rs records) undoFile(n int) string {
	return filepath.Join(rs.dir, fmt.Sprintf("%d.undo.json", n))
}

func (rs records) saveUndo(n int, u *undoLog) error {
	data, err := json.Marshal(u)
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(rs.undoFile(n), data, 0o600)
}

func (rs records) loadUndo(n int) *undoLog {
	data, err := os.ReadFile(rs.undoFile(n))
	if err != nil {
		return nil
	}
	var u undoLog
	if json.Unmarshal(data, &u) != nil {
		return nil
	}
	return &u
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

// Unmerge takes back the last merge (gm) of task n: each file
// it wrote or removed is put back as it was, unless the user changed it
// since (those are named and left alone).
func (m *Manager) Unmerge(n int) (string, error) {
	m.mu.Lock()
	u := m.undo[n]
	delete(m.undo, n)
	m.mu.Unlock()
	if u == nil {
		u = m.recs.loadUndo(n)
	}
	os.Remove(m.recs.undoFile(n)) //nolint:errcheck // taken back once
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
	for i := len(u.Entries) - 1; i >= 0; i-- {
		e := u.Entries[i]
		data, err := root.ReadFile(e.Path)
		rel := filepath.ToSlash(e.Path)
		if exists := err == nil; exists != e.Left || string(data) != e.After {
			kept = append(kept, rel)
			continue
		}
		if e.Had {
			err = writeIn(root, e.Path, e.Before)
		} else {
			err = root.Remove(e.Path)
		}
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
			continue
		}
		restored = append(restored, rel)
	}
	m.setMerged(n, false)
	msg := fmt.Sprintf("task %d's merge taken back: %d files restored", n, len(restored))
	if len(kept) > 0 {
		msg += fmt.Sprintf("; changed since, left as they are: %s", strings.Join(kept, ", "))
	}
	return msg, errors.Join(errs...)
}
