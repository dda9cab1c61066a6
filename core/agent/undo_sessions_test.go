package agent

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/provider"
)

// openOn opens a yolo session on root with its own fake model server.
func openOn(t *testing.T, root string) (*Session, *fakellm.Server, *recorder) {
	t.Helper()
	srv := fakellm.New()
	t.Cleanup(srv.Close)
	cfg := config.Defaults()
	cfg.Model = "test-model"
	cfg.Mode = "yolo"
	cfg.Workflow.AutoVerifyAfterEdit = false
	rec := &recorder{}
	sess, err := Open(Options{
		Config:   cfg,
		Root:     root,
		Provider: provider.NewOpenAI(provider.Options{BaseURL: srv.URL(), APIKey: "k", BaseBackoff: time.Millisecond, MaxAttempts: 2}),
		OnEvent:  rec.handle,
		Prompter: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sess.Close)
	return sess, srv, rec
}

func runOn(t *testing.T, s *Session, input string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := s.Run(ctx, input); err != nil {
		t.Error(err)
	}
}

// Eight sessions write in one workspace while the first one's turn runs,
// and the user edits a file too: /undo in a session takes back that
// session's files only and names the others.
func TestUndoTakesBackOnlyThisSessionsFiles(t *testing.T) {
	root := gitRepo(t)
	writeFile(t, filepath.Join(root, ".gitignore"), ".coder\n") // as in this project
	writeFile(t, filepath.Join(root, "shared.txt"), "v1\n")

	first, firstSrv, firstRec := openOn(t, root)
	asked := make(chan struct{})
	release := make(chan struct{})
	firstSrv.SetScript(func(req fakellm.Request) fakellm.Reply {
		switch last := req.Messages[len(req.Messages)-1]; {
		case last.Role == llm.RoleUser:
			return fakellm.Reply{ToolCalls: []llm.ToolCall{call("w", "write", map[string]any{"path": "mine.txt", "content": "mine\n"})}}
		case last.Role == llm.RoleTool && last.ToolCallID == "w":
			close(asked)
			<-release
			return fakellm.Reply{ToolCalls: []llm.ToolCall{call("b", "bash", map[string]any{"command": "echo cmd > by-command.txt && echo v2 > shared.txt"})}}
		default:
			return fakellm.Reply{Content: "done"}
		}
	})
	done := make(chan struct{})
	go func() {
		defer close(done)
		runOn(t, first, "write mine")
	}()
	select {
	case <-asked: // the first turn wrote, and waits on the model
	case <-done:
		t.Fatal("the first turn ended before asking the model")
	}
	// Its first snapshot was taken before its write.
	if len(snapshotRefs(t, root)) == 0 {
		t.Fatal("the first turn took no snapshot before writing")
	}

	others := make([]*Session, 7)
	otherRecs := make([]*recorder, 7)
	var wg sync.WaitGroup
	for i := range others {
		s, srv, rec := openOn(t, root)
		others[i], otherRecs[i] = s, rec
		srv.Enqueue(
			fakellm.Reply{ToolCalls: []llm.ToolCall{call("w", "write", map[string]any{"path": fmt.Sprintf("other%d.txt", i), "content": "theirs\n"})}},
			fakellm.Reply{Content: "done"},
		)
		wg.Add(1)
		go func() {
			defer wg.Done()
			runOn(t, s, "write yours")
		}()
	}
	wg.Wait()
	writeFile(t, filepath.Join(root, "user.txt"), "the user's\n")
	close(release)
	<-done
	for _, p := range []string{"mine.txt", "by-command.txt", "other0.txt", "other6.txt", "user.txt"} {
		if read(t, filepath.Join(root, p)) == "<missing>" {
			t.Fatalf("%s was not written", p)
		}
	}
	for _, ev := range firstRec.find(event.Notice) {
		if strings.Contains(ev.Text, "snapshot failed") {
			t.Errorf("notice: %s", ev.Text)
		}
	}

	runOn(t, first, "/undo")
	out := ""
	if outs := firstRec.find(event.CommandOutput); len(outs) > 0 {
		out = outs[len(outs)-1].Text
	}
	for p, want := range map[string]string{
		"mine.txt":       "<missing>",
		"by-command.txt": "<missing>",
		"shared.txt":     "v1\n",
		"user.txt":       "the user's\n",
		"other0.txt":     "theirs\n",
		"other6.txt":     "theirs\n",
	} {
		if got := read(t, filepath.Join(root, p)); got != want {
			t.Errorf("after /undo in the first session, %s = %q, want %q", p, got, want)
		}
	}
	for _, p := range []string{"user.txt", "other0.txt", "other6.txt"} {
		if !strings.Contains(out, p) {
			t.Errorf("/undo does not name %s, changed by others:\n%s", p, out)
		}
	}

	// Another session's /undo takes back its own file only.
	runOn(t, others[3], "/undo")
	if got := read(t, filepath.Join(root, "other3.txt")); got != "<missing>" {
		t.Errorf("other3.txt after its session's /undo = %q", got)
		logSession(t, others[3], otherRecs[3])
	}
	for _, p := range []string{"other2.txt", "other4.txt", "user.txt"} {
		if read(t, filepath.Join(root, p)) == "<missing>" {
			t.Errorf("%s removed by another session's /undo", p)
		}
	}
}

// logSession logs what a session said and its turns' undo state.
func logSession(t *testing.T, s *Session, rec *recorder) {
	t.Helper()
	for _, k := range []event.Kind{event.Notice, event.Error, event.CommandOutput} {
		for _, ev := range rec.find(k) {
			t.Logf("%s: %s", k, ev.Text)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, turn := range s.turns {
		t.Logf("turn %q: snapshot %s after %s snaps %v own %+v undone %v", turn.Input, turn.Snapshot, turn.After, turn.Snaps, turn.Own, turn.Undone)
	}
}

func snapshotRefs(t *testing.T, root string) []string {
	t.Helper()
	out, err := exec.Command("git", "-C", root, "for-each-ref", "--format=%(refname)", "refs/coder-nvim/").Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(string(out))
}

// Only the last undo.keep_turns turns keep snapshot refs; a command's
// snapshots that no file needs are dropped at once.
func TestOldSnapshotsForgotten(t *testing.T) {
	f := newFixture(t, func(c *config.Config, _ *Options) {
		c.Mode = "yolo"
		c.Undo.KeepTurns = 2
	})
	for i := range 4 {
		f.srv.Enqueue(
			fakellm.Reply{ToolCalls: []llm.ToolCall{
				call("w", "write", map[string]any{"path": fmt.Sprintf("f%d.txt", i), "content": "x\n"}),
				call("b", "bash", map[string]any{"command": "true"}),
			}},
			fakellm.Reply{Content: "done"},
		)
		f.run(t, fmt.Sprintf("turn %d", i))
	}
	// Two turns: before and after each (the snapshot after the command,
	// the turn's last write, is its end).
	if refs := snapshotRefs(t, f.root); len(refs) != 4 {
		t.Errorf("%d snapshot refs, want 4: %v", len(refs), refs)
	}
	f.run(t, "/undo")
	f.run(t, "/undo")
	if got := read(t, filepath.Join(f.root, "f2.txt")); got != "<missing>" {
		t.Errorf("f2.txt = %q after two undos", got)
	}
	f.run(t, "/undo")
	if e := lastError(f); !strings.Contains(e, "nothing to undo") {
		t.Errorf("third undo, beyond keep_turns: %q", e)
	}
	if got := read(t, filepath.Join(f.root, "f1.txt")); got != "x\n" {
		t.Errorf("f1.txt = %q, a forgotten turn was undone", got)
	}
}

// A large generated file is not snapshotted, and /undo says so.
func TestUndoNamesLargeFiles(t *testing.T) {
	f := newFixture(t, func(c *config.Config, _ *Options) {
		c.Mode = "yolo"
		c.Undo.MaxFileMB = 1
	})
	f.srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{
			call("b", "bash", map[string]any{"command": "head -c 2000000 /dev/zero > big.bin && echo s > small.txt"}),
		}},
		fakellm.Reply{Content: "done"},
	)
	f.run(t, "generate")
	objects, err := exec.Command("git", "-C", f.root, "cat-file", "--batch-all-objects", "--batch-check=%(objectsize)").Output()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(objects), "2000000") {
		t.Error("the large file went into .git")
	}
	f.run(t, "/undo")
	out := lastOutput(f)
	if !strings.Contains(out, "big.bin") || !strings.Contains(out, "undo.max_file_mb") {
		t.Errorf("/undo does not name the large file and the setting:\n%s", out)
	}
	if read(t, filepath.Join(f.root, "small.txt")) != "<missing>" {
		t.Error("small.txt not removed")
	}
}

// A turn whose model only answers writes nothing, so it keeps no snapshot
// (and does not wait for one): its refs are gone once the session closes,
// and /undo still reaches the turn before it.
func TestAnswerOnlyTurnKeepsNoSnapshot(t *testing.T) {
	f := newFixture(t, func(c *config.Config, _ *Options) { c.Mode = "yolo" })
	f.srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("w", "write", map[string]any{"path": "kept.txt", "content": "x\n"})}},
		fakellm.Reply{Content: "wrote it"},
	)
	f.run(t, "write kept.txt")
	before := snapshotRefs(t, f.root)
	for i := range 3 {
		f.srv.Enqueue(fakellm.Reply{Content: fmt.Sprintf("answer %d", i)})
		f.run(t, fmt.Sprintf("question %d", i))
	}
	f.sess.Close() // waits for the dropped snapshots
	if after := snapshotRefs(t, f.root); len(after) != len(before) {
		t.Errorf("answer-only turns left snapshot refs: %d before, %d after: %v", len(before), len(after), after)
	}
	f.run(t, "/undo")
	if got := read(t, filepath.Join(f.root, "kept.txt")); got != "<missing>" {
		t.Errorf("/undo after answer-only turns: kept.txt = %q", got)
	}
}

// TestUndoWithConcurrentCommands: four sessions each write fK.txt and run
// `echo > ownK.txt` at the same moment; /undo in one never takes back
// another session's files, whatever its commands' windows overlapped.
func TestUndoWithConcurrentCommands(t *testing.T) {
	for round := range 3 {
		root := gitRepo(t)
		writeFile(t, filepath.Join(root, ".gitignore"), ".coder\n")
		const n = 4
		sessions := make([]*Session, n)
		recs := make([]*recorder, n)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for k := range n {
			s, srv, rec := openOn(t, root)
			sessions[k], recs[k] = s, rec
			srv.Enqueue(
				fakellm.Reply{ToolCalls: []llm.ToolCall{
					call("w", "write", map[string]any{"path": fmt.Sprintf("f%d.txt", k), "content": "x\n"}),
					call("b", "bash", map[string]any{"command": fmt.Sprintf("echo %d > own%d.txt", k, k)}),
				}},
				fakellm.Reply{Content: "done"},
			)
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				runOn(t, s, "write yours")
			}()
		}
		close(start)
		wg.Wait()
		runOn(t, sessions[0], "/undo")
		if got := read(t, filepath.Join(root, "f0.txt")); got != "<missing>" {
			t.Errorf("round %d: f0.txt (this session's own write) = %q after /undo", round, got)
			logSession(t, sessions[0], recs[0])
		}
		for k := 1; k < n; k++ {
			for _, p := range []string{fmt.Sprintf("f%d.txt", k), fmt.Sprintf("own%d.txt", k)} {
				if read(t, filepath.Join(root, p)) == "<missing>" {
					t.Errorf("round %d: /undo in session 0 removed %s of session %d", round, p, k)
				}
			}
		}
	}
}

// TestUndoNamesUnclaimedCommandFiles: another session writes while this
// turn's only command runs, so nothing of that command's window is
// claimed. /undo then names this turn's own file (and the other's) and
// leaves them alone, rather than answering "nothing to undo".
func TestUndoNamesUnclaimedCommandFiles(t *testing.T) {
	root := gitRepo(t)
	writeFile(t, filepath.Join(root, ".gitignore"), ".coder\n")
	a, srvA, recA := openOn(t, root)
	b, srvB, _ := openOn(t, root)
	srvA.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("b", "bash", map[string]any{
			"command": "echo a > mine.txt; while [ ! -e go.flag ]; do sleep 0.01; done; rm go.flag"})}},
		fakellm.Reply{Content: "done"},
	)
	srvB.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("w", "write", map[string]any{"path": "other.txt", "content": "b\n"})}},
		fakellm.Reply{Content: "done"},
	)
	done := make(chan struct{})
	go func() {
		defer close(done)
		runOn(t, a, "write mine")
	}()
	deadline := time.Now().Add(60 * time.Second)
	for read(t, filepath.Join(root, "mine.txt")) == "<missing>" {
		if time.Now().After(deadline) {
			t.Fatal("the command never started")
		}
		time.Sleep(5 * time.Millisecond)
	}
	runOn(t, b, "write other")
	writeFile(t, filepath.Join(root, "go.flag"), "")
	<-done
	runOn(t, a, "/undo")
	var out string
	for _, ev := range recA.find(event.CommandOutput) {
		out = ev.Text
	}
	for _, ev := range recA.find(event.Error) {
		out += ev.Text
	}
	if !strings.Contains(out, "mine.txt") || strings.Contains(out, "nothing to undo") {
		t.Errorf("/undo = %q, want mine.txt named and left alone", out)
	}
	if got := read(t, filepath.Join(root, "mine.txt")); got != "a\n" {
		t.Errorf("mine.txt = %q, an unclaimed file was taken back", got)
	}
}
