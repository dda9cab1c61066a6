// Package agent is the engine every front end drives: a Session owns
// conversations, runs one task at a time (single flight), runs the model–tool
// loop and the tool pipeline, and reports everything through one typed event
// stream. What needs no session state lives in its sub-packages (command,
// conv, compact, todo, toolcalls, outstream), which may not import it; it
// imports no front end and no provider implementation.
package agent

import (
	"context"
	"errors"
	"fmt"
	"github.com/coder-nvim/coder-nvim/core/hostpath"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/coder-nvim/coder-nvim/core/agent/conv"
	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/editor"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/gitsnap"
	"github.com/coder-nvim/coder-nvim/core/hooks"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/policy"
	"github.com/coder-nvim/coder-nvim/core/reviewcomments"
	"github.com/coder-nvim/coder-nvim/core/reviewnotes"
	"github.com/coder-nvim/coder-nvim/core/sandbox"
	"github.com/coder-nvim/coder-nvim/core/skills"
	"github.com/coder-nvim/coder-nvim/core/store"
	"github.com/coder-nvim/coder-nvim/core/tools"
	"github.com/coder-nvim/coder-nvim/core/web"
	"github.com/google/uuid"
)

// Provider streams one chat completion. On an error after deltas were
// passed to onDelta, the returned response holds the text streamed so
// far (the transcript already shows it).
type Provider interface {
	Stream(ctx context.Context, req llm.Request, onDelta func(llm.Delta)) (llm.Response, error)
}

// Options configure a session.
type Options struct {
	Config   config.Config
	Root     string   // workspace root
	Provider Provider // the model endpoint
	Demo     bool     // the provider is the offline demo; shown in the status
	// Log receives the MCP servers' stderr and the pool's messages; nil
	// discards them.
	Log io.Writer
	// Version is sent to MCP servers in initialize.
	Version string
	// Launcher is the host binary, which runs the sandbox (`sandbox-exec`);
	// empty: the agent's commands run unconfined (tests of core).
	Launcher string
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
	// Models lists the endpoint's models (GET /models) for /model, with
	// the context window each entry gives; nil or an error: no list.
	Models func(ctx context.Context) ([]llm.Model, error)
	// ModeFromFlag says Config.Mode is the user's explicit choice for
	// this run (exec --mode): on resume it wins over the saved mode.
	ModeFromFlag bool
	// ModeFromTrust and PresetFromTrust say the user has just trusted the
	// workspace's config and that changed Config's mode or preset: the
	// user's answer, so on resume it wins over the saved one (a session
	// not created here still resumes in plan mode).
	ModeFromTrust, PresetFromTrust bool
	// Editor is the front end's language servers (Neovim): diagnostics
	// after edits and the lsp tool. nil (exec, ACP): neither.
	Editor editor.Editor
	// Tools replaces the built-in tools (tests).
	Tools []tools.Tool
	// Now replaces the clock (tests).
	Now func() time.Time
	// Tick replaces the clean-up timer (tests): it returns a channel that
	// delivers a tick every d and a function that stops it.
	Tick func(d time.Duration) (<-chan time.Time, func())
	// NewID replaces the uuid generator for conversation and task ids
	// (determinism tests).
	NewID func() string
}

// ErrBusy is returned when input arrives while a task runs.
var ErrBusy = errors.New("a task is already running; wait for it or interrupt it")

// Session is one agent session (seed 004 §2): the workspace, settings,
// approval memory, the event stream, the scheduler with its task registry
// and the store. Conversations own their history; the session never edits
// it except through them.
type Session struct {
	mcp     *mcpState // nil: no MCP servers configured; set once in newSession
	sandbox sandboxState
	opts    Options
	root    string
	ws      *tools.Workspace
	// userDirs are the user's own directories (config, the host's state,
	// Copilot's tokens) no tool may write, wherever the workspace is.
	userDirs []string
	tools    []tools.Tool
	emitMu   sync.Mutex
	saver    *saver
	sched    *scheduler
	newID    func() string
	// activity is the workspace's record of when sessions' tools change
	// files (store.Activity): a command's changes are claimed only when
	// no other session worked meanwhile.
	activity *store.Activity
	// git is the workspace's repository as this session knows it: its
	// facts learned once, the trees of its snapshots (gitsnap.Repo).
	git *gitsnap.Repo
	bg  sync.WaitGroup // background snapshot work, waited for by Close

	mu      sync.Mutex // guards the fields below; taken before any Conversation.mu
	id      SessionID
	created time.Time
	model   string
	mode    policy.Mode
	policy  policy.Policy
	memory  *policy.Memory
	// verifySkip is the reason auto-verify last did not run, stated once
	// until it changes (seed 001 §6: stated, not repeated).
	verifySkip string
	convs      map[ConversationID]*Conversation
	order      []*Conversation // root first, then in creation order
	rootConv   *Conversation
	approvals  map[string]chan Answer
	turns      []store.Turn
	abandoned  []store.Branch // what /rewind cut off, kept on disk (rewind.go)
	// reviewNotes are the hunks the user rejected (turnreview.go), told
	// to the model with the next message.
	reviewNotes reviewnotes.Queue
	// runsLater is what the user's git or editor runs later from the
	// workspace (sandbox.WorkspaceRunsLater).
	runsLater []string
	// saveErr is the last "session not saved" told (reportSave).
	saveErr string
	// comments are the user's hunk comments waiting to be sent
	// (reviewcomments.go).
	comments reviewcomments.Pending
	skills   []skills.Skill
	lock     *store.Lock     // this process is the session's one writer
	started  map[string]bool // tool calls running now, by call id
	storage  store.Policy    // storage.policy: what is written at all
	// journal is the journal of session journalID (journal.go); baseSeq
	// the last record the resumed snapshot held. Records are appended
	// under mu with the change they record, and snapshots taken under mu.
	journal   *store.Journal
	journalID SessionID
	baseSeq   int64
	slashNote bool // the server/tool deprecation notice was given
	// undoneOthers are the files the last /undo or /rewind left alone,
	// per turn, newest first (/undo others).
	undoneOthers []othersOfTurn
	// resumeNote says why a resumed session runs narrower than it was
	// saved; told once the load is done.
	resumeNote string
	// lastTurn is the token accounting of the current or last turn.
	lastTurn *event.TurnUsage
	// agedCut is the ttl cutoff (unix ms) of the last clean-up pass that
	// rewrote the snapshot (cleanup.go).
	agedCut int64

	cleanStop, cleanDone chan struct{} // the clean-up timer (cleanup.go)
	cleanOnce            sync.Once
	// windows are the context windows the endpoint's model list gives,
	// by model (window.go).
	windows map[string]int
	// ep is the endpoint new tasks call (endpoint.go).
	ep *endpoint
	// hooks are the user's commands on agent events (hooks.go).
	hooks sessionHooks
	// life ends when the session closes: background work (the model
	// listing) stops with it. Set once in newSession.
	life     context.Context
	stopLife context.CancelFunc
}

// Open starts a new session.
func Open(opts Options) (*Session, error) {
	s, err := newSession(opts)
	if err != nil {
		return nil, err
	}
	s.reset(SessionID(uuid.NewString()))
	s.recordOrigin(s.ID())
	s.tellMissingBash()
	s.tellAgents()
	s.startHooks("startup")
	return s, nil
}

// Resume continues a saved session.
func Resume(opts Options, id SessionID) (*Session, error) {
	s, err := newSession(opts)
	if err != nil {
		return nil, err
	}
	if err := s.load(id); err != nil {
		s.stopCleanup()
		return nil, err
	}
	s.tellResumeNote()
	s.tellMissingBash()
	s.tellAgents()
	s.startHooks("resume")
	return s, nil
}

// tellMissingBash says, once as the session opens, that the built-in bash
// tool is not offered because no bash was found (Windows without Git for
// Windows, FreeBSD without the bash package).
func (s *Session) tellMissingBash() {
	if s.opts.Tools != nil {
		return
	}
	if why := tools.BashMissing(s.ws.Programs()); why != "" {
		s.emit(event.Event{Kind: event.Notice, Conversation: string(s.RootConversation()), Text: why})
	}
}

func newSession(opts Options) (*Session, error) {
	if opts.Provider == nil {
		return nil, errors.New("agent: no provider")
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Tick == nil {
		opts.Tick = realTicker
	}
	if opts.NewID == nil {
		opts.NewID = uuid.NewString
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
	pol := policy.Policy{Preset: preset, Rules: opts.Config.Permissions.Rules, Web: policy.Hosts{Allow: opts.Config.Web.Allow, Deny: opts.Config.Web.Deny}, Remember: policy.Remember{
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
		userDirs:  userDirs(opts.Config),
		tools:     ts,
		model:     opts.Config.Model,
		mode:      mode,
		policy:    pol,
		memory:    policy.NewMemory(opts.Now),
		approvals: map[string]chan Answer{},
		newID:     opts.NewID,
		ep:        &endpoint{provider: opts.Provider, models: opts.Models, demo: opts.Demo, cfg: opts.Config},
		hooks:     sessionHooks{run: hooks.New(opts.Config.Hooks, ws.Root(), ws.Programs())},
	}
	ws.SetUserDirs(s.userDirs)
	home, _ := os.UserHomeDir()
	s.runsLater = sandbox.WorkspaceRunsLater(context.Background(), ws.Root(), home) // once: the guard takes it too
	ws.SetRunsLater(append(sandbox.RunsLater(home, os.Getenv), s.runsLater...))
	s.life, s.stopLife = context.WithCancel(context.Background())
	s.sched = newScheduler(s)
	s.activity = store.NewActivity(store.Dir(s.root), opts.Now)
	s.git = gitsnap.NewRepo(s.root)
	if opts.Config.StateDir != "" {
		// Outside git, checkpoints go to a shadow repository there.
		s.git = gitsnap.NewShadowedRepo(s.root, opts.Config.StateDir)
	}
	s.git.UseGit(ws.Programs())
	if s.tools == nil {
		wt, err := web.ForConfig(opts.Config.Web, opts.Config.WireAPI, opts.Version, os.Getenv, opts.Now)
		if err != nil {
			return nil, err
		}
		s.tools = append(append(tools.Builtins(ws.Programs()), todoTool{s}, skillTool{s}), wt...)
	}
	// The conversation tools come after the built-ins, in a fixed order.
	names := map[string]bool{}
	for _, t := range s.tools {
		names[t.Spec().Function.Name] = true
	}
	for _, t := range conv.Tools(convHost{s}) {
		if names[t.Spec().Function.Name] {
			return nil, fmt.Errorf("tool %s: %w: a conversation tool has that name", t.Spec().Function.Name, ErrToolConflict)
		}
		s.tools = append(s.tools, owned{t})
	}
	if !names[policy.PlanTool] { // plan mode's hand-off (plan.go)
		s.tools = append(s.tools, planTool{s})
	}
	if s.storage, err = store.ParsePolicy(opts.Config.Storage.Policy); err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	s.discoverSkills()
	s.expireStored() // the ttl cleanup pass, before any session is locked
	s.saver = newSaver(store.Dir(s.root), func(err error) {
		s.emit(event.Event{Kind: event.Error, Text: err.Error()})
	})
	s.saver.onSaved = s.evictSaved
	s.openMCP(opts.Log)
	s.startSandbox()
	s.startCleanup()
	s.listModelsInBackground()
	return s, nil
}

// reset makes the session a fresh one with the given id (Open and /new).
func (s *Session) reset(id SessionID) {
	agents := s.agentsFor(false, nil) // read before the lock
	s.mu.Lock()
	defer s.mu.Unlock()
	s.id = id
	s.created = s.opts.Now()
	s.setRootLocked(&Conversation{ID: ConversationID(s.newID()), Tools: allTools, created: s.created, lastActive: s.created, agents: agents})
	s.turns, s.abandoned = nil, nil
	s.reviewNotes.Reset(nil)
	s.started = nil
	s.closeJournalLocked()
	s.agedCut = 0
	s.storage, _ = store.ParsePolicy(s.opts.Config.Storage.Policy) // checked by newSession
	s.memory = policy.NewMemory(s.opts.Now)
}

// setRootLocked replaces every conversation by a new root. s.mu is held.
func (s *Session) setRootLocked(root *Conversation) {
	s.rootConv = root
	s.convs = map[ConversationID]*Conversation{root.ID: root}
	s.order = []*Conversation{root}
}

// ID is the session id.
func (s *Session) ID() SessionID {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.id
}

// Root is the workspace root.
func (s *Session) Root() string { return s.root }

// Programs are the host's own programs, resolved as the session opened
// from a PATH without the workspace's directories (hostpath).
func (s *Session) Programs() hostpath.Programs { return s.ws.Programs() }

// Workspace is the session's workspace (front ends set guards and file
// systems on it).
func (s *Session) Workspace() *tools.Workspace { return s.ws }

// RootConversation is the id of the root conversation.
func (s *Session) RootConversation() ConversationID {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rootConv.ID
}

// History returns a copy of a conversation's messages (root when id is
// ""), those kept on disk only read back.
func (s *Session) History(convID ConversationID) []llm.Message {
	c, err := s.conversation(convID)
	if err != nil {
		return nil
	}
	return s.allMessages(c)
}

// Status is what front ends show beside the input.
func (s *Session) Status() event.Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.statusLocked()
}

func (s *Session) statusLocked() event.Status {
	s.rootConv.mu.Lock()
	tokens := s.rootConv.ctxTokens
	s.rootConv.mu.Unlock()
	return event.Status{
		Model:         s.model,
		Mode:          string(s.mode),
		Preset:        string(s.policy.Preset),
		ContextTokens: tokens,
		ContextWindow: s.windowLocked(s.model),
		Cwd:           s.root,
		Demo:          s.ep.demo,
		Busy:          s.sched.busy(),
		Turn:          s.lastTurn,
	}
}

// Mode is the current mode.
func (s *Session) Mode() policy.Mode {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mode
}

// SetModel switches the model of later requests for this session (a
// client's choice; /model also saves it to the workspace config).
func (s *Session) SetModel(name string) {
	s.mu.Lock()
	s.model = name
	st := s.statusLocked()
	s.mu.Unlock()
	s.emit(event.Event{Kind: event.StatusChanged, Conversation: string(s.RootConversation()), Status: &st})
	s.save()
}

// SetMode switches the mode; it takes effect at the next model call.
func (s *Session) SetMode(m policy.Mode) {
	s.mu.Lock()
	s.mode = m
	st := s.statusLocked()
	conv := s.rootConv.ID
	s.mu.Unlock()
	s.emit(event.Event{Kind: event.StatusChanged, Conversation: string(conv), Status: &st})
}

// Todos returns the root conversation's todo list.
func (s *Session) Todos() []store.Todo {
	c, _ := s.conversation("")
	return c.todoList()
}

// Submit starts a task for the input in the root conversation and returns
// its id at once; events report its progress. Input starting with `/` runs a
// built-in command, `!` a shell command (seed 001 §1).
func (s *Session) Submit(input string) (string, error) {
	return s.SubmitTo("", input)
}

// SubmitTo is Submit for a given conversation ("" is the root).
func (s *Session) SubmitTo(convID ConversationID, input string) (string, error) {
	id, _, err := s.start(convID, input, "")
	return string(id), err
}

// start queues the input as a new chain (single flight: ErrBusy while one
// runs) and returns its task id and the chain's done channel.
func (s *Session) start(convID ConversationID, input, typed string, images ...llm.Image) (TaskID, chan struct{}, error) {
	c, err := s.conversation(convID)
	if err != nil {
		return "", nil, fmt.Errorf("no conversation %q in this session: %w", convID, err)
	}
	if err := s.checkPromptSize(input); err != nil {
		return "", nil, err
	}
	id := TaskID(s.newID())
	done, err := s.sched.submit(&taskPlan{id: id, kind: planInput, conv: c.ID, input: input, typed: typed, images: images, turn: id})
	if err != nil {
		return "", nil, err
	}
	return id, done, nil
}

// SubmitImages is Submit with pictures attached to the user message. They
// go to the model as image parts; a command line takes none.
func (s *Session) SubmitImages(input string, images []llm.Image) (string, error) {
	return s.SubmitPrompt(input, "", images)
}

// SubmitPrompt is SubmitImages with typed, the part of input the user
// wrote themselves ("" when it is all of it): a front end that attaches
// context (an ACP client's files) says so, and whether the task is complex
// is judged on the user's own words only.
func (s *Session) SubmitPrompt(input, typed string, images []llm.Image) (string, error) {
	if t := strings.TrimSpace(input); len(images) > 0 && (strings.HasPrefix(t, "/") || strings.HasPrefix(t, "!")) {
		return "", errors.New("images cannot be attached to a / or ! command")
	}
	if len(images) > 0 && !s.opts.Config.AcceptsImages() {
		return "", errors.New("this model takes no images (model_images is false in the config); describe the picture in text instead")
	}
	id, _, err := s.start("", input, typed, images...)
	return string(id), err
}

// Run submits input and waits until it and every hand-over it starts have
// ended. Cancelling ctx interrupts them.
func (s *Session) Run(ctx context.Context, input string) error {
	_, done, err := s.start("", input, "")
	if err != nil {
		return err
	}
	select {
	case <-done:
	case <-ctx.Done():
		s.Cancel()
		return fmt.Errorf("%w: %w", ErrCancelled, ctx.Err())
	}
	return nil
}

// Cancel is the user's interrupt: it clears the queue of hand-overs,
// answers their pending calls "interrupted by the user", interrupts the
// running task and waits until it has stopped. The history stays valid:
// every tool call gets its result.
func (s *Session) Cancel() {
	if done := s.sched.interrupt(); done != nil {
		<-done
	}
}

// Wait blocks until no task runs.
func (s *Session) Wait() { s.sched.wait() }

// Close interrupts any task and waits up to conversations.close_timeout
// for it to stop; a task that does not stop is abandoned and reported.
// Then it waits for snapshots still being taken or dropped in the
// background and gives the session's lock up once the session file is
// written. The session file stays. Closing twice is harmless.
func (s *Session) Close() {
	s.stopLife()
	defer s.closeMCP()
	defer s.expireStored() // after the lock is given up: the ttl cleanup pass
	defer s.pruneApprovals()
	defer s.setLock(nil)
	defer s.bg.Wait()
	defer s.sandbox.private.Close() //nolint:errcheck // a temp dir left behind is the system's to clean
	defer s.ws.Shells().Close()
	s.stopCleanup() // before the lock is given up: a pass may save
	done := s.sched.interrupt()
	if done == nil {
		return
	}
	wait := s.opts.Config.CloseWait()
	select {
	case <-done:
	case <-time.After(wait):
		s.emit(event.Event{Kind: event.Notice, Conversation: string(s.RootConversation()), Text: fmt.Sprintf("the running task did not stop within %s (%v); abandoned", wait, ErrTimeout)})
	}
}

// emit stamps and delivers one event. Events are delivered one at a time.
func (s *Session) emit(ev event.Event) {
	s.mu.Lock()
	ev.Session = string(s.id)
	s.mu.Unlock()
	ev.Time = s.opts.Now()
	s.emitMu.Lock()
	defer s.emitMu.Unlock()
	s.opts.OnEvent(ev)
}
