//go:build unix

package tools

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/coder-nvim/coder-nvim/core/proc"
)

// watchScript is the group watcher: it reads "+ID" (a process group a
// command runs in) and "-ID" (that group is gone) until its input ends,
// then kills every group still registered (the indices of g, a sparse
// array). Its input is a pipe whose write end only the host holds: the
// kernel closes it when the host dies, however it dies.
const watchScript = `while read -r op; do case $op in +*) g[${op#+}]=1 ;; -*) unset "g[${op#-}]" ;; esac; done; for id in "${!g[@]}"; do kill -KILL -- "-$id"; done 2>/dev/null`

// groupWatch is one watcher for the calls of a Shells, started with its
// first spare (or call): one bash per session rather than a watcher forked
// beside every call, which on two cores cost about as much as a quick
// command itself.
//
// A group is registered before its command is written and forgotten once
// it was killed and its bash reaped. The one window is between that reap
// and the "-ID" line: a host dying there has the watcher kill a group id
// that is free, and that Linux hands out again only after the whole pid
// range has been used.
type groupWatch struct {
	bash   string // the host's (hostpath)
	mu     sync.Mutex
	in     *os.File      // the watcher's input; nil until started
	pid    int           // the watcher's
	gone   chan struct{} // closed once that watcher is reaped
	live   map[int]bool  // registered groups, told again to a new watcher
	closed bool
}

// add registers the process group pgid, starting a watcher when none
// runs (the first call, or a replacement failed to start).
func (g *groupWatch) add(pgid int) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return errors.New("the shells are closed")
	}
	if g.live == nil {
		g.live = map[int]bool{}
	}
	g.live[pgid] = true
	if g.sendLocked("+"+strconv.Itoa(pgid)+"\n") == nil {
		return nil
	}
	if err := g.startLocked(); err != nil {
		delete(g.live, pgid)
		return err
	}
	return nil
}

// ready starts the watcher unless one runs, so that the first call does
// not wait for it.
func (g *groupWatch) ready() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed || g.runningLocked() {
		return
	}
	g.startLocked() //nolint:errcheck // add tries again and reports
}

// remove forgets the process group pgid: it was killed, and its bash
// reaped.
func (g *groupWatch) remove(pgid int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.live[pgid] {
		return
	}
	delete(g.live, pgid)
	g.sendLocked("-" + strconv.Itoa(pgid) + "\n") //nolint:errcheck // a dead watcher has nothing to forget
}

// close lets the watcher go: it ends once it has read what is left, and
// kills whatever is still registered (nothing, once every call ended).
func (g *groupWatch) close() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.closed = true
	if g.in != nil {
		g.in.Close()
		g.in = nil
	}
}

// runningLocked reports whether a watcher was started and was not reaped.
func (g *groupWatch) runningLocked() bool {
	if g.in == nil {
		return false
	}
	select {
	case <-g.gone:
		return false
	default:
		return true
	}
}

// sendLocked writes lines to the watcher; it fails when none runs, and
// when one stopped reading (a command stopped it) has let its pipe fill:
// a new one takes over rather than every call waiting.
func (g *groupWatch) sendLocked(lines string) error {
	if !g.runningLocked() {
		return errors.New("no group watcher runs")
	}
	g.in.SetWriteDeadline(time.Now().Add(watchWriteTimeout)) //nolint:errcheck // a pipe has deadlines
	_, err := g.in.WriteString(lines)
	return err
}

// replace starts a new watcher at once when the one that ended (gone)
// was still the current one: a command killed it, and the groups running
// must not outlive a host killed before the next call.
func (g *groupWatch) replace(gone chan struct{}) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed || g.gone != gone {
		return
	}
	g.startLocked() //nolint:errcheck // add tries again and reports
}

// watchWriteTimeout bounds a write to a watcher that does not read.
const watchWriteTimeout = 2 * time.Second

// startLocked starts a watcher and registers every live group with it.
func (g *groupWatch) startLocked() error {
	if g.in != nil {
		g.in.Close()
		g.in = nil
	}
	bash := g.bash
	if bash == "" {
		return errors.New("start the process-group watcher: no bash")
	}
	r, w, err := os.Pipe() // close-on-exec: no command holds the write end
	if err != nil {
		return fmt.Errorf("start the process-group watcher: %w", err)
	}
	cmd := exec.Command(bash, "-c", watchScript)
	cmd.Stdin = r
	cmd.Dir = "/"
	// Nothing of the user's environment: BASH_ENV would run a script.
	cmd.Env = []string{}
	// Its own group: a terminal's Ctrl-C to the host's group, or a
	// command killing its own group, must not end it.
	proc.OwnGroup(cmd)
	err = cmd.Start()
	r.Close()
	if err != nil {
		w.Close()
		return fmt.Errorf("start the process-group watcher: %w", err)
	}
	gone := make(chan struct{})
	go func() {
		proc.Wait(cmd) //nolint:errcheck // it ends when told to, or killed
		close(gone)
		g.replace(gone)
	}()
	g.in, g.pid, g.gone = w, cmd.Process.Pid, gone
	var lines strings.Builder
	for id := range g.live {
		lines.WriteString("+" + strconv.Itoa(id) + "\n")
	}
	if err := g.sendLocked(lines.String()); err != nil {
		return fmt.Errorf("start the process-group watcher: %w", err)
	}
	return nil
}
