package agent

import (
	"sync"

	"github.com/coder-nvim/coder-nvim/core/store"
)

// saver writes session snapshots on its own goroutine. Only the newest
// pending snapshot is written; each write is atomic, so the file on disk is
// always a whole snapshot. Writes skip fsync: the loop waits for them at a
// few points (a kill -9 must lose nothing), and the kernel keeps a written
// file when the process dies; sync makes the last one survive the machine
// too, at the end of every task.
type saver struct {
	dir     string
	onError func(error)

	mu       sync.Mutex
	cond     *sync.Cond
	pending  *store.Snapshot
	busy     bool
	unsynced map[string]bool // session ids written since their last fsync
}

func newSaver(dir string, onError func(error)) *saver {
	sv := &saver{dir: dir, onError: onError, unsynced: map[string]bool{}}
	sv.cond = sync.NewCond(&sv.mu)
	return sv
}

// put queues a snapshot, replacing any older one not yet written.
func (sv *saver) put(s *store.Snapshot) {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	sv.pending = s
	if !sv.busy {
		sv.busy = true
		go sv.loop()
	}
}

func (sv *saver) loop() {
	sv.mu.Lock()
	for sv.pending != nil {
		s := sv.pending
		sv.pending = nil
		sv.mu.Unlock()
		err := store.Write(sv.dir, s)
		if err != nil {
			sv.onError(err)
		}
		sv.mu.Lock()
		if err == nil {
			sv.unsynced[s.ID] = true
		}
	}
	sv.busy = false
	sv.cond.Broadcast()
	sv.mu.Unlock()
}

// flush waits until every queued snapshot is written: it survives the
// death of the process.
func (sv *saver) flush() {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	for sv.busy {
		sv.cond.Wait()
	}
}

// sync is flush, then fsync of what was written: it survives power loss.
func (sv *saver) sync() {
	sv.mu.Lock()
	for sv.busy {
		sv.cond.Wait()
	}
	ids := sv.unsynced
	sv.unsynced = map[string]bool{}
	sv.mu.Unlock()
	for id := range ids {
		if err := store.Sync(sv.dir, id); err != nil {
			sv.onError(err)
		}
	}
}
