package agent

import (
	"sync"

	"github.com/coder-nvim/coder-nvim/core/store"
)

// saver writes session snapshots on its own goroutine, so the model loop
// never waits for fsync. Only the newest pending snapshot is written; each
// write is atomic, so the file on disk is always a whole snapshot.
type saver struct {
	dir     string
	onError func(error)

	mu      sync.Mutex
	cond    *sync.Cond
	pending *store.Snapshot
	busy    bool
}

func newSaver(dir string, onError func(error)) *saver {
	sv := &saver{dir: dir, onError: onError}
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
		if err := store.Save(sv.dir, s); err != nil {
			sv.onError(err)
		}
		sv.mu.Lock()
	}
	sv.busy = false
	sv.cond.Broadcast()
	sv.mu.Unlock()
}

// flush waits until every queued snapshot is on disk.
func (sv *saver) flush() {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	for sv.busy {
		sv.cond.Wait()
	}
}
