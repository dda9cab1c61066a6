//go:build unix

package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/store"
)

// running is an exec host started in the background.
type running struct {
	cmd    *exec.Cmd
	stderr *bytes.Buffer
	done   chan struct{}
}

func startExec(t *testing.T, bin, dir, baseURL string, env []string, args ...string) *running {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"exec", "--cwd", dir}, args...)...)
	cmd.Env = append(os.Environ(), "OPENAI_BASE_URL="+baseURL, "OPENAI_API_KEY=test", "XDG_CONFIG_HOME="+t.TempDir())
	cmd.Env = append(cmd.Env, env...)
	r := &running{cmd: cmd, stderr: &bytes.Buffer{}, done: make(chan struct{})}
	cmd.Stderr = r.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		cmd.Wait()
		close(r.done)
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-r.done
	})
	return r
}

// wait waits for the host to exit and returns its exit code.
func (r *running) wait(t *testing.T) int {
	t.Helper()
	select {
	case <-r.done:
	case <-time.After(60 * time.Second):
		t.Fatalf("the host did not exit; stderr:\n%s", r.stderr)
	}
	return r.cmd.ProcessState.ExitCode()
}

// waitFor polls cond until it holds; the deadline is for a loaded machine.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func exists(path string) func() bool {
	return func() bool { _, err := os.Stat(path); return err == nil }
}

// pidGone reports whether pid has exited (a zombie counts: killed, not yet
// reaped by init).
func pidGone(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return true
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	return err != nil || strings.Contains(string(stat), ") Z ")
}

func readPID(t *testing.T, path string) int {
	t.Helper()
	waitFor(t, path, func() bool {
		data, err := os.ReadFile(path)
		return err == nil && strings.HasSuffix(string(data), "\n")
	})
	data, _ := os.ReadFile(path)
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if !pidGone(pid) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	return pid
}

// onlySession is the one session saved in dir.
func onlySession(t *testing.T, dir string) *store.Snapshot {
	t.Helper()
	list, err := store.List(store.Dir(dir))
	if err != nil || len(list) != 1 {
		t.Fatalf("want one loadable session, got %v, %v", list, err)
	}
	// What is on disk is the snapshot plus its journal.
	snap, err := store.Resume(store.Dir(dir), list[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

func toolResult(snap *store.Snapshot, callID string) (string, bool) {
	for _, m := range snap.Messages {
		if m.Role == llm.RoleTool && m.ToolCallID == callID {
			return m.Content, true
		}
	}
	return "", false
}

// TestExecOneWriterPerSession: while one exec continues a session, a
// second `exec --resume` of it is refused at once with a clear message
// and a non-zero exit, and the first one's turn is kept whole.
func TestExecOneWriterPerSession(t *testing.T) {
	bin := hostBinary(t)
	srv := fakellm.New()
	defer srv.Close()
	dir := gitRepo(t)
	srv.Enqueue(fakellm.Reply{Content: "first answer"})
	r := execHost(t, bin, dir, srv.URL(), "first")
	if r.code != 0 {
		t.Fatalf("first turn: exit %d\n%s", r.code, r.stderr)
	}
	id := sessionID(t, r.stderr)

	block := "touch a.started; while [ ! -e release ]; do sleep 0.05; done; echo released"
	srv.Enqueue(fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("b1", "bash", map[string]any{"command": block})}}, fakellm.Reply{Content: "A done"})
	a := startExec(t, bin, dir, srv.URL(), nil, "--yes", "--resume", id, "turn A")
	waitFor(t, "A's tool to start", exists(filepath.Join(dir, "a.started")))

	b := execHost(t, bin, dir, srv.URL(), "--yes", "--resume", id, "turn B")
	if b.code == 0 || !strings.Contains(b.stderr, "in use by another coder-nvim process") || !strings.Contains(b.stderr, fmt.Sprint(a.cmd.Process.Pid)) {
		t.Errorf("second writer: exit %d, stderr:\n%s", b.code, b.stderr)
	}

	os.WriteFile(filepath.Join(dir, "release"), nil, 0o644)
	if code := a.wait(t); code != 0 {
		t.Fatalf("A: exit %d\n%s", code, a.stderr)
	}
	snap := onlySession(t, dir)
	var users []string
	for _, m := range snap.Messages {
		if m.Role == llm.RoleUser {
			users = append(users, m.Content)
		}
	}
	if strings.Join(users, "|") != "first|turn A" || snap.Messages[len(snap.Messages)-1].Content != "A done" {
		t.Errorf("session after A: users %q, last %+v", users, snap.Messages[len(snap.Messages)-1])
	}
	if _, err := os.Stat(filepath.Join(store.Dir(dir), id+".lock")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock file left after a clean exit: %v", err)
	}

	// Free again: B's turn now runs.
	srv.Enqueue(fakellm.Reply{Content: "B done"})
	if b = execHost(t, bin, dir, srv.URL(), "--resume", id, "turn B"); b.code != 0 {
		t.Errorf("after A ended: exit %d\n%s", b.code, b.stderr)
	}
}

// toolThatWaits is a bash call that leaves a foreground and a background
// process and says when both run, by the host's pids: inside the
// sandbox's PID namespace $$ and $! are the namespace's, while the fork
// server's shells read the host's /proc/self.
const toolThatWaits = "sh -c 'read -r p _ < /proc/self/stat; echo $p > bg.pid; exec sleep 300' & sh -c 'read -r p _ < /proc/self/stat; echo $p > fg.pid; exec sleep 300'"

// TestExecStopSignals: SIGTERM (how Neovim stops the host) and SIGHUP
// stop exec like Ctrl+C: the running command's group is killed, its result
// is written, the session is saved, and exec exits non-zero.
func TestExecStopSignals(t *testing.T) {
	bin := hostBinary(t)
	srv := fakellm.New()
	defer srv.Close()
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := gitRepo(t)
			srv.Reset()
			srv.Enqueue(fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("w1", "bash", map[string]any{"command": toolThatWaits})}})
			h := startExec(t, bin, dir, srv.URL(), nil, "--yes", "wait")
			bg, fg := readPID(t, filepath.Join(dir, "bg.pid")), readPID(t, filepath.Join(dir, "fg.pid"))
			h.cmd.Process.Signal(sig)
			if code := h.wait(t); code == 0 {
				t.Errorf("exit 0 after %v; stderr:\n%s", sig, h.stderr)
			}
			snap := onlySession(t, dir)
			if got, ok := toolResult(snap, "w1"); !ok || !strings.Contains(got, "[canceled") {
				t.Errorf("tool result = %q (found %v); want the canceled result", got, ok)
			}
			if len(snap.Started) != 0 {
				t.Errorf("started calls left: %v", snap.Started)
			}
			waitFor(t, "the tool's processes to die", func() bool { return pidGone(bg) && pidGone(fg) })
		})
	}
}

// TestExecKilledWhileToolRuns: kill -9 of the host ends the running
// command's whole process group, and resume answers the cut call with
// "outcome unknown", never "did not run".
func TestExecKilledWhileToolRuns(t *testing.T) {
	bin := hostBinary(t)
	srv := fakellm.New()
	defer srv.Close()
	dir := gitRepo(t)
	srv.Enqueue(fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("k1", "bash", map[string]any{"command": toolThatWaits})}})
	h := startExec(t, bin, dir, srv.URL(), nil, "--yes", "wait")
	bg, fg := readPID(t, filepath.Join(dir, "bg.pid")), readPID(t, filepath.Join(dir, "fg.pid"))
	h.cmd.Process.Signal(syscall.SIGKILL)
	h.wait(t)
	waitFor(t, "the tool's processes to die with the host", func() bool { return pidGone(bg) && pidGone(fg) })

	id := onlySession(t, dir).ID
	srv.Enqueue(fakellm.Reply{Content: "checked"})
	r := execHost(t, bin, dir, srv.URL(), "--resume", id, "go on")
	if r.code != 0 {
		t.Fatalf("resume: exit %d\n%s", r.code, r.stderr)
	}
	reqs := srv.Requests()
	var got string
	for _, m := range reqs[len(reqs)-1].Messages {
		if m.Role == llm.RoleTool && m.ToolCallID == "k1" {
			got = m.Content
		}
	}
	if got != "outcome unknown: the host stopped while this ran; check before running it again" {
		t.Errorf("the cut call is answered %q", got)
	}
}

// TestExecKilledAtSubmit: the user's message is on disk before the turn's
// slow steps. A git that never returns stands for a slow workspace
// snapshot, which the turn's first write waits for; the host is killed
// while it runs.
func TestExecKilledAtSubmit(t *testing.T) {
	bin := hostBinary(t)
	srv := fakellm.New()
	defer srv.Close()
	dir := gitRepo(t)
	shim := t.TempDir()
	mark := filepath.Join(shim, "git.pid")
	script := fmt.Sprintf("#!/bin/sh\necho $$ > %q\nexec sleep 300\n", mark)
	if err := os.WriteFile(filepath.Join(shim, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	srv.Enqueue(fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("w1", "write", map[string]any{"path": "note.txt", "content": "x\n"})}})
	h := startExec(t, bin, dir, srv.URL(), []string{"PATH=" + shim + string(os.PathListSeparator) + os.Getenv("PATH")}, "--yes", "remember this prompt")
	readPID(t, mark) // the first git call of the turn has started
	h.cmd.Process.Signal(syscall.SIGKILL)
	h.wait(t)
	snap := onlySession(t, dir)
	found := false
	for _, m := range snap.Messages {
		found = found || m.Role == llm.RoleUser && m.Content == "remember this prompt"
	}
	if !found {
		t.Errorf("messages on disk: %+v", snap.Messages)
	}
	if _, err := os.Stat(filepath.Join(dir, "note.txt")); err == nil {
		t.Error("the write ran before the turn's snapshot was taken")
	}
}

// TestExecKilledBetweenJournalAndSnapshot: messages go to the journal as
// they happen and the snapshot is rewritten only at the end of the task; a
// kill -9 in between (here: while the second model request hangs) loses
// none of them, and resume sends the tool's real result.
func TestExecKilledBetweenJournalAndSnapshot(t *testing.T) {
	bin := hostBinary(t)
	srv := fakellm.New()
	defer srv.Close()
	dir := gitRepo(t)
	srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("j1", "write", map[string]any{"path": "note.txt", "content": "journaled\n"})}},
		fakellm.Reply{Hang: true})
	h := startExec(t, bin, dir, srv.URL(), nil, "--yes", "write the note")
	waitFor(t, "the second model request", func() bool { return len(srv.Requests()) >= 2 })
	h.cmd.Process.Signal(syscall.SIGKILL)
	h.wait(t)

	list, err := store.List(store.Dir(dir))
	if err != nil || len(list) != 1 {
		t.Fatalf("sessions: %v, %v", list, err)
	}
	id := list[0].ID
	// The kill came before the task's snapshot: the result is in the
	// journal only.
	snapOnly, err := store.Load(store.Dir(dir), id)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := toolResult(snapOnly, "j1"); ok {
		t.Fatalf("the snapshot already holds the result: the kill did not fall between journal and snapshot")
	}
	want, ok := toolResult(onlySession(t, dir), "j1")
	if !ok || strings.Contains(want, "outcome unknown") {
		t.Fatalf("the journal lost the tool result: %q, %v", want, ok)
	}
	srv.Enqueue(fakellm.Reply{Content: "noted"})
	r := execHost(t, bin, dir, srv.URL(), "--resume", id, "go on")
	if r.code != 0 {
		t.Fatalf("resume: exit %d\n%s", r.code, r.stderr)
	}
	reqs := srv.Requests()
	var got string
	var users int
	for _, m := range reqs[len(reqs)-1].Messages {
		if m.Role == llm.RoleTool && m.ToolCallID == "j1" {
			got = m.Content
		}
		if m.Role == llm.RoleUser {
			users++
		}
	}
	if got != want || users != 2 {
		t.Errorf("resumed request: result of j1 %q (want %q), %d user messages (want 2, none doubled)", got, want, users)
	}
}

// TestSessionFileSurvivesKill9 kills exec mid-turn, repeatedly, while it
// writes snapshots after every message: the file on disk always loads. The
// kills come at moments observed, not timed: right after the first save,
// and once the second and the third model request arrived.
func TestSessionFileSurvivesKill9(t *testing.T) {
	bin := hostBinary(t)
	srv := fakellm.New()
	defer srv.Close()
	dir := gitRepo(t)
	saved := func(n int) func() bool {
		return func() bool {
			entries, _ := os.ReadDir(store.Dir(dir))
			count := 0
			for _, e := range entries {
				if strings.HasSuffix(e.Name(), ".json") {
					count++
				}
			}
			return count > n
		}
	}
	for i := range 5 {
		// Many quick tool calls: a snapshot after each message.
		var calls []llm.ToolCall
		for j := range 40 {
			calls = append(calls, toolCall(fmt.Sprintf("c%d_%d", i, j), "ls", map[string]any{"path": "."}))
		}
		srv.Enqueue(fakellm.Reply{ToolCalls: calls}, fakellm.Reply{ToolCalls: calls}, fakellm.Reply{Content: strings.Repeat("slow ", 400), Chunk: 5, Delay: 5 * time.Millisecond})
		before := len(srv.Requests())
		killAt := []func() bool{
			saved(i),
			func() bool { return len(srv.Requests()) >= before+2 },
			func() bool { return len(srv.Requests()) >= before+3 },
		}[i%3]
		h := startExec(t, bin, dir, srv.URL(), nil, "list files")
		waitFor(t, fmt.Sprintf("kill point %d", i), func() bool {
			select {
			case <-h.done:
				return true // ended before the kill point: still checked below
			default:
			}
			return killAt()
		})
		h.cmd.Process.Signal(syscall.SIGKILL)
		h.wait(t)
		list, err := store.List(store.Dir(dir))
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != i+1 {
			t.Fatalf("after kill %d: %d loadable sessions, want %d", i, len(list), i+1)
		}
		srv.Reset()
	}
}
