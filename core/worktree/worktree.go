// Package worktree runs the user's tasks: pieces of work started beside
// the chat, each in a git worktree of the workspace's repository on a
// branch of its own (coder/<n>-<slug>), placed outside the workspace, with
// a Session of its own (conversation, journal, checkpoints, cost) that
// runs in parallel with the chat and the other tasks. The Manager creates
// and prunes the worktrees, starts and stops their Sessions (at most
// max_parallel at work, the rest queued), lists them, merges their work
// back and keeps their records in the host's state directory, one file a
// task, so that they outlast the host: a task whose host died shows as
// interrupted and can be continued.
//
// Seed 004 calls the scheduler's unit of work a task; here a task is the
// user's: one Session and its worktree.
package worktree

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/coder-nvim/coder-nvim/core/agent"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/gitsnap"
	"github.com/coder-nvim/coder-nvim/core/hostpath"
	"github.com/coder-nvim/coder-nvim/core/store"
)

// DefaultMaxParallel is tasks.max_parallel's default.
const DefaultMaxParallel = 4

// OpenArgs is what the front end needs to open a task's Session.
type OpenArgs struct {
	N    int
	Root string // the task's workspace
	Mode string
	// ModeFromUser: the user named the mode in the command that started
	// the task (it may then be wider than the chat's).
	ModeFromUser bool
	Resume       string // a session id to continue; "" opens a new one
	// OnEvent must be the Session's OnEvent: the manager follows the
	// task through it and passes every event on to Options.OnEvent.
	OnEvent func(event.Event)
}

// Options configure a Manager.
type Options struct {
	Root     string // the user's workspace
	StateDir string // config.StateDir
	// MaxParallel bounds the tasks at work at once (0: the default).
	MaxParallel int
	Copy        []string // tasks.copy: untracked files every worktree gets
	// Open opens (or resumes) a task's Session with the front end's
	// provider, config and event handler.
	Open func(ctx context.Context, a OpenArgs) (*agent.Session, error)
	// OnEvent receives every event of every task's Session with the
	// task's number; the same rules as agent.Options.OnEvent apply.
	OnEvent func(n int, ev event.Event)
	// OnChange is told each change of a task's state or counts.
	OnChange func(Record)
	Now      func() time.Time
}

// Manager holds the tasks of one repository.
type Manager struct {
	git   string // the host's git, for merge-file
	opts  Options
	repo  repo
	recs  records
	trees string // where the worktrees go
	life  context.Context
	stop  context.CancelFunc
	bg    sync.WaitGroup
	// adding serializes git worktree add: several at once race for the
	// repository's lock files and all but one fail.
	adding sync.Mutex

	mu      sync.Mutex
	live    map[int]*live
	queue   []int // numbers waiting for a slot, in order
	closing bool
	// verdicts are the user's decisions in merge reviews, per task and
	// hunk (review.go).
	verdicts map[int]map[string]verdict
	// undo is each task's last merge into the user's tree (unmerge.go).
	undo map[int]*undoLog
}

// live is a task this process holds.
type live struct {
	rec     Record
	sess    *agent.Session
	root    agent.ConversationID
	asks    int    // approvals waiting
	pending string // input to submit once the Session opens
	working bool   // counts against max_parallel
}

// ErrUnmerged: a task holds changes that were not merged; discarding it
// needs the user's word.
var ErrUnmerged = errors.New("the task has changes that were not merged")

// ErrNoTask names a task number that does not exist.
var ErrNoTask = errors.New("no such task")

// New opens the task manager of the repository root is in.
func New(ctx context.Context, opts Options) (*Manager, error) {
	if opts.StateDir == "" {
		return nil, errors.New("tasks: no state directory (set XDG_STATE_HOME or HOME)")
	}
	if opts.MaxParallel <= 0 {
		opts.MaxParallel = DefaultMaxParallel
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.OnEvent == nil {
		opts.OnEvent = func(int, event.Event) {}
	}
	if opts.OnChange == nil {
		opts.OnChange = func(Record) {}
	}
	r, err := findRepo(ctx, opts.Root)
	if err != nil {
		return nil, err
	}
	m := &Manager{
		// git merge-file runs on the host: never a git on a PATH
		// entry inside the workspace (core/hostpath).
		git:  hostpath.Resolve(os.Getenv("PATH"), opts.Root).Git,
		opts: opts,
		repo: r,
		recs: records{dir: filepath.Join(opts.StateDir, "tasks", r.key())},
		// Beside the state directory, not in it: the state directory is
		// the user's, no command may write it, and a task's commands
		// write its worktree.
		trees: filepath.Join(filepath.Dir(opts.StateDir), "coder-nvim-worktrees", r.key()),
		live:  map[int]*live{},
	}
	m.life, m.stop = context.WithCancel(context.Background())
	// What git keeps of worktrees removed behind its back goes.
	gitsnap.Git(ctx, r.top, nil, "worktree", "prune") //nolint:errcheck // best effort
	return m, nil
}

// Repository is the top level of the user's repository.
func (m *Manager) Repository() string { return m.repo.top }

// StartArgs is what starting a task takes.
type StartArgs struct {
	Prompt string
	Mode   string // the mode; the front end passes the chat's unless the user named one
	// ModeFromUser: Mode is what the user typed in this command.
	ModeFromUser bool
	From         string // the branch's starting point; "" is HEAD
}

var slugRE = regexp.MustCompile(`[^a-z0-9]+`)

// slug is a branch-safe short name of the prompt.
func slug(prompt string) string {
	words := strings.Fields(strings.ToLower(prompt))
	s := slugRE.ReplaceAllString(strings.Join(words[:min(len(words), 5)], "-"), "-")
	s = strings.Trim(s, "-")
	if len(s) > 30 {
		s = strings.TrimRight(s[:30], "-")
	}
	if s == "" {
		s = "task"
	}
	return s
}

// title is the first line of the prompt, cut.
func title(prompt string) string {
	t, _, _ := strings.Cut(strings.TrimSpace(prompt), "\n")
	if r := []rune(t); len(r) > 60 {
		t = string(r[:60]) + "…"
	}
	return t
}

// Start creates the task's worktree and branch and starts its Session (or
// queues it while max_parallel are at work). It returns once the worktree
// exists.
func (m *Manager) Start(ctx context.Context, a StartArgs) (Record, error) {
	if strings.TrimSpace(a.Prompt) == "" {
		return Record{}, errors.New("a task needs a prompt: /task PROMPT")
	}
	from := a.From
	if from == "" {
		from = "HEAD"
	}
	base, err := m.repo.resolve(ctx, from)
	if err != nil {
		return Record{}, err
	}
	n, err := m.recs.claim(m.taken(ctx))
	if err != nil {
		return Record{}, err
	}
	name := fmt.Sprintf("%d-%s", n, slug(a.Prompt))
	path := filepath.Join(m.trees, name)
	rec := Record{N: n, Title: title(a.Prompt), Prompt: a.Prompt, Branch: "coder/" + name, Base: base, Path: path,
		Root: filepath.Join(path, filepath.FromSlash(m.repo.prefix)), Mode: a.Mode, State: Queued, Created: m.opts.Now()}
	m.adding.Lock()
	err = m.repo.add(ctx, path, rec.Branch, base)
	m.adding.Unlock()
	if err != nil {
		m.recs.remove(n) //nolint:errcheck // the claim only
		return Record{}, err
	}
	if _, err := copyFiles(m.opts.Root, rec.Root, m.opts.Copy); err != nil {
		m.repo.remove(ctx, path, rec.Branch, true) //nolint:errcheck // reported below
		m.recs.remove(n)                           //nolint:errcheck
		return Record{}, err
	}
	if err := m.recs.save(rec); err != nil {
		return Record{}, err
	}
	m.mu.Lock()
	l := &live{rec: rec, pending: a.Prompt}
	m.live[n] = l
	m.queue = append(m.queue, n)
	m.mu.Unlock()
	m.schedule(a.ModeFromUser)
	return m.Get(n)
}

// taken reports the task numbers a branch or worktree directory already
// uses (left by records deleted by hand): a new task never reuses them.
func (m *Manager) taken(ctx context.Context) func(n int) bool {
	used := map[int]bool{}
	if out, err := gitsnap.Git(ctx, m.repo.top, nil, "for-each-ref", "--format=%(refname:lstrip=3)", "refs/heads/coder/"); err == nil {
		for _, name := range strings.Fields(string(out)) {
			var n int
			if _, err := fmt.Sscanf(name, "%d-", &n); err == nil {
				used[n] = true
			}
		}
	}
	if ents, err := os.ReadDir(m.trees); err == nil {
		for _, e := range ents {
			var n int
			if _, err := fmt.Sscanf(e.Name(), "%d-", &n); err == nil {
				used[n] = true
			}
		}
	}
	return func(n int) bool { return used[n] }
}

// Get is one task's record as it stands.
func (m *Manager) Get(n int) (Record, error) {
	for _, r := range m.List() {
		if r.N == n {
			return r, nil
		}
	}
	return Record{}, fmt.Errorf("task %d: %w", n, ErrNoTask)
}

// List is every task of the repository, by number: those of this
// process as they stand, the others as their records say, a task at work
// whose Session no process holds shown as interrupted.
func (m *Manager) List() []Record {
	all, _ := m.recs.list()
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, r := range all {
		if l := m.live[r.N]; l != nil {
			all[i] = l.rec
			continue
		}
		if r.State.Active() && (r.Session == "" || store.Holder(store.Dir(r.Root), r.Session) == 0) {
			all[i].State = Interrupted
		}
	}
	return all
}

// Session is task n's Session, opened (resumed) when this process does
// not hold it yet, so the user can talk to it.
func (m *Manager) Session(ctx context.Context, n int) (*agent.Session, error) {
	m.mu.Lock()
	l := m.live[n]
	if l != nil && l.sess != nil {
		m.mu.Unlock()
		return l.sess, nil
	}
	m.mu.Unlock()
	if l != nil {
		return nil, fmt.Errorf("task %d is queued: its session opens when a slot is free", n)
	}
	rec, err := m.Get(n)
	if err != nil {
		return nil, err
	}
	l = &live{rec: rec}
	if rec.State == Interrupted {
		l.rec.State = Stopped
	}
	return m.open(ctx, l, false)
}

// Stop interrupts task n (or takes it out of the queue).
func (m *Manager) Stop(n int) error {
	m.mu.Lock()
	l := m.live[n]
	if l == nil {
		m.mu.Unlock()
		return fmt.Errorf("task %d is not running in this editor", n)
	}
	for i, q := range m.queue {
		if q == n {
			m.queue = append(m.queue[:i], m.queue[i+1:]...)
			l.pending = ""
			l.rec.State = Stopped
			rec := l.rec
			m.mu.Unlock()
			m.saveRecord(rec)
			return nil
		}
	}
	sess := l.sess
	m.mu.Unlock()
	if sess != nil {
		go sess.Cancel() // the TurnAborted event says stopped
	}
	return nil
}

// Continue sends input (a default note when "") to task n: an
// interrupted, stopped or finished task goes on in its Session.
func (m *Manager) Continue(ctx context.Context, n int, input string) error {
	rec, err := m.Get(n)
	if err != nil {
		return err
	}
	switch {
	case input != "":
	case rec.Session == "":
		input = rec.Prompt // its host died before the task's session opened
	default:
		input = "Continue the task where you left off; say what is left when you are done."
	}
	sess, err := m.Session(ctx, n)
	if err != nil {
		return err
	}
	_, err = sess.Submit(input)
	return err
}

// Discard stops task n, removes its worktree and record, and its branch
// when it was merged or force is set. A task with unmerged changes is
// refused with ErrUnmerged unless force is set.
func (m *Manager) Discard(ctx context.Context, n int, force bool) error {
	rec, err := m.Get(n)
	if err != nil {
		return err
	}
	m.mu.Lock()
	mine := m.live[n] != nil
	m.mu.Unlock()
	if pid := store.Holder(store.Dir(rec.Root), rec.Session); !mine && rec.Session != "" && pid != 0 {
		return fmt.Errorf("task %d is open in another coder-nvim (process %d): discard it there", n, pid)
	}
	if !force && !rec.Merged {
		files, _, _, err := changes(ctx, rec.Path, m.repo.prefix, rec.Base)
		if err == nil && files > 0 {
			return fmt.Errorf("task %d (%s): %w (%d files); discard it anyway?", n, rec.Branch, ErrUnmerged, files)
		}
	}
	m.mu.Lock()
	l := m.live[n]
	delete(m.live, n)
	for i, q := range m.queue {
		if q == n {
			m.queue = append(m.queue[:i], m.queue[i+1:]...)
			break
		}
	}
	m.mu.Unlock()
	if l != nil && l.sess != nil {
		l.sess.Close()
	}
	m.schedule(false)
	if err := m.repo.remove(ctx, rec.Path, rec.Branch, force || rec.Merged); err != nil {
		return fmt.Errorf("discard task %d: %w", n, err)
	}
	os.Remove(m.recs.undoFile(n)) //nolint:errcheck // none when never merged
	return m.recs.remove(n)
}

// Close closes every Session this process holds. A task still at work
// keeps its state on disk: the next host shows it interrupted.
func (m *Manager) Close() {
	m.mu.Lock()
	m.closing = true
	var sessions []*agent.Session
	for _, l := range m.live {
		if l.sess != nil {
			sessions = append(sessions, l.sess)
		}
	}
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range sessions {
		wg.Add(1)
		go func() { defer wg.Done(); s.Close() }()
	}
	wg.Wait()
	m.stop()
	m.bg.Wait()
}
