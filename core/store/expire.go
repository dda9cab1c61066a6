package store

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
)

// Expire is the ttl cleanup pass: every session in dir under the ttl
// policy (its own or one of its conversations') whose last activity is
// older than its TTL is rewritten headers-only, snapshot and journal
// alike. Sessions another process holds are skipped (their holder runs
// the pass when it closes them); so are unreadable ones. It returns the
// ids it degraded.
func Expire(dir string, now time.Time) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("storage cleanup: %w", err)
	}
	var done []string
	var errs []error
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || e.IsDir() {
			continue
		}
		deg, err := expireOne(dir, id, now)
		if err != nil {
			errs = append(errs, err)
		}
		if deg {
			done = append(done, id)
		}
	}
	return done, errors.Join(errs...)
}

func expireOne(dir, id string, now time.Time) (bool, error) {
	// A cheap look first: most sessions are not ttl, or not old yet.
	s, err := peekHeader(dir, id)
	if err != nil || !s.expired(now) && !s.stale(now) {
		return false, nil
	}
	whole := s.expired(now)
	l, err := Acquire(dir, id)
	if err != nil {
		return false, nil // in use: its holder expires it
	}
	defer l.Release()
	if s, err = Resume(dir, id); err != nil {
		return false, nil
	}
	if !whole {
		// Only its oldest messages are past the ttl: rewritten
		// headers-only, the rest kept.
		s.agedAt = now
		return true, rewrite(dir, s)
	}
	return true, Degrade(dir, s)
}

// expired reports whether s keeps text its ttl policy no longer allows.
func (s *Snapshot) expired(now time.Time) bool {
	if s.Degraded {
		return false
	}
	ttl := s.Storage == PolicyTTL || s.TTLConvs
	for _, c := range s.Conversations {
		ttl = ttl || Policy(c.StoragePolicy) == PolicyTTL
	}
	d := s.ttl()
	return ttl && d > 0 && now.Sub(s.UpdatedAt) > d
}

// Degrade rewrites session s (resumed, its lock held) headers-only: the
// snapshot first, durably, then the journal it absorbed is removed.
func Degrade(dir string, s *Snapshot) error {
	s.Degraded = true
	return rewrite(dir, s)
}

// rewrite saves s (resumed, its lock held) durably, then removes the
// journal it absorbed.
func rewrite(dir string, s *Snapshot) error {
	if err := Save(dir, s); err != nil {
		return fmt.Errorf("degrade session %s: %w", s.ID, err)
	}
	jp, _ := journalPath(dir, s.ID)
	if err := os.Remove(jp); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("degrade session %s: %w", s.ID, err)
	}
	return nil
}

// peekHeader decodes a snapshot's fields up to its messages: the head of
// the file, whatever its size. The journal's last record time stands in
// for updated_at when it is newer.
func peekHeader(dir, id string) (*Snapshot, error) {
	p, err := path(dir, id)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	dec := json.NewDecoder(bufio.NewReader(f))
	if err := expectDelim(dec, '{'); err != nil {
		return nil, err
	}
	head := map[string]json.RawMessage{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		if key == "messages" {
			break
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		head[key] = raw
	}
	buf, _ := json.Marshal(head)
	var s Snapshot
	if err := json.Unmarshal(buf, &s); err != nil {
		return nil, err
	}
	if jp, err := journalPath(dir, id); err == nil {
		if fi, err := os.Stat(jp); err == nil && fi.Size() > 0 && fi.ModTime().After(s.UpdatedAt) {
			s.UpdatedAt = fi.ModTime()
		}
	}
	return &s, nil
}
