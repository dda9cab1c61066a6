package store

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// ErrLocked is returned by Acquire when another process holds the session.
var ErrLocked = errors.New("the session is in use by another coder-nvim process")

// holderProbe outlasts a Holder's look at a lock.
const holderProbe = 20 * time.Millisecond

// Lock is the OS lock that makes its holder the one writer of a session:
// two processes writing one session file would silently lose each other's
// turns. The kernel drops it when the process dies, also on kill -9.
type Lock struct {
	id   string
	path string
	f    *os.File
}

// ID is the locked session's id.
func (l *Lock) ID() string { return l.id }

// Acquire takes the session's lock file (<id>.lock beside <id>.json) without
// waiting: a session another process holds is refused at once with
// ErrLocked and the holder's pid.
func Acquire(dir, id string) (*Lock, error) {
	p, err := path(dir, id)
	if err != nil {
		return nil, err
	}
	if err := ensureDir(dir); err != nil {
		return nil, err
	}
	p = strings.TrimSuffix(p, ".json") + ".lock"
	// Release unlinks the file while it holds the lock; a file opened just
	// before that is no longer the one at the path, so try again.
	for attempt := range 10 {
		f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, fmt.Errorf("lock session %s: %w", id, err)
		}
		held, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("lock session %s: %w", id, err)
		}
		if !held && attempt == 0 {
			f.Close() // perhaps Holder asking: look again
			time.Sleep(holderProbe)
			continue
		}
		if !held {
			pid := readPID(f)
			f.Close()
			who := "another process"
			if pid > 0 {
				who = fmt.Sprintf("process %d", pid)
			}
			return nil, fmt.Errorf("session %s: %w (%s); one session has one writer: finish or close it there first, or start a new session", id, ErrLocked, who)
		}
		if !samePath(f, p) {
			f.Close()
			continue
		}
		// The pid is for the message of whoever is refused next.
		if err := f.Truncate(0); err == nil {
			f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
		}
		return &Lock{id: id, path: p, f: f}, nil
	}
	return nil, fmt.Errorf("lock session %s: the lock file keeps changing", id)
}

// Holder returns the pid of the process holding session id's lock, 0 when
// none does. It takes the lock for a moment to ask, so an Acquire in that
// moment is refused; Acquire looks twice before it refuses for that reason.
// A lock this process holds itself counts as held, by this pid.
func Holder(dir, id string) int {
	p, err := path(dir, id)
	if err != nil {
		return 0
	}
	f, err := os.OpenFile(strings.TrimSuffix(p, ".json")+".lock", os.O_RDWR, 0)
	if err != nil {
		return 0 // no lock file: released, or never taken
	}
	defer f.Close()
	if held, err := tryLock(f); err != nil || held {
		return 0
	}
	if pid := readPID(f); pid > 0 {
		return pid
	}
	return -1 // held, by a process that has not written its pid yet
}

// Release gives the session up. The file goes first, while still locked,
// so a later Acquire never finds a stale one.
func (l *Lock) Release() {
	if l == nil || l.f == nil {
		return
	}
	os.Remove(l.path)
	l.f.Close()
	l.f = nil
}

func readPID(f *os.File) int {
	buf := make([]byte, 32)
	n, _ := f.ReadAt(buf, 0)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(buf[:n])))
	return pid
}

// samePath reports whether f is still the file at p.
func samePath(f *os.File, p string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Stat(p)
	return err == nil && os.SameFile(a, b)
}
