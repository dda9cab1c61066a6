package agent

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/agent/command"
	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/policy"
	"github.com/coder-nvim/coder-nvim/core/store"
	"github.com/google/uuid"
)

// fakeClock is a settable clock with a hand-driven clean-up ticker.
type fakeClock struct {
	mu    sync.Mutex
	now   time.Time
	every time.Duration // the interval the session asked for
	c     chan time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC), c: make(chan time.Time)}
}

func (f *fakeClock) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

func (f *fakeClock) advance(d time.Duration) {
	f.mu.Lock()
	f.now = f.now.Add(d)
	f.mu.Unlock()
}

func (f *fakeClock) Tick(d time.Duration) (<-chan time.Time, func()) {
	f.mu.Lock()
	f.every = d
	f.mu.Unlock()
	return f.c, func() {}
}

// tick runs one clean-up pass and waits until it is done: the channel is
// unbuffered and the session reads it from one goroutine, so the second
// send is taken only once the first tick's pass has returned.
func (f *fakeClock) tick() {
	f.c <- f.Now()
	f.c <- f.Now()
}

func (f *fakeClock) use(o *Options) { o.Now, o.Tick = f.Now, f.Tick }

// TestCleanupPrunesApprovalsOnTimer: an expired "always" approval is
// dropped by the timer, with no lookup, and on close.
func TestCleanupPrunesApprovalsOnTimer(t *testing.T) {
	for _, tc := range []struct {
		name    string
		ttl     string
		advance time.Duration
		tick    bool
		want    int
	}{
		{"expired, ticked", "10m", 11 * time.Minute, true, 0},
		{"expired, no tick yet", "10m", 11 * time.Minute, false, 1},
		{"live, ticked", "10m", 9 * time.Minute, true, 1},
		{"no ttl, ticked", "", 24 * time.Hour, true, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk := newFakeClock()
			f := newFixture(t, func(c *config.Config, o *Options) {
				c.Approval.TTL = tc.ttl
				clk.use(o)
			})
			s := f.sess
			s.memory.Remember([]policy.Key{{Tool: "bash", Path: []string{"make"}, TTL: s.policy.Remember.TTL}})
			clk.advance(tc.advance)
			if tc.tick {
				clk.tick()
			}
			if got := s.memory.Len(); got != tc.want {
				t.Errorf("%d approvals held, want %d", got, tc.want)
			}
			s.Close()
			if wantClosed := min(tc.want, boolInt(tc.advance < 10*time.Minute || tc.ttl == "")); s.memory.Len() != wantClosed {
				t.Errorf("after close %d approvals held, want %d", s.memory.Len(), wantClosed)
			}
		})
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestCleanupInterval(t *testing.T) {
	for _, tc := range []struct {
		approval, storage string
		want              time.Duration
	}{
		{"", "", time.Minute},
		{"2m", "", 30 * time.Second},
		{"", "8s", 2 * time.Second},
		{"1h", "2s", time.Second}, // floor
	} {
		clk := newFakeClock()
		newFixture(t, func(c *config.Config, o *Options) {
			c.Approval.TTL, c.Storage.TTL = tc.approval, tc.storage
			if tc.storage != "" {
				c.Storage.Policy = "ttl"
			}
			clk.use(o)
		})
		if clk.every != tc.want {
			t.Errorf("approval ttl %q, storage ttl %q: every %s, want %s", tc.approval, tc.storage, clk.every, tc.want)
		}
	}
}

// TestCleanupAgesTTLStorageOnTimer: while a ttl session sits idle, the
// timer takes its old text off disk, and degrades another ttl session
// of the workspace that nobody holds.
func TestCleanupAgesTTLStorageOnTimer(t *testing.T) {
	clk := newFakeClock()
	f := newFixture(t, func(c *config.Config, o *Options) {
		c.Storage.Policy, c.Storage.TTL = "ttl", "1h"
		clk.use(o)
	})
	dir := store.Dir(f.root)
	// Another session, written just now under ttl, held by no process.
	other := uuid.NewString()
	if err := store.Save(dir, &store.Snapshot{ID: other, CreatedAt: clk.Now(), UpdatedAt: clk.Now(), Storage: store.PolicyTTL, StorageTTL: "1h",
		Messages: []llm.Message{{Role: llm.RoleUser, Content: "other " + storageMarker}}}); err != nil {
		t.Fatal(err)
	}
	f.srv.Enqueue(fakellm.Reply{Content: "answer " + storageMarker})
	f.run(t, "question "+storageMarker)
	onDisk := func(id string) bool {
		data, err := os.ReadFile(filepath.Join(dir, id+".json"))
		if err != nil {
			t.Fatal(err)
		}
		j, _ := os.ReadFile(filepath.Join(dir, id+".journal"))
		return strings.Contains(string(data)+string(j), storageMarker)
	}
	own := f.sess.ID()
	clk.advance(30 * time.Minute)
	clk.tick()
	if !onDisk(string(own)) || !onDisk(other) {
		t.Fatalf("text within its ttl was taken off disk (own %v, other %v)", onDisk(string(own)), onDisk(other))
	}
	clk.advance(31 * time.Minute)
	if !onDisk(string(own)) || !onDisk(other) {
		t.Fatal("text went off disk before any pass: the test would prove nothing")
	}
	clk.tick()
	if onDisk(string(own)) {
		t.Error("the live session's text is still on disk past its ttl after a clean-up pass")
	}
	if onDisk(other) {
		t.Error("the idle session's text is still on disk past its ttl after a clean-up pass")
	}
	if snap, err := store.Load(dir, other); err != nil || !snap.Degraded {
		t.Errorf("the idle session was not degraded: %v", err)
	}
	// The live session goes on, its history whole in memory.
	if h := f.sess.History(""); len(h) != 2 || !strings.Contains(h[1].Content, storageMarker) {
		t.Errorf("history in memory: %+v", h)
	}
	// A later pass with nothing new to age writes nothing.
	before, _ := os.Stat(filepath.Join(dir, string(own)+".json"))
	clk.advance(time.Minute)
	clk.tick()
	after, _ := os.Stat(filepath.Join(dir, string(own)+".json"))
	if !after.ModTime().Equal(before.ModTime()) || after.Size() != before.Size() {
		t.Error("a pass with nothing to age rewrote the snapshot")
	}
}

// TestCleanupAgesEvictedTTLText: under ttl, text that left memory (the
// part a summary replaced) is aged on disk too: a pass past its ttl
// rewrites the snapshot headers-only there, though every message still
// in memory is within its ttl. The session's or only a conversation's
// policy; without turns, the conversation is one no user turn started
// (as one the model created): only its messages' times say it is due.
func TestCleanupAgesEvictedTTLText(t *testing.T) {
	for _, tc := range []struct {
		name         string
		child, turns bool
	}{{"session", false, true}, {"conversation", true, true}, {"conversation without turns", true, false}} {
		child := tc.child
		t.Run(tc.name, func(t *testing.T) {
			clk := newFakeClock()
			f := newFixture(t, func(c *config.Config, o *Options) {
				c.Storage.Policy, c.Storage.TTL = "ttl", "1h"
				if child {
					c.Storage.Policy = "full"
				}
				c.History.MaxItems = 6
				clk.use(o)
			})
			id := f.sess.RootConversation()
			if child {
				var err error
				if id, _, err = f.sess.NewConversation(t.Context(), []command.Setting{{Key: "storage", Value: "ttl"}}, ""); err != nil {
					t.Fatal(err)
				}
			}
			run := func(input string) {
				t.Helper()
				if _, err := f.sess.SubmitTo(id, input); err != nil {
					t.Fatal(err)
				}
				f.sess.Wait()
			}
			f.srv.Enqueue(fakellm.Reply{Content: "answer " + storageMarker})
			run("question " + storageMarker)
			clk.advance(30 * time.Minute)
			for i := range 3 {
				f.srv.Enqueue(fakellm.Reply{Content: "SUMMARY"}, fakellm.Reply{Content: "answer"})
				run("question " + strings.Repeat("x", i+1))
			}
			c := f.sess.convs[id]
			c.mu.Lock()
			base := c.base
			c.mu.Unlock()
			if base < 2 {
				t.Fatalf("the first turn is still in memory (base %d)", base)
			}
			dir := store.Dir(f.root)
			onDisk := func() bool {
				data, err := os.ReadFile(filepath.Join(dir, string(f.sess.ID())+".json"))
				if err != nil {
					t.Fatal(err)
				}
				j, _ := os.ReadFile(filepath.Join(dir, string(f.sess.ID())+".journal"))
				return strings.Contains(string(data)+string(j), storageMarker)
			}
			if !tc.turns {
				f.sess.mu.Lock()
				f.sess.turns = nil
				f.sess.mu.Unlock()
			}
			clk.advance(31 * time.Minute)
			if !onDisk() {
				t.Fatal("the text went off disk before any pass: the test would prove nothing")
			}
			clk.tick()
			if onDisk() {
				t.Error("text that left memory is still on disk past its ttl after a clean-up pass")
			}
			h := f.sess.History(id)
			if len(h) < 2 || !strings.HasPrefix(h[0].Content, "[not stored") {
				t.Errorf("history read back: %+v", h)
			}
		})
	}
}
