package store

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Activity is a workspace's shared record of when each session's tools
// change files: bash commands and file writes append a begin and an end
// line. A session that snapshots around a command cannot tell its own
// changes from those of another session working at the same moment; with
// this record it can see that another one was, and claim nothing of that
// window (/undo then lists those files and leaves them alone). Lines are
// appended with O_APPEND, one write each, so processes never interleave
// them.
type Activity struct {
	path string
	now  func() time.Time
}

// activityRotate is the size past which the record starts over (the old
// one stays beside it, read too, so no open window is lost).
const activityRotate = 1 << 20

// staleWindow is how long a window without an end still counts.
const staleWindow = 2 * time.Hour

// NewActivity is the activity record of the sessions in dir.
func NewActivity(dir string, now func() time.Time) *Activity {
	if now == nil {
		now = time.Now
	}
	return &Activity{path: filepath.Join(dir, "activity.log"), now: now}
}

// Begin records that session's tools start changing files; the returned
// func records the end. Errors are ignored: without the record a window
// looks shared, never private (see Overlapped).
func (a *Activity) Begin(session string) (end func()) {
	a.append("b", session)
	return func() { a.append("e", session) }
}

func (a *Activity) append(kind, session string) {
	if ownDir(filepath.Dir(a.path)) != nil {
		return // never through a link out of the workspace
	}
	if err := os.MkdirAll(filepath.Dir(a.path), 0o755); err != nil {
		return
	}
	if st, err := os.Stat(a.path); err == nil && st.Size() > activityRotate {
		_ = os.Rename(a.path, a.path+".old")
	}
	f, err := os.OpenFile(a.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintf(f, "%s %d %s\n", kind, a.now().UnixNano(), session)
}

// Overlapped reports whether another session had tools changing files at
// any moment between from and to (a window still open counts). When the
// record cannot be read it answers true: nothing is claimed on a guess.
func (a *Activity) Overlapped(session string, from, to time.Time) bool {
	open := map[string]int64{} // session → start of its open window
	overlapped := false
	readable := false
	for _, p := range []string{a.path + ".old", a.path} {
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		readable = true
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			kind, rest, _ := strings.Cut(sc.Text(), " ")
			ts, who, _ := strings.Cut(rest, " ")
			at, err := strconv.ParseInt(ts, 10, 64)
			if err != nil || who == session {
				continue
			}
			switch kind {
			case "b":
				open[who] = at
			case "e":
				if start, ok := open[who]; ok {
					delete(open, who)
					if start <= to.UnixNano() && at >= from.UnixNano() {
						overlapped = true
					}
				}
			}
		}
		f.Close()
	}
	for _, start := range open {
		// A window never closed (its process died) stops counting after
		// a while, or it would blind every later command.
		if start <= to.UnixNano() && start >= from.Add(-staleWindow).UnixNano() {
			overlapped = true
		}
	}
	return overlapped || !readable
}
