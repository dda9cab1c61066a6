package agent

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/agent/compact"
	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/store"
	"github.com/google/uuid"
)

// TestHistoryItemLimitSummary: past history.max_items the oldest messages
// are sent as one summary, and once the snapshot holds them they leave
// memory; the whole history is still there, read back from disk, also
// after a resume.
func TestHistoryItemLimitSummary(t *testing.T) {
	f := newFixture(t, func(c *config.Config, _ *Options) { c.History.MaxItems = 6 })
	for i := range 3 {
		f.srv.Enqueue(fakellm.Reply{Content: fmt.Sprintf("answer %d", i)})
		f.run(t, fmt.Sprintf("question %d", i))
	}
	// The fourth turn's request would carry 8 messages: summarised first.
	f.srv.Enqueue(fakellm.Reply{Content: "SUMMARY of questions 0-2"}, fakellm.Reply{Content: "answer 3"})
	f.run(t, "question 3")
	reqs := f.srv.Requests()
	if len(reqs) != 5 || !strings.Contains(reqs[3].Messages[0].Content, "summarise a coding session") {
		t.Fatalf("%d requests; the fourth is not the summary call", len(reqs))
	}
	last := reqs[4].Messages
	if len(last) > 6 {
		t.Errorf("the request after the summary has %d messages, want at most max_items 6", len(last))
	}
	var summarised bool
	for _, m := range last {
		summarised = summarised || strings.Contains(m.Content, "SUMMARY of questions 0-2") && strings.HasPrefix(m.Content, compact.Note)
		if m.Content == "answer 0" {
			t.Error("a summarised message was sent again")
		}
	}
	if !summarised {
		t.Errorf("no summary message in %+v", last)
	}
	c := f.sess.rootConv
	c.mu.Lock()
	base, held := c.base, len(c.history)
	c.mu.Unlock()
	if base == 0 {
		t.Errorf("the summarised messages are still in memory (%d held)", held)
	}
	want := []string{"question 0", "answer 0", "question 1", "answer 1", "question 2", "answer 2", "question 3", "answer 3"}
	check := func(s *Session, when string) {
		var got []string
		for _, m := range s.History("") {
			got = append(got, m.Content)
		}
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("%s: history %q", when, got)
		}
		if n := s.Conversations()[0].Messages; n != len(want) {
			t.Errorf("%s: %d messages counted, want %d", when, n, len(want))
		}
	}
	check(f.sess, "live")
	// The next turn is past the bound again: summarised again, from the
	// earlier summary and the messages after it, read from memory.
	f.srv.Enqueue(fakellm.Reply{Content: "SECOND SUMMARY"}, fakellm.Reply{Content: "answer 4"})
	f.run(t, "question 4")
	want = append(want, "question 4", "answer 4")
	reqs = f.srv.Requests()
	if len(reqs) != 7 || !strings.Contains(fmt.Sprint(reqs[5].Messages), "SUMMARY of questions 0-2") {
		t.Errorf("second summary call: %d requests", len(reqs))
	}
	if m := reqs[6].Messages; len(m) > 6 || !strings.Contains(fmt.Sprint(m), "SECOND SUMMARY") {
		t.Errorf("request after the second summary: %+v", m)
	}
	check(f.sess, "live, summarised twice")
	id := f.sess.ID()
	f.sess.Close()
	again := mustResume(t, f.sess.opts, id)
	check(again, "resumed")
	again.rootConv.mu.Lock()
	if again.rootConv.base == 0 {
		t.Error("resumed with the summarised messages in memory")
	}
	again.rootConv.mu.Unlock()
}

// longSession writes a session of n messages whose view summarises all
// but the last 20, as a long compacted session leaves it.
func longSession(t *testing.T, root string, n int) string {
	t.Helper()
	id := uuid.NewString()
	at := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
	snap := &store.Snapshot{ID: id, CreatedAt: at, UpdatedAt: at, Model: "m", Mode: "default", Layout: store.LayoutBounded,
		Messages: []llm.Message{{Role: llm.RoleSystem, Content: "sys"}}}
	for i := 0; len(snap.Messages) <= n; i++ {
		call := fmt.Sprint("call", i)
		snap.Messages = append(snap.Messages,
			llm.Message{Role: llm.RoleUser, Content: fmt.Sprintf("request %d: %s", i, strings.Repeat("words ", 20))},
			llm.Message{Role: llm.RoleAssistant, Content: strings.Repeat("answer text ", 10),
				ToolCalls: []llm.ToolCall{{ID: call, Type: "function", Function: llm.FunctionCall{Name: "read", Arguments: `{"path":"src/file.go"}`}}}},
			llm.Message{Role: llm.RoleTool, ToolCallID: call, Name: "read", Content: strings.Repeat("output line\n", 10)},
			llm.Message{Role: llm.RoleAssistant, Content: "done"})
	}
	snap.Messages = snap.Messages[:n+1]
	snap.Views = []store.View{{Upto: n - 20, Summary: "summary of the earlier work"}}
	if err := store.Save(store.Dir(root), snap); err != nil {
		t.Fatal(err)
	}
	return id
}

// resumePeak resumes session id and returns the peak live heap while it
// did and the heap it holds after, both above the heap before.
func resumePeak(t *testing.T, opts Options, id string) (peak, held uint64) {
	t.Helper()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	before := ms.HeapAlloc
	var top atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // samples the heap while the resume runs
		defer wg.Done()
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if m.HeapAlloc > top.Load() {
				top.Store(m.HeapAlloc)
			}
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	s, err := Resume(opts, SessionID(id))
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	if n := len(s.History("")); n != s.Conversations()[0].Records {
		t.Fatalf("history read back: %d messages, want %d", n, s.Conversations()[0].Records)
	}
	return top.Load() - min(top.Load(), before), ms.HeapAlloc - min(ms.HeapAlloc, before)
}

// TestResume50000MessagesBoundedMemory: resuming a compacted session of
// 50,000 messages holds about what one of 5,000 does: the summarised
// messages stay on disk. Peak and held heap are compared, not times.
func TestResume50000MessagesBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 50,000-message session")
	}
	defer debug.SetGCPercent(debug.SetGCPercent(10)) // garbage does not hide what is held
	root := t.TempDir()
	opts := Options{Config: config.Defaults(), Root: root, Provider: instantProvider{}}
	opts.Config.StateDir = t.TempDir()
	small, large := longSession(t, root, 5_000), longSession(t, root, 50_000)
	peakS, heldS := resumePeak(t, opts, small)
	peakL, heldL := resumePeak(t, opts, large)
	t.Logf("5,000 messages: peak +%d KiB, held +%d KiB; 50,000: peak +%d KiB, held +%d KiB", peakS>>10, heldS>>10, peakL>>10, heldL>>10)
	// All 50,000 in memory would be about 10 MiB more than 5,000.
	const slack = 2 << 20
	if heldL > 2*heldS+slack {
		t.Errorf("held heap grows with the session: +%d KiB for 50,000 messages, +%d KiB for 5,000", heldL>>10, heldS>>10)
	}
	if peakL > 3*peakS+slack {
		t.Errorf("peak heap grows with the session: +%d KiB for 50,000 messages, +%d KiB for 5,000", peakL>>10, peakS>>10)
	}
}

// TestHistoryBoundedEveryPolicy: the summarised messages leave memory
// under every storage policy, not only full; what reads them back is
// what the policy stored: the text (full, ttl), headers (headers_only),
// nothing (none). Saves after the eviction keep working.
func TestHistoryBoundedEveryPolicy(t *testing.T) {
	for _, policy := range []string{"full", "ttl", "headers_only", "none"} {
		t.Run(policy, func(t *testing.T) {
			f := newFixture(t, func(c *config.Config, _ *Options) {
				c.History.MaxItems = 6
				c.Storage.Policy = policy
			})
			for i := range 3 {
				f.srv.Enqueue(fakellm.Reply{Content: fmt.Sprintf("answer %d", i)})
				f.run(t, fmt.Sprintf("question %d", i))
			}
			f.srv.Enqueue(fakellm.Reply{Content: "SUMMARY"}, fakellm.Reply{Content: "answer 3"})
			f.run(t, "question 3")
			f.srv.Enqueue(fakellm.Reply{Content: "SECOND SUMMARY"}, fakellm.Reply{Content: "answer 4"})
			f.run(t, "question 4")
			c := f.sess.rootConv
			c.mu.Lock()
			base, held := c.base, len(c.history)
			c.mu.Unlock()
			if base == 0 {
				t.Fatalf("the summarised messages are still in memory (%d held)", held)
			}
			want := []string{"question 0", "answer 0", "question 1", "answer 1", "question 2", "answer 2", "question 3", "answer 3", "question 4", "answer 4"}
			var got []string
			for _, m := range f.sess.History("") {
				got = append(got, m.Content)
			}
			switch policy {
			case "full", "ttl":
				if strings.Join(got, "|") != strings.Join(want, "|") {
					t.Errorf("history %q", got)
				}
			case "headers_only":
				if len(got) != len(want) {
					t.Fatalf("history %q: want %d messages", got, len(want))
				}
				for i, g := range got {
					if i < base && !strings.HasPrefix(g, "[not stored") || i >= base && g != want[i] {
						t.Errorf("message %d (%d on disk only): %q", i, base, g)
					}
				}
			case "none":
				if strings.Join(got, "|") != strings.Join(want[base:], "|") {
					t.Errorf("history %q, want the %d messages in memory", got, held)
				}
			}
			if n := f.sess.Conversations()[0].Messages; n != len(want) {
				t.Errorf("%d messages counted, want %d", n, len(want))
			}
			if errs := f.rec.find(event.Error); len(errs) > 0 {
				t.Errorf("errors: %+v", errs)
			}
		})
	}
}
