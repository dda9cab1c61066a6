package worktree

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/coder-nvim/coder-nvim/core/atomicfile"
)

// State is where a task stands.
type State string

// The states a task passes through. Interrupted is a task whose host died
// while it ran (no process holds its session); it can be continued.
const (
	Queued      State = "queued"
	Running     State = "running"
	Waiting     State = "waiting" // an approval waits for the user
	Done        State = "done"
	Failed      State = "failed"
	Stopped     State = "stopped"
	Interrupted State = "interrupted"
)

// Active reports whether the task is (or was, before a host died) at work.
func (s State) Active() bool { return s == Queued || s == Running || s == Waiting }

// Record is what is kept of a task in the host's state directory, one
// file a task (<n>.json), so that several hosts and `exec --worktree` runs
// of one repository never overwrite each other's.
type Record struct {
	N       int    `json:"n"`
	Title   string `json:"title"`
	Prompt  string `json:"prompt"`
	Branch  string `json:"branch"`
	Base    string `json:"base"`    // the commit the branch started from
	Path    string `json:"path"`    // the worktree's top level
	Root    string `json:"root"`    // the task's workspace: Path, or the same subdirectory of it as the user's
	Mode    string `json:"mode"`    // the mode it runs in
	Session string `json:"session"` // its Session's id ("" until it opened)
	State   State  `json:"state"`
	Error   string `json:"error,omitempty"`
	// Counts as of the end of its last turn, for a list that needs no
	// open session.
	Turns     int     `json:"turns"`
	TokensIn  int     `json:"tokens_in"`
	TokensOut int     `json:"tokens_out"`
	Cost      float64 `json:"cost,omitempty"`
	Files     int     `json:"files"`
	Added     int     `json:"added"`
	Removed   int     `json:"removed"`
	Merged    bool    `json:"merged,omitempty"`
	// Note is told to the task's model with its next input (the hunks a
	// merge left out, and why), kept until a turn of the task starts so
	// that a host restart in between loses none.
	Note    string    `json:"note,omitempty"`
	Created time.Time `json:"created"`
	Started time.Time `json:"started,omitempty"`
	Ended   time.Time `json:"ended,omitempty"`
}

// Elapsed is how long the task has worked: until it ended, or until now.
func (r Record) Elapsed(now time.Time) time.Duration {
	if r.Started.IsZero() {
		return 0
	}
	end := r.Ended
	if end.IsZero() || r.State.Active() {
		end = now
	}
	return end.Sub(r.Started).Round(time.Second)
}

// records is the directory of one repository's task records.
type records struct{ dir string }

func (rs records) file(n int) string { return filepath.Join(rs.dir, strconv.Itoa(n)+".json") }

// claim reserves the next free task number with an exclusive create, so
// two processes starting tasks at once get different numbers; taken
// numbers are skipped.
func (rs records) claim(taken func(int) bool) (int, error) {
	if err := os.MkdirAll(rs.dir, 0o700); err != nil {
		return 0, fmt.Errorf("task records: %w", err)
	}
	n := 1
	if all, err := rs.list(); err == nil {
		for _, r := range all {
			n = max(n, r.N+1)
		}
	}
	for ; ; n++ {
		if taken(n) {
			continue
		}
		f, err := os.OpenFile(rs.file(n), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return 0, fmt.Errorf("task records: %w", err)
		}
		f.Close()
		return n, nil
	}
}

func (rs records) save(r Record) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(rs.file(r.N), append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("task %d record: %w", r.N, err)
	}
	return nil
}

func (rs records) remove(n int) error {
	if err := os.Remove(rs.file(n)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("task %d record: %w", n, err)
	}
	return nil
}

// list reads every record, by number. A file that does not parse (a
// claim not yet written, a torn write of another version) is skipped.
func (rs records) list() ([]Record, error) {
	ents, err := os.ReadDir(rs.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("task records: %w", err)
	}
	var out []Record
	for _, e := range ents {
		name, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok {
			continue
		}
		if _, err := strconv.Atoi(name); err != nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join(rs.dir, e.Name()))
		if err != nil {
			continue
		}
		var r Record
		if json.Unmarshal(data, &r) != nil || r.N == 0 {
			continue
		}
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].N < out[j].N })
	return out, nil
}
