package worktree

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/agent"
	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/provider"
)

func git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// newRepo is a repository with one commit: main.txt and .gitignore.
func newRepo(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	git(t, dir, "init", "-q", "-b", "main")
	writeFile(t, filepath.Join(dir, "main.txt"), "one\ntwo\nthree\nfour\nfive\nsix\nseven\n")
	writeFile(t, filepath.Join(dir, ".gitignore"), ".coder/\n.env\n")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "start")
	return dir
}

func call(id, name string, args any) llm.ToolCall {
	data, _ := json.Marshal(args)
	return llm.ToolCall{ID: id, Type: "function", Function: llm.FunctionCall{Name: name, Arguments: string(data)}}
}

// script answers each task by the marker in its first message: a write,
// a bash command that writes a file, then a final answer. gates hold a
// marker's first answer until closed.
type script struct {
	mu    sync.Mutex
	gates map[string]chan struct{}
}

func (s *script) reply(req fakellm.Request) fakellm.Reply {
	marker, tools := "", 0
	for _, m := range req.Messages {
		if m.Role == llm.RoleUser && marker == "" {
			if i := strings.Index(m.Content, "TASK-"); i >= 0 {
				marker = strings.Fields(m.Content[i:])[0]
			}
		}
		if m.Role == llm.RoleTool {
			tools++
		}
	}
	if marker == "" {
		return fakellm.Reply{Content: "no task"}
	}
	name := strings.ToLower(marker)
	switch tools {
	case 0:
		s.mu.Lock()
		gate := s.gates[marker]
		s.mu.Unlock()
		r := fakellm.Reply{ToolCalls: []llm.ToolCall{call("w-"+name, "write", map[string]any{"path": name + ".txt", "content": marker + " was here\n"})}}
		if gate != nil {
			r.Gate = gate
		}
		return r
	case 1:
		return fakellm.Reply{ToolCalls: []llm.ToolCall{call("b-"+name, "bash", map[string]any{"command": "echo ran > " + name + "-bash.txt"})}}
	}
	return fakellm.Reply{Content: marker + " done."}
}

type fixture struct {
	root    string
	state   string
	srv     *fakellm.Server
	script  *script
	m       *Manager
	mu      sync.Mutex
	events  []event.Event
	changes chan Record
}

func newFixture(t *testing.T, maxParallel int) *fixture {
	t.Helper()
	f := &fixture{root: newRepo(t), state: filepath.Join(t.TempDir(), "state", "coder-nvim"), srv: fakellm.New(), script: &script{gates: map[string]chan struct{}{}}, changes: make(chan Record, 256)}
	t.Cleanup(f.srv.Close)
	f.srv.SetScript(f.script.reply)
	f.m = f.manager(t, maxParallel)
	return f
}

func (f *fixture) manager(t *testing.T, maxParallel int) *Manager {
	t.Helper()
	p := provider.NewOpenAI(provider.Options{BaseURL: f.srv.URL(), APIKey: "k", BaseBackoff: time.Millisecond, MaxAttempts: 2})
	m, err := New(context.Background(), Options{
		Root: f.root, StateDir: f.state, MaxParallel: maxParallel, Copy: []string{".env"},
		Open: func(ctx context.Context, a OpenArgs) (*agent.Session, error) {
			cfg := config.Defaults()
			cfg.Model = "test-model"
			cfg.StateDir = f.state
			cfg.Mode = a.Mode
			opts := agent.Options{Config: cfg, Root: a.Root, Provider: p, OnEvent: a.OnEvent, AllowAsks: true}
			if a.Resume != "" {
				return agent.Resume(opts, agent.SessionID(a.Resume))
			}
			return agent.Open(opts)
		},
		OnEvent: func(n int, ev event.Event) {
			f.mu.Lock()
			f.events = append(f.events, ev)
			f.mu.Unlock()
		},
		OnChange: func(r Record) {
			select {
			case f.changes <- r:
			default:
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	return m
}

// waitState waits until task n is in state, counted when want is Done.
func (f *fixture) waitState(t *testing.T, m *Manager, n int, want State) Record {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		r, err := m.Get(n)
		if err == nil && r.State == want && (want != Done || r.Files > 0) {
			return r
		}
		select {
		case <-f.changes:
		case <-time.After(100 * time.Millisecond):
		}
	}
	r, _ := m.Get(n)
	t.Fatalf("task %d: state %s, want %s (record %+v)", n, r.State, want, r)
	return Record{}
}

// waitRequest waits until the model was asked for the task marked marker.
func (f *fixture) waitRequest(t *testing.T, marker string) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		for _, r := range f.srv.Requests() {
			for _, m := range r.Messages {
				if strings.Contains(m.Content, marker) {
					return
				}
			}
		}
	}
	t.Fatalf("the model was never asked for %s", marker)
}

func start(t *testing.T, m *Manager, prompt string) Record {
	t.Helper()
	r, err := m.Start(context.Background(), StartArgs{Prompt: prompt, Mode: "auto-edit"})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestTwoTasksRunInTheirWorktrees(t *testing.T) {
	f := newFixture(t, 0)
	writeFile(t, filepath.Join(f.root, ".env"), "SECRET=1\n")
	gate := make(chan struct{})
	f.script.gates["TASK-A"] = gate
	a := start(t, f.m, "TASK-A add a file")
	b := start(t, f.m, "TASK-B add another")
	// A is held at its first answer while B runs to its end: both at once.
	f.waitRequest(t, "TASK-A")
	f.waitState(t, f.m, b.N, Done)
	if r, _ := f.m.Get(a.N); r.State != Running {
		t.Fatalf("task A is %s while its answer is held, want running", r.State)
	}
	close(gate)
	ra := f.waitState(t, f.m, a.N, Done)
	rb, _ := f.m.Get(b.N)
	for _, c := range []struct {
		r    Record
		name string
	}{{ra, "task-a"}, {rb, "task-b"}} {
		if strings.HasPrefix(c.r.Path, f.root) {
			t.Errorf("worktree %s is inside the workspace", c.r.Path)
		}
		if !strings.HasPrefix(c.r.Branch, fmt.Sprintf("coder/%d-", c.r.N)) {
			t.Errorf("branch %q", c.r.Branch)
		}
		for _, file := range []string{c.name + ".txt", c.name + "-bash.txt", ".env"} {
			if _, err := os.Stat(filepath.Join(c.r.Path, file)); err != nil {
				t.Errorf("task %d: %v", c.r.N, err)
			}
		}
		if c.r.Files != 2 || c.r.Added != 2 || c.r.Turns != 1 || c.r.TokensIn == 0 {
			t.Errorf("task %d counts: files %d +%d turns %d tokens %d", c.r.N, c.r.Files, c.r.Added, c.r.Turns, c.r.TokensIn)
		}
	}
	if st := git(t, f.root, "status", "--porcelain"); strings.TrimSpace(st) != "" {
		t.Errorf("the user's working tree changed:\n%s", st)
	}
	if got := len(f.m.List()); got != 2 {
		t.Errorf("%d tasks listed", got)
	}
}

func TestQueueBeyondMaxParallel(t *testing.T) {
	f := newFixture(t, 1)
	gate := make(chan struct{})
	f.script.gates["TASK-A"] = gate
	a := start(t, f.m, "TASK-A first")
	b := start(t, f.m, "TASK-B second")
	f.waitState(t, f.m, a.N, Running)
	if r, _ := f.m.Get(b.N); r.State != Queued {
		t.Fatalf("task B is %s, want queued while A works", r.State)
	}
	close(gate)
	f.waitState(t, f.m, a.N, Done)
	f.waitState(t, f.m, b.N, Done)
}

func TestDiscardLeavesNothing(t *testing.T) {
	f := newFixture(t, 0)
	a := start(t, f.m, "TASK-A work")
	r := f.waitState(t, f.m, a.N, Done)
	if err := f.m.Discard(context.Background(), a.N, false); err == nil || !strings.Contains(err.Error(), ErrUnmerged.Error()) {
		t.Fatalf("discarding unmerged work: %v", err)
	}
	if err := f.m.Discard(context.Background(), a.N, true); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(r.Path); !os.IsNotExist(err) {
		t.Errorf("worktree still there: %v", err)
	}
	if out := git(t, f.root, "branch", "--list", "coder/*"); strings.TrimSpace(out) != "" {
		t.Errorf("branch left: %s", out)
	}
	if ents, _ := os.ReadDir(filepath.Join(f.root, ".git", "worktrees")); len(ents) != 0 {
		t.Errorf(".git/worktrees holds %d entries", len(ents))
	}
	if len(f.m.List()) != 0 {
		t.Errorf("task still listed")
	}
}

func TestMergeBranchNoFF(t *testing.T) {
	f := newFixture(t, 0)
	a := start(t, f.m, "TASK-A work")
	f.waitState(t, f.m, a.N, Done)
	res, err := f.m.MergeBranch(context.Background(), a.N)
	if err != nil || len(res.Conflicts) != 0 {
		t.Fatalf("merge: %v %+v", err, res)
	}
	if got := readFile(t, filepath.Join(f.root, "task-a.txt")); got != "TASK-A was here\n" {
		t.Errorf("task-a.txt = %q", got)
	}
	if parents := strings.Fields(git(t, f.root, "log", "-1", "--format=%P")); len(parents) != 2 {
		t.Errorf("not a merge commit: %v", parents)
	}
	if err := f.m.Discard(context.Background(), a.N, false); err != nil {
		t.Errorf("discard after merge: %v", err)
	}
}

func TestInterruptedTaskContinues(t *testing.T) {
	f := newFixture(t, 0)
	gate := make(chan struct{})
	f.script.gates["TASK-A"] = gate
	a := start(t, f.m, "TASK-A work")
	f.waitRequest(t, "TASK-A")
	f.m.Close() // the host goes away mid-task
	close(gate)
	m2 := f.manager(t, 0)
	if r, _ := m2.Get(a.N); r.State != Interrupted {
		t.Fatalf("after the host went: %s, want interrupted", r.State)
	}
	if err := m2.Continue(context.Background(), a.N, ""); err != nil {
		t.Fatal(err)
	}
	r := f.waitState(t, m2, a.N, Done)
	if _, err := os.Stat(filepath.Join(r.Path, "task-a.txt")); err != nil {
		t.Error(err)
	}
}

func TestStartNeedsARepository(t *testing.T) {
	_, err := New(context.Background(), Options{Root: t.TempDir(), StateDir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "tasks need a git repository") {
		t.Fatalf("outside git: %v", err)
	}
}

func TestParseStart(t *testing.T) {
	for _, c := range []struct {
		line, prompt, mode, from, err string
	}{
		{line: "fix the bug", prompt: "fix the bug"},
		{line: "--mode auto-edit fix it", prompt: "fix it", mode: "auto-edit"},
		{line: "--from v1 --mode plan look", prompt: "look", mode: "plan", from: "v1"},
		{line: "--mode wide x", err: "--mode"},
		{line: "--bogus 1 x", err: "unknown option"},
		{line: "--mode auto-edit", err: "usage"},
		{line: "", err: "usage"},
	} {
		a, err := ParseStart(c.line)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: err %v, want %q", c.line, err, c.err)
			}
			continue
		}
		if err != nil || a.Prompt != c.prompt || a.Mode != c.mode || a.From != c.from || a.ModeFromUser != (c.mode != "") {
			t.Errorf("%q: %+v %v", c.line, a, err)
		}
	}
}

// TestMergeBranchRunsNoMergeDriver: a merge driver the repository's
// config names is a program of the repository's: git merge --no-ff of a
// task uses git's own text merge instead, and the conflict is left as
// one. Without the guard git runs the driver (it writes ran-driver).
func TestMergeBranchRunsNoMergeDriver(t *testing.T) {
	f := newFixture(t, 0)
	marker := filepath.Join(t.TempDir(), "ran-driver")
	git(t, f.root, "config", "merge.evil.driver", "touch "+marker+"; false")
	writeFile(t, filepath.Join(f.root, ".gitattributes"), "*.txt merge=evil\n")
	git(t, f.root, "add", ".gitattributes")
	git(t, f.root, "commit", "-q", "-m", "attributes")
	a := start(t, f.m, "TASK-A work")
	r := f.waitState(t, f.m, a.N, Done)
	writeFile(t, filepath.Join(r.Path, "main.txt"), "task one\n")
	writeFile(t, filepath.Join(f.root, "main.txt"), "user one\n")
	git(t, f.root, "commit", "-q", "-am", "user")
	res, err := f.m.MergeBranch(context.Background(), a.N)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Errorf("the repository's merge driver ran: %v", err)
	}
	if len(res.Conflicts) != 1 || res.Conflicts[0] != "main.txt" {
		t.Errorf("conflicts %v", res.Conflicts)
	}
	if got := readFile(t, filepath.Join(f.root, "main.txt")); !strings.Contains(got, "user one") || !strings.Contains(got, "task one") || !strings.Contains(got, "<<<<<<<") {
		t.Errorf("main.txt:\n%s", got)
	}
}

// TestStartSkipsNumbersInUse: records deleted by hand leave a branch and
// a worktree behind; the next task takes a number neither uses.
func TestStartSkipsNumbersInUse(t *testing.T) {
	f := newFixture(t, 0)
	a := start(t, f.m, "TASK-A work")
	f.waitState(t, f.m, a.N, Done)
	if err := os.RemoveAll(f.m.recs.dir); err != nil {
		t.Fatal(err)
	}
	b := start(t, f.m, "TASK-B again")
	if b.N == a.N {
		t.Fatalf("task number %d reused", b.N)
	}
	f.waitState(t, f.m, b.N, Done)
}

// TestQueuedTaskContinuesAfterHostDeath: a task still queued when its host
// went has no session yet; continuing it sends its own prompt.
func TestQueuedTaskContinuesAfterHostDeath(t *testing.T) {
	f := newFixture(t, 1)
	gate := make(chan struct{})
	f.script.gates["TASK-A"] = gate
	a := start(t, f.m, "TASK-A first")
	b := start(t, f.m, "TASK-B queued")
	f.waitState(t, f.m, a.N, Running)
	f.m.Close()
	close(gate)
	m2 := f.manager(t, 1)
	if r, _ := m2.Get(b.N); r.State != Interrupted || r.Session != "" {
		t.Fatalf("the queued task after its host went: %s %q", r.State, r.Session)
	}
	if err := m2.Continue(context.Background(), b.N, ""); err != nil {
		t.Fatal(err)
	}
	r := f.waitState(t, m2, b.N, Done)
	if got := readFile(t, filepath.Join(r.Path, "task-b.txt")); got != "TASK-B was here\n" {
		t.Errorf("task-b.txt = %q", got)
	}
}

// TestStartsAtOnce: tasks started at the same moment (eight :Coder task at
// once) all get their worktree; git worktree add run concurrently fails
// on the repository's locks.
func TestStartsAtOnce(t *testing.T) {
	f := newFixture(t, 1)
	gate := make(chan struct{})
	defer close(gate)
	f.script.gates["TASK-A"] = gate
	// Two managers, as two processes would be: nothing in common but git.
	other := f.manager(t, 1)
	errs := make(chan error, 8)
	for i := range 8 {
		m := f.m
		if i%2 == 1 {
			m = other
		}
		go func() {
			_, err := m.Start(context.Background(), StartArgs{Prompt: fmt.Sprintf("TASK-A number %d", i), Mode: "auto-edit"})
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if n := len(f.m.List()); n != 8 {
		t.Errorf("%d tasks listed, want 8", n)
	}
}

// TestMergeWaitsForTheTask: a task at work is not merged half done.
func TestMergeWaitsForTheTask(t *testing.T) {
	f := newFixture(t, 0)
	gate := make(chan struct{})
	defer close(gate)
	f.script.gates["TASK-A"] = gate
	a := start(t, f.m, "TASK-A work")
	f.waitState(t, f.m, a.N, Running)
	for _, merge := range []func(context.Context, int) (MergeResult, error){f.m.Merge, f.m.MergeBranch} {
		if _, err := merge(context.Background(), a.N); err == nil || !strings.Contains(err.Error(), "still at work") {
			t.Errorf("merging a running task: %v", err)
		}
	}
}
