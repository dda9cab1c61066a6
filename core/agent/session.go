// Package agent is the engine every front end drives: a Session owns
// conversations, runs one task at a time (single flight), runs the model–tool
// loop and reports everything through one typed event stream.
package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/policy"
	"github.com/coder-nvim/coder-nvim/core/skills"
	"github.com/coder-nvim/coder-nvim/core/store"
	"github.com/coder-nvim/coder-nvim/core/tools"
	"github.com/google/uuid"
)

// Provider streams one chat completion.
type Provider interface {
	Stream(ctx context.Context, req llm.Request, onDelta func(llm.Delta)) (llm.Response, error)
}

// Options configure a session.
type Options struct {
	Config   config.Config
	Root     string   // workspace root
	Provider Provider // the model endpoint
	Demo     bool     // the provider is the offline demo; shown in the status
	// OnEvent receives every event, in order, from one goroutine at a time.
	// It must not block for long, and must not call Cancel, Run or Wait
	// itself: those wait for the task that is delivering the event.
	OnEvent func(event.Event)
	// Prompter reports whether someone can answer approval requests. When
	// false (exec), an ask is allowed only if the config says so
	// (auto_approve_ask, approval.interactive=false); otherwise it is
	// refused with a message on how to allow it.
	Prompter bool
	// AllowAsks answers every ask with "allow once" (exec --yes).
	AllowAsks bool
	// Tools replaces the built-in tools (tests).
	Tools []tools.Tool
	// Now replaces the clock (tests).
	Now func() time.Time
}

// ErrBusy is returned when input arrives while a task runs.
var ErrBusy = errors.New("a task is already running; wait for it or interrupt it")

// Session is one agent session: conversations, settings, approvals, and the
// single running task.
type Session struct {
	opts   Options
	root   string
	ws     *tools.Workspace
	tools  []tools.Tool
	emitMu sync.Mutex
	bg     sync.WaitGroup // background snapshot work, waited for by Close

	mu        sync.Mutex
	id        string
	created   time.Time
	model     string
	mode      policy.Mode
	policy    policy.Policy
	memory    *policy.Memory
	convs     map[string]*Conversation
	rootConv  *Conversation
	running   *task
	approvals map[string]chan Answer
	ctxTokens int
	todos     []store.Todo
	turns     []store.Turn
	sentTools []llm.Tool
	saver     *saver
	skills    []skills.Skill
	lock      *store.Lock     // this process is the session's one writer
	started   map[string]bool // tool calls running now, by call id
	storage   store.Policy    // storage.policy: what is written at all
	// journal is the journal of session journalID (journal.go); baseSeq
	// the last record the resumed snapshot held.
	journal   *store.Journal
	journalID string
	baseSeq   int64
	snapSeq   int64 // JournalSeq of the last snapshot queued
}

// Conversation is one isolated context inside a session: its own history,
// instructions and tool view (seed 004).
type Conversation struct {
	ID           string
	Instructions string // base instructions; empty: the built-in ones
	history      []llm.Message
	turnNote     string // extra instructions for the running turn only
	// Policy, when set, narrows the session's policy for this
	// conversation; it can never widen it (seed 002, seed 004).
	Policy *policy.Policy
}

// OpenConversation adds a conversation with its own instructions ("" for
// the built-in ones) and an optional narrower policy, and returns its id.
func (s *Session) OpenConversation(instructions string, pol *policy.Policy) (string, error) {
	if pol != nil {
		if err := pol.Validate(); err != nil {
			return "", fmt.Errorf("conversation policy: %w", err)
		}
	}
	c := &Conversation{ID: uuid.NewString(), Instructions: instructions, Policy: pol}
	s.mu.Lock()
	s.convs[c.ID] = c
	s.mu.Unlock()
	return c.ID, nil
}

type task struct {
	id     string
	conv   *Conversation
	cancel context.CancelFunc
	done   chan struct{}

	edited     []string    // paths written since the last auto-verify
	verifyRuns int         // auto-verify runs in this turn
	end        event.Event // the closing event, sent after the task is cleared
	refused    bool        // the last answer was stopped by the content filter
	images     []llm.Image // attached to the user message of the turn

	snaps turnSnaps // the turn's snapshots in progress (turns.go)
}

// Open starts a new session.
func Open(opts Options) (*Session, error) {
	s, err := newSession(opts)
	if err != nil {
		return nil, err
	}
	s.reset(uuid.NewString())
	return s, nil
}

// Resume continues a saved session.
func Resume(opts Options, id string) (*Session, error) {
	s, err := newSession(opts)
	if err != nil {
		return nil, err
	}
	if err := s.load(id); err != nil {
		return nil, err
	}
	return s, nil
}

func newSession(opts Options) (*Session, error) {
	if opts.Provider == nil {
		return nil, errors.New("agent: no provider")
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.OnEvent == nil {
		opts.OnEvent = func(event.Event) {}
	}
	ws, err := tools.NewWorkspace(opts.Root)
	if err != nil {
		return nil, fmt.Errorf("workspace: %w", err)
	}
	mode, err := policy.ParseMode(opts.Config.Mode)
	if err != nil {
		return nil, err
	}
	preset, err := policy.ParsePreset(opts.Config.Permissions.Preset)
	if err != nil {
		return nil, err
	}
	pol := policy.Policy{Preset: preset, Rules: opts.Config.Permissions.Rules, Remember: policy.Remember{
		Conversation: opts.Config.Approval.Scope == "conversation",
		TTL:          opts.Config.ApprovalTTL(),
	}}
	if err := pol.Validate(); err != nil {
		return nil, fmt.Errorf("permissions: %w", err)
	}
	ts := opts.Tools
	s := &Session{
		opts:      opts,
		root:      ws.Root(),
		ws:        ws,
		tools:     ts,
		model:     opts.Config.Model,
		mode:      mode,
		policy:    pol,
		memory:    policy.NewMemory(opts.Now),
		approvals: map[string]chan Answer{},
	}
	if s.tools == nil {
		s.tools = append(tools.Builtins(), todoTool{s}, skillTool{s})
	}
	if s.storage, err = store.ParsePolicy(opts.Config.Storage.Policy); err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	s.discoverSkills()
	s.expireStored() // the ttl cleanup pass, before any session is locked
	s.saver = newSaver(store.Dir(s.root), func(err error) {
		s.emit(event.Event{Kind: event.Error, Text: err.Error()})
	})
	return s, nil
}

// reset makes the session a fresh one with the given id (Open and /new).
func (s *Session) reset(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.id = id
	s.created = s.opts.Now()
	s.rootConv = &Conversation{ID: uuid.NewString()}
	s.convs = map[string]*Conversation{s.rootConv.ID: s.rootConv}
	s.ctxTokens = 0
	s.todos = nil
	s.turns = nil
	s.sentTools = nil
	s.started = nil
	s.closeJournalLocked()
	s.memory = policy.NewMemory(s.opts.Now)
}

func (s *Session) load(id string) error {
	// Locked before it is read: what is read is what this process owns.
	l, err := s.lockFor(id)
	if err != nil {
		return err
	}
	snap, err := store.Resume(store.Dir(s.root), id)
	if err == nil {
		err = snap.Stored()
	}
	if err != nil {
		l.Release()
		return err
	}
	s.reset(snap.ID)
	if l != nil {
		s.setLock(l)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.created = snap.CreatedAt
	s.baseSeq = snap.JournalSeq
	// A session never stores more than it was started with, nor text
	// once its ttl has run out.
	s.storage = store.Narrower(s.storage, snap.Storage)
	if snap.Degraded {
		s.storage = store.Narrower(s.storage, store.PolicyHeaders)
	}
	if snap.Model != "" {
		s.model = snap.Model
	}
	if m, err := policy.ParseMode(snap.Mode); err == nil {
		s.mode = m
	}
	if p, err := policy.ParsePreset(snap.Preset); err == nil && snap.Preset != "" {
		s.policy.Preset = p
	}
	msgs := snap.Messages
	if len(msgs) > 0 && msgs[0].Role == llm.RoleSystem {
		msgs = msgs[1:] // rebuilt for every request
	}
	started := map[string]bool{}
	for _, id := range snap.Started {
		started[id] = true
	}
	s.rootConv.history = repairHistory(msgs, started)
	for _, c := range snap.Conversations {
		s.convs[c.ID] = &Conversation{ID: c.ID, Instructions: c.Instructions, history: repairHistory(c.Messages, started)}
	}
	s.todos = snap.Todos
	s.turns = snap.Turns
	s.sentTools = snap.Tools
	s.ctxTokens = estimateTokens(s.rootConv.history)
	return nil
}

// ID is the session id.
func (s *Session) ID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.id
}

// Root is the workspace root.
func (s *Session) Root() string { return s.root }

// Workspace is the session's workspace (front ends set guards and file
// systems on it).
func (s *Session) Workspace() *tools.Workspace { return s.ws }

// RootConversation is the id of the root conversation.
func (s *Session) RootConversation() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rootConv.ID
}

// History returns a copy of a conversation's messages (root when id is "").
func (s *Session) History(convID string) []llm.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.rootConv
	if convID != "" {
		c = s.convs[convID]
	}
	if c == nil {
		return nil
	}
	return append([]llm.Message(nil), c.history...)
}

// Status is what front ends show beside the input.
func (s *Session) Status() event.Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.statusLocked()
}

func (s *Session) statusLocked() event.Status {
	return event.Status{
		Model:         s.model,
		Mode:          string(s.mode),
		Preset:        string(s.policy.Preset),
		ContextTokens: s.ctxTokens,
		Cwd:           s.root,
		Demo:          s.opts.Demo,
		Busy:          s.running != nil,
	}
}

// Mode is the current mode.
func (s *Session) Mode() policy.Mode {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mode
}

// SetMode switches the mode; it takes effect at the next model call.
func (s *Session) SetMode(m policy.Mode) {
	s.mu.Lock()
	s.mode = m
	st := s.statusLocked()
	conv := s.rootConv.ID
	s.mu.Unlock()
	s.emit(event.Event{Kind: event.StatusChanged, Conversation: conv, Status: &st})
}

// Todos returns the session's todo list.
func (s *Session) Todos() []store.Todo {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]store.Todo(nil), s.todos...)
}

// Submit starts a task for the input in the root conversation and returns
// its id at once; events report its progress. Input starting with `/` runs a
// built-in command, `!` a shell command (seed 001 §1).
func (s *Session) Submit(input string) (string, error) {
	return s.SubmitTo("", input)
}

// SubmitTo is Submit for a given conversation ("" is the root).
func (s *Session) SubmitTo(convID, input string) (string, error) {
	t, err := s.start(convID, input)
	if err != nil {
		return "", err
	}
	return t.id, nil
}

// SubmitImages is Submit with pictures attached to the user message. They
// go to the model as image parts; a command line takes none.
func (s *Session) SubmitImages(input string, images []llm.Image) (string, error) {
	if t := strings.TrimSpace(input); len(images) > 0 && (strings.HasPrefix(t, "/") || strings.HasPrefix(t, "!")) {
		return "", errors.New("images cannot be attached to a / or ! command")
	}
	t, err := s.start("", input, images...)
	if err != nil {
		return "", err
	}
	return t.id, nil
}

// start registers and launches a task (single flight).
func (s *Session) start(convID, input string, images ...llm.Image) (*task, error) {
	s.mu.Lock()
	if s.running != nil {
		s.mu.Unlock()
		return nil, ErrBusy
	}
	conv := s.rootConv
	if convID != "" {
		if conv = s.convs[convID]; conv == nil {
			s.mu.Unlock()
			return nil, fmt.Errorf("no conversation %q in this session", convID)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	t := &task{id: uuid.NewString(), conv: conv, cancel: cancel, done: make(chan struct{}), images: images}
	s.running = t
	s.mu.Unlock()

	go func() {
		defer close(t.done)
		defer cancel()
		s.runTask(ctx, t, input)
		s.snapshotNow() // the turn's record is one durable snapshot before it is reported done
		s.mu.Lock()
		s.running = nil
		st := s.statusLocked()
		s.mu.Unlock()
		// Front ends may send the next input as soon as they see the end
		// of this task: by then the session accepts it.
		s.emit(event.Event{Kind: event.StatusChanged, Conversation: t.conv.ID, Task: t.id, Status: &st})
		if t.end.Kind != "" {
			s.emit(t.end)
		}
	}()
	return t, nil
}

// Run submits input and waits for the task to end. Cancelling ctx
// interrupts the task.
func (s *Session) Run(ctx context.Context, input string) error {
	t, err := s.start("", input)
	if err != nil {
		return err
	}
	select {
	case <-t.done:
	case <-ctx.Done():
		t.cancel()
		<-t.done
	}
	return nil
}

// Cancel interrupts the running task, if any, and waits until it has
// stopped. The history stays valid: every tool call gets its result.
func (s *Session) Cancel() {
	s.mu.Lock()
	t := s.running
	s.mu.Unlock()
	if t == nil {
		return
	}
	t.cancel()
	<-t.done
}

// Wait blocks until no task runs.
func (s *Session) Wait() {
	s.mu.Lock()
	t := s.running
	s.mu.Unlock()
	if t != nil {
		<-t.done
	}
}

// Close interrupts any task, waits until the session file is written and
// for snapshots still being taken or dropped in the background, and gives
// the session's lock up. The session file stays.
func (s *Session) Close() {
	s.Cancel()
	s.bg.Wait()
	s.setLock(nil)
	s.expireStored()
}

// Answer is the user's decision on an approval request.
type Answer struct {
	Decision Decision
	// Accepted, for file changes under review: per path, which hunks (in
	// review.Hunks order) to apply. A path not listed is applied whole.
	Accepted map[string][]bool
}

// Decision is the user's choice.
type Decision string

// Approval decisions: y, n, a.
const (
	AllowOnce   Decision = "once"
	Deny        Decision = "deny"
	AllowAlways Decision = "always"
)

// Answer resolves an open approval request.
func (s *Session) Answer(approvalID string, a Answer) error {
	switch a.Decision {
	case AllowOnce, Deny, AllowAlways:
	default:
		return fmt.Errorf("unknown decision %q (want once, deny or always)", a.Decision)
	}
	s.mu.Lock()
	ch, ok := s.approvals[approvalID]
	delete(s.approvals, approvalID)
	s.mu.Unlock()
	if !ok {
		return fmt.Errorf("no open approval request %q", approvalID)
	}
	ch <- a // buffered: never blocks
	return nil
}

// emit stamps and delivers one event. Events are delivered one at a time.
func (s *Session) emit(ev event.Event) {
	s.mu.Lock()
	ev.Session = s.id
	s.mu.Unlock()
	ev.Time = s.opts.Now()
	s.emitMu.Lock()
	defer s.emitMu.Unlock()
	s.opts.OnEvent(ev)
}

// save queues the session snapshot for writing; a failure is reported,
// never fatal.
func (s *Session) save() {
	s.mu.Lock()
	if err := s.holdLockLocked(); err != nil {
		s.mu.Unlock()
		s.emit(event.Event{Kind: event.Error, Text: "session not saved: " + err.Error()})
		return
	}
	snap := s.snapshotLocked()
	j := s.journal
	if s.journalID != s.id {
		j = nil
	}
	s.snapSeq = snap.JournalSeq
	s.mu.Unlock()
	s.saver.put(snap, j)
}

// snapshotLocked is the session as its snapshot holds it, with the
// journal records it includes. s.mu is held.
func (s *Session) snapshotLocked() *store.Snapshot {
	snap := &store.Snapshot{
		ID:        s.id,
		CreatedAt: s.created,
		UpdatedAt: s.opts.Now(),
		Model:     s.model,
		Mode:      string(s.mode),
		Preset:    string(s.policy.Preset),
		Cwd:       s.root,
		Messages:  append([]llm.Message{{Role: llm.RoleSystem, Content: s.systemPromptLocked(s.rootConv)}}, s.rootConv.history...),
		Tools:     s.sentTools,
		Todos:     s.todos,
		// A copy: turns are updated in place (After, Undone) while the
		// saver encodes the snapshot on its own goroutine.
		Turns:      append([]store.Turn(nil), s.turns...),
		Started:    s.startedLocked(),
		Storage:    s.storage,
		StorageTTL: s.opts.Config.Storage.TTL,
	}
	if s.journalID == s.id {
		snap.JournalSeq = s.journal.Seq()
	}
	if snap.Tools == nil {
		snap.Tools = tools.Specs(s.offeredToolsLocked())
	}
	for _, c := range s.convs {
		if c != s.rootConv {
			snap.Conversations = append(snap.Conversations, store.Conversation{ID: c.ID, Instructions: c.Instructions, Messages: c.history})
		}
	}
	return snap
}
