package agent

import (
	"sync"

	"github.com/coder-nvim/coder-nvim/core/store"
)

// saver writes session snapshots on its own goroutine. Only the newest
// pending snapshot is written; each write is atomic and fsynced, and once
// it is durable the journal records it holds are dropped. Snapshots are
// written at the end of every task and on a few commands; messages go to
// the journal as they happen (journal.go).
type saver struct {
	dir     string
	onError func(error)
	onSaved func(*store.Snapshot) // after a snapshot is durable

	mu      sync.Mutex
	cond    *sync.Cond
	pending *saveJob
	busy    bool
}

type saveJob struct {
	snap    *store.Snapshot
	journal *store.Journal // the session's journal, nil when not open
}

func newSaver(dir string, onError func(error)) *saver {
	sv := &saver{dir: dir, onError: onError}
	sv.cond = sync.NewCond(&sv.mu)
	return sv
}

// put queues a snapshot, replacing any older one not yet written.
func (sv *saver) put(s *store.Snapshot, j *store.Journal) {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	sv.pending = &saveJob{snap: s, journal: j}
	if !sv.busy {
		sv.busy = true
		go sv.loop()
	}
}

func (sv *saver) loop() {
	sv.mu.Lock()
	for sv.pending != nil {
		job := sv.pending
		sv.pending = nil
		sv.mu.Unlock()
		err := store.Save(sv.dir, job.snap)
		if err == nil {
			err = job.journal.Absorbed(job.snap.JournalSeq)
		}
		if err != nil {
			sv.onError(err)
		} else if sv.onSaved != nil {
			sv.onSaved(job.snap)
		}
		sv.mu.Lock()
	}
	sv.busy = false
	sv.cond.Broadcast()
	sv.mu.Unlock()
}

// sync waits until every queued snapshot is durably written.
func (sv *saver) sync() {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	for sv.busy {
		sv.cond.Wait()
	}
}

// flush is sync: snapshots are fsynced as they are written.
func (sv *saver) flush() { sv.sync() }
