package agent

import (
	"context"
	"fmt"
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
	"github.com/coder-nvim/coder-nvim/core/store"
)

const storageMarker = "ZEBRA-MARKER-41c7"

// markerTurn runs a turn that carries storageMarker through every path
// the session records: user text (and so the turn record), assistant text,
// reasoning, tool arguments, tool output, the todo list and a compaction
// summary.
func markerTurn(t *testing.T, f *fixture) {
	t.Helper()
	f.srv.Enqueue(
		fakellm.Reply{Reasoning: "reasoning " + storageMarker, Content: "assistant " + storageMarker,
			ToolCalls: []llm.ToolCall{
				call("w1", "write", map[string]any{"path": "out.txt", "content": "args " + storageMarker + "\n"}),
				call("t1", "todo", map[string]any{"todos": []map[string]any{{"content": "todo " + storageMarker, "status": "pending"}}}),
			}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("r1", "read", map[string]any{"path": "out.txt"})}}, // its output holds the marker
		fakellm.Reply{Content: "done " + storageMarker},
	)
	f.run(t, "user "+storageMarker)
	f.srv.Enqueue(fakellm.Reply{Content: "summary " + storageMarker})
	f.run(t, "/compact")
	// The marker did go through: the model saw it come back.
	reqs := f.srv.Requests()
	var seen bool
	for _, m := range reqs[len(reqs)-1].Messages {
		seen = seen || strings.Contains(m.Content, storageMarker)
	}
	if !seen {
		t.Fatalf("the marker never reached the model: the test would prove nothing")
	}
}

// grepCoder lists the files under root/.coder holding storageMarker.
func grepCoder(t *testing.T, root string) (hits []string, files int) {
	t.Helper()
	filepath.WalkDir(filepath.Join(root, ".coder"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files++
		data, _ := os.ReadFile(p)
		if strings.Contains(string(data), storageMarker) {
			hits = append(hits, p)
		}
		return nil
	})
	return hits, files
}

func TestStoragePolicyKeepsTextOffDisk(t *testing.T) {
	for _, pol := range []string{"headers_only", "none", "full"} {
		t.Run(pol, func(t *testing.T) {
			f := newFixture(t, func(c *config.Config, o *Options) {
				c.Storage.Policy = pol
				o.AllowAsks = true
			})
			markerTurn(t, f)
			id := f.sess.ID()
			f.sess.Close()
			hits, files := grepCoder(t, f.root)
			if files == 0 {
				t.Fatal("nothing under .coder/")
			}
			if pol == "full" {
				if len(hits) == 0 {
					t.Fatal("under full the marker is nowhere: the search cannot find it")
				}
				return
			}
			if len(hits) > 0 {
				t.Fatalf("%s: the marker is on disk in %v", pol, hits)
			}
			again, err := Resume(f.sess.opts, id)
			if err != nil {
				t.Fatalf("resume of a %s session: %v", pol, err)
			}
			defer again.Close()
			if pol == "none" && len(again.History("")) != 0 {
				t.Errorf("a none session resumed with messages: %v", again.History(""))
			}
		})
	}
}

// TestUndoUnderEveryPolicy: /undo's snapshots hold workspace files, not
// conversation text, so it works whatever the session stores.
func TestUndoUnderEveryPolicy(t *testing.T) {
	for _, pol := range []string{"full", "headers_only", "none", "ttl"} {
		t.Run(pol, func(t *testing.T) {
			f := newFixture(t, func(c *config.Config, o *Options) {
				c.Storage.Policy = pol
				o.AllowAsks = true
			})
			f.srv.Enqueue(
				fakellm.Reply{ToolCalls: []llm.ToolCall{call("w1", "write", map[string]any{"path": "new.txt", "content": "x\n"})}},
				fakellm.Reply{Content: "written"})
			f.run(t, "write it")
			p := filepath.Join(f.root, "new.txt")
			if _, err := os.Stat(p); err != nil {
				t.Fatal(err)
			}
			f.run(t, "/undo")
			if _, err := os.Stat(p); !os.IsNotExist(err) {
				t.Errorf("/undo under %s left new.txt: %v", pol, err)
			}
		})
	}
}

// TestUndoAfterRestartUnderNone: a none session keeps its turns' /undo
// snapshots, so a restarted host can still undo them.
func TestUndoAfterRestartUnderNone(t *testing.T) {
	f := newFixture(t, func(c *config.Config, o *Options) {
		c.Storage.Policy = "none"
		o.AllowAsks = true
	})
	f.srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("w1", "write", map[string]any{"path": "new.txt", "content": "x\n"})}},
		fakellm.Reply{Content: "written"})
	f.run(t, "write it")
	id := f.sess.ID()
	f.sess.Close()
	again := mustResume(t, f.sess.opts, id)
	if err := again.Run(context.Background(), "/undo"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(f.root, "new.txt")); !os.IsNotExist(err) {
		t.Errorf("/undo after a restart under none left new.txt: %v", err)
	}
}

// TestConversationStoresLessThanSession: conv_create's storage_policy
// narrows what is kept of the sub-conversation; asking for more than the
// session keeps is clamped with a Notice.
func TestConversationStoresLessThanSession(t *testing.T) {
	for _, tc := range []struct {
		session, asked, want string
		clamped              bool
	}{
		{"full", "headers_only", "headers_only", false},
		{"headers_only", "full", "headers_only", true},
		{"none", "ttl", "none", true},
		{"full", "none", "none", false},
	} {
		t.Run(tc.session+"/"+tc.asked, func(t *testing.T) {
			f := newFixture(t, func(c *config.Config, o *Options) { c.Storage.Policy = tc.session })
			f.srv.Enqueue(
				fakellm.Reply{ToolCalls: []llm.ToolCall{call("c1", "conv_create", map[string]any{
					"user_instruction": "review it", "storage_policy": tc.asked})}},
				fakellm.Reply{Reasoning: "sub " + storageMarker, Content: "LGTM"},
				fakellm.Reply{Content: "reviewed"},
			)
			f.run(t, "get it reviewed")
			convs := f.sess.Conversations()
			if len(convs) != 2 {
				t.Fatalf("conversations: %+v", convs)
			}
			f.sess.mu.Lock()
			got := f.sess.convs[convs[1].ID].Storage
			f.sess.mu.Unlock()
			if string(got) != tc.want {
				t.Errorf("sub-conversation stores %q, want %q", got, tc.want)
			}
			var notice bool
			for _, ev := range f.rec.events {
				notice = notice || strings.Contains(ev.Text, "clamped to "+tc.want)
			}
			if notice != tc.clamped {
				t.Errorf("clamp notice %v, want %v", notice, tc.clamped)
			}
			f.sess.Close()
			if hits, _ := grepCoder(t, f.root); len(hits) > 0 {
				t.Errorf("the sub-conversation's reasoning is on disk in %v", hits)
			}
		})
	}
}

func TestConvCreateRejectsUnknownStoragePolicy(t *testing.T) {
	f := newFixture(t, nil)
	f.srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("c1", "conv_create", map[string]any{
			"user_instruction": "x", "storage_policy": "forever"})}},
		fakellm.Reply{Content: "ok"},
	)
	f.run(t, "go")
	reqs := f.srv.Requests()
	if res := toolMsg(reqs[len(reqs)-1].Messages, "c1"); !strings.Contains(res.Content, "storage_policy") {
		t.Errorf("conv_create with an unknown storage policy answered %q", res.Content)
	}
}

// TestSubConversationTextOffDisk: under headers_only and none a
// sub-conversation's user_instructions and todos stay off disk too.
func TestSubConversationTextOffDisk(t *testing.T) {
	for _, pol := range []string{"headers_only", "none"} {
		t.Run(pol, func(t *testing.T) {
			f := newFixture(t, func(c *config.Config, o *Options) {
				c.Storage.Policy = pol
				o.AllowAsks = true
			})
			f.srv.Enqueue(
				fakellm.Reply{ToolCalls: []llm.ToolCall{call("c", "conv_create", map[string]any{"user_instruction": "brief " + storageMarker})}},
				fakellm.Reply{ToolCalls: []llm.ToolCall{call("t", "todo", map[string]any{"todos": []map[string]any{{"content": "child todo " + storageMarker, "status": "pending"}}})}},
				fakellm.Reply{Content: "child done"},
				fakellm.Reply{Content: "root done"},
			)
			f.run(t, "delegate")
			// Journal records are on disk now; the snapshot after Close.
			if hits, _ := grepCoder(t, f.root); len(hits) > 0 {
				t.Fatalf("%s: the marker is on disk in %v", pol, hits)
			}
			f.sess.Close()
			if hits, _ := grepCoder(t, f.root); len(hits) > 0 {
				t.Fatalf("%s: the marker is on disk in %v", pol, hits)
			}
		})
	}
}

// TestTTLAgesEachMessage: under ttl a session in constant use still drops
// the text of its old messages: each is aged from when it was written, not
// the session from its last update.
func TestTTLAgesEachMessage(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	f := newFixture(t, func(c *config.Config, o *Options) {
		c.Storage.Policy, c.Storage.TTL = "ttl", "4s"
		o.Now = clock
	})
	old, recent := "OLD-"+storageMarker, "RECENT-"+storageMarker
	f.srv.Enqueue(fakellm.Reply{Content: "first answer " + old})
	f.run(t, "first "+old)
	for i := range 3 { // touched every 2.5 s
		advance(2500 * time.Millisecond)
		f.srv.Enqueue(fakellm.Reply{Content: fmt.Sprintf("answer %d %s", i, recent)})
		f.run(t, fmt.Sprintf("turn %d %s", i, recent))
	}
	files := map[string]string{}
	filepath.WalkDir(filepath.Join(f.root, ".coder"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			data, _ := os.ReadFile(p)
			files[p] = string(data)
		}
		return nil
	})
	var all string
	for _, data := range files {
		all += data
	}
	if strings.Contains(all, old) {
		for p, data := range files {
			if i := strings.Index(data, old); i >= 0 {
				t.Logf("%s: %s", p, data[max(0, i-300):min(len(data), i+100)])
			}
		}
		t.Errorf("the first turn's text is still on disk 7.5 s later under a 4 s ttl")
	}
	if !strings.Contains(all, "answer 2 "+recent) {
		t.Errorf("the latest turn's text is not on disk: ttl dropped recent text")
	}
	// Resumed, the old messages are headers only, the recent ones whole.
	id := f.sess.ID()
	f.sess.Close()
	again := mustResume(t, f.sess.opts, id)
	var hist string
	for _, m := range again.History("") {
		hist += m.Content + "\n"
	}
	if strings.Contains(hist, old) || !strings.Contains(hist, "answer 2 "+recent) {
		t.Errorf("resumed history:\n%s", hist)
	}
}

// TestClosedConversationTurnsKeepItsPolicy: the input typed to a
// headers_only conversation of a full session stays off disk after the
// conversation is closed, when its turns are written under the session's
// policy.
func TestClosedConversationTurnsKeepItsPolicy(t *testing.T) {
	f := newFixture(t, nil)
	id, _, err := f.sess.NewConversation(t.Context(), []command.Setting{{Key: "storage", Value: "headers_only"}}, "")
	if err != nil {
		t.Fatal(err)
	}
	f.srv.Enqueue(fakellm.Reply{Content: "ok"})
	if _, err := f.sess.SubmitTo(id, "secret "+storageMarker); err != nil {
		t.Fatal(err)
	}
	f.sess.Wait()
	if err := f.sess.CloseConversation(id); err != nil {
		t.Fatal(err)
	}
	f.srv.Enqueue(fakellm.Reply{Content: "root"})
	f.run(t, "something else") // the root's turn: the session is saved again
	f.sess.Close()
	dir := store.Dir(f.root)
	for _, name := range []string{string(f.sess.ID()) + ".json", string(f.sess.ID()) + ".journal"} {
		if data, _ := os.ReadFile(filepath.Join(dir, name)); strings.Contains(string(data), storageMarker) {
			t.Errorf("%s holds the closed headers_only conversation's text", name)
		}
	}
}
