package agent

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/testrepo"
)

// gitCalls puts a git first on PATH that logs each invocation's
// subcommand, then runs the real one; the returned function counts them
// by subcommand and starts the count again. PATH is the process's: the
// test cannot run in parallel. The host resolves its git as a session
// opens: call it before.
func gitCalls(t *testing.T) func() map[string]int {
	t.Helper()
	log := testrepo.GitLog(t)
	return func() map[string]int {
		n := map[string]int{}
		for _, c := range log() {
			n[c]++
		}
		return n
	}
}

// TestCommandSnapshots: read-only commands take no snapshot, so a turn of
// five `echo`s runs no git at all, not even for the turn's first snapshot,
// which only a call that writes or runs something else takes; commands
// that may write are snapshotted before and after, the turn's first
// snapshot serving as the first command's before and a snapshot shared
// with the previous command when nothing changed between them, each at
// most four git processes; the repository's facts are learned once per
// session; /undo still takes back what they changed.
func TestCommandSnapshots(t *testing.T) {
	calls := gitCalls(t)
	f := newFixture(t, func(c *config.Config, _ *Options) { c.Mode = "default" })
	writeFile(t, filepath.Join(f.root, "kept.txt"), "kept\n")
	// The session learns the repository here, not in the first turn's
	// snapshot, which that turn may cancel before it has learned anything.
	f.run(t, "/diff")
	calls()

	var echoes []llm.ToolCall
	for i := range 5 {
		echoes = append(echoes, call(fmt.Sprintf("e%d", i), "bash", map[string]any{"command": fmt.Sprintf("echo step %d", i)}))
	}
	f.srv.Enqueue(fakellm.Reply{ToolCalls: echoes}, fakellm.Reply{Content: "done"})
	f.run(t, "echo five times")
	f.sess.bg.Wait()
	n := calls()
	if len(n) != 0 {
		t.Errorf("five read-only commands ran git %v: want none", n)
	}
	if refs := snapshotRefs(t, f.root); len(refs) != 0 {
		t.Errorf("a turn of read-only commands kept snapshots: %v", refs)
	}
	calls()

	f.sess.SetMode("yolo")
	f.srv.Enqueue(fakellm.Reply{ToolCalls: []llm.ToolCall{
		call("a", "bash", map[string]any{"command": "echo a > a.txt"}),
		call("m", "bash", map[string]any{"command": "mkdir -p ."}), // changes nothing
		call("b", "bash", map[string]any{"command": "echo b > b.txt"}),
	}}, fakellm.Reply{Content: "done"})
	f.run(t, "write two files")
	n = calls()
	// The turn's first snapshot, taken for the first command, is also
	// its before; then the after of each command and the before of the
	// next two: 6 of at most 4 processes; mkdir's shares both of its
	// snapshots with a.txt's after, so three commits and refs; one
	// diff-tree per command that changed something.
	if n["add"] != 6 || n["update-ref"] != 3 || n["commit-tree"] != 0 || n["diff-tree"] != 2 {
		t.Errorf("three commands ran git %v: want 6 add, 3 update-ref, 0 commit-tree, 2 diff-tree", n)
	}
	total := 0
	for _, c := range n {
		total += c
	}
	if total > 6*4+2 {
		t.Errorf("three commands ran %d git processes %v, want at most %d", total, n, 6*4+2)
	}
	if n["rev-parse"] != 0 || n["config"] != 0 {
		t.Errorf("the session learned the repository again: %v", n)
	}
	if refs := snapshotRefs(t, f.root); len(refs) != 3 {
		t.Errorf("%d snapshot refs, want 3 (before, after a.txt, after b.txt): %v", len(refs), refs)
	}
	calls()
	f.run(t, "/undo")
	for _, p := range []string{"a.txt", "b.txt"} {
		if got := read(t, filepath.Join(f.root, p)); got != "<missing>" {
			t.Errorf("%s = %q after /undo", p, got)
		}
	}
	if got := read(t, filepath.Join(f.root, "kept.txt")); got != "kept\n" {
		t.Errorf("kept.txt = %q after /undo", got)
	}
}

// TestEditPrefetchesSnapshot: a turn's first snapshot starts as soon as
// the model's answer names a call that edits files, while the call's
// arguments still stream, so the write does not wait for a whole
// snapshot after them; /undo covers the write.
func TestEditPrefetchesSnapshot(t *testing.T) {
	var atBegin map[string]int
	var calls func() map[string]int
	logged := gitCalls(t)
	f := newFixture(t, func(c *config.Config, o *Options) {
		c.Mode = "yolo"
		next := o.OnEvent
		o.OnEvent = func(ev event.Event) {
			if ev.Kind == event.ToolCallBegin && atBegin == nil && calls != nil {
				atBegin = calls()
			}
			next(ev)
		}
	})
	f.run(t, "/diff") // learns the repository
	logged()
	calls = logged
	args := map[string]any{"path": "new.txt", "content": strings.Repeat("streamed slowly\n", 20)}
	// ~35 chunks of arguments 40 ms apart: over a second after the name.
	f.srv.Enqueue(fakellm.Reply{ToolCalls: []llm.ToolCall{call("w", "write", args)}, Chunk: 10, Interval: 40 * time.Millisecond}, fakellm.Reply{Content: "done"})
	f.run(t, "write new.txt")
	if atBegin["add"] == 0 {
		t.Errorf("git before the write's call began: %v; want the turn's snapshot started while its arguments streamed", atBegin)
	}
	f.run(t, "/undo")
	if got := read(t, filepath.Join(f.root, "new.txt")); got != "<missing>" {
		t.Errorf("new.txt after /undo = %q", got)
	}
}
