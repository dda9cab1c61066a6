package agent

import (
	"slices"
	"time"

	"github.com/coder-nvim/coder-nvim/core/store"
)

// Periodic clean-up (seed 004 §8, §12): while a session lives, expired
// "always" approvals are dropped and ttl storage is aged on a timer, not
// only when an approval is looked up or a session is opened or closed.

// Cleanup interval bounds: a quarter of the shortest configured ttl,
// within these.
const (
	minCleanupEvery = time.Second
	maxCleanupEvery = time.Minute
)

// cleanupEvery is how often the clean-up pass runs for cfg's ttls.
func (s *Session) cleanupEvery() time.Duration {
	d := maxCleanupEvery
	for _, ttl := range []time.Duration{s.opts.Config.ApprovalTTL(), s.opts.Config.StorageTTL()} {
		if ttl > 0 {
			d = min(d, ttl/4)
		}
	}
	return max(d, minCleanupEvery)
}

// realTicker is Options.Tick's default: a time.Ticker.
func realTicker(d time.Duration) (<-chan time.Time, func()) {
	t := time.NewTicker(d)
	return t.C, t.Stop
}

// startCleanup runs the clean-up pass on every tick until stopCleanup.
func (s *Session) startCleanup() {
	c, stop := s.opts.Tick(s.cleanupEvery())
	s.cleanStop, s.cleanDone = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(s.cleanDone)
		defer stop()
		for {
			select {
			case <-s.cleanStop:
				return
			case <-c:
				s.cleanup()
			}
		}
	}()
}

// stopCleanup ends the timer and waits for a pass under way. Idempotent.
func (s *Session) stopCleanup() {
	s.cleanOnce.Do(func() { close(s.cleanStop) })
	<-s.cleanDone
}

// cleanup is one pass: expired approvals are dropped, this session's
// snapshot is rewritten when some of its text has outlived storage.ttl
// since the last pass, and other sessions of the workspace nobody holds
// are aged or degraded (store.Expire).
func (s *Session) cleanup() {
	s.pruneApprovals()
	if s.ageOwn() {
		s.save()
		s.saver.sync()
	}
	s.expireStored()
}

// ageOwn reports whether this session holds text under ttl written
// before storage.ttl ago that its snapshot on disk may still hold: some
// message, or turn input, written between the previous pass's cutoff
// and this one's. The cutoff is remembered.
func (s *Session) ageOwn() bool {
	ttl := s.opts.Config.StorageTTL()
	if ttl <= 0 {
		return false
	}
	cutoff := s.opts.Now().Add(-ttl).UnixMilli()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.journal == nil || s.journalID != s.id {
		return false // nothing recorded by this process yet
	}
	due := func(at int64) bool { return at != 0 && at >= s.agedCut && at < cutoff }
	need := slices.ContainsFunc(s.turns, func(t store.Turn) bool {
		return s.turnStorageLocked(t) == store.PolicyTTL && !t.Started.IsZero() && due(t.Started.UnixMilli())
	})
	for _, c := range s.order {
		if need {
			break
		}
		if store.Narrower(s.storage, c.Storage) != store.PolicyTTL {
			continue
		}
		c.mu.Lock()
		// The span of those on disk only may hold a due one.
		need = slices.ContainsFunc(c.times, due) || c.evicted[1] >= s.agedCut && c.evicted[0] != 0 && c.evicted[0] < cutoff
		c.mu.Unlock()
	}
	if need {
		s.agedCut = cutoff
	}
	return need
}

// pruneApprovals drops expired approvals (on close).
func (s *Session) pruneApprovals() {
	s.mu.Lock()
	mem := s.memory
	s.mu.Unlock()
	mem.Prune()
}
