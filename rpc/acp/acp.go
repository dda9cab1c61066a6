// Package acp is the Agent Client Protocol front end: `coder-nvim acp`
// speaks ACP v1 (newline-delimited JSON-RPC 2.0 on stdin/stdout) so Zed,
// codecompanion.nvim and other ACP clients drive the same engine as the
// Neovim plugin — its modes, approvals, slash commands and saved sessions.
//
// The protocol plumbing is github.com/coder/acp-go-sdk; this package maps
// the engine's sessions and events onto it.
package acp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/coder-nvim/coder-nvim/core/agent"
	"github.com/coder-nvim/coder-nvim/core/backend"
	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/mention"
	"github.com/coder-nvim/coder-nvim/core/policy"
	"github.com/coder-nvim/coder-nvim/core/store"
	sdk "github.com/coder/acp-go-sdk"
)

// Serve runs an ACP agent on in/out until in ends or ctx is cancelled.
// Only protocol messages go to out; diagnostics go to logw.
func Serve(ctx context.Context, in io.Reader, out io.Writer, logw io.Writer, version, launcher string) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	log := slog.New(slog.NewTextHandler(logw, nil))
	w := &syncWriter{w: out}
	pr, pw := io.Pipe()
	srv := &server{ctx: ctx, log: log, logw: logw, version: version, launcher: launcher, getenv: os.Getenv,
		sessions: map[sdk.SessionId]*session{}, roots: map[string]bool{}, deleted: map[sdk.SessionId]bool{}}
	if exe, err := os.Executable(); err == nil {
		srv.self = exe // the terminal follower's binary
	}
	srv.conn = sdk.NewAgentSideConnection(srv, w, pr)
	srv.conn.SetLogger(log)
	go filterInput(in, pw, w, log)

	select {
	case <-srv.conn.Done():
	case <-ctx.Done():
	}
	srv.closeAll()
	return ctx.Err()
}

// server implements the agent side of the protocol.
type server struct {
	ctx     context.Context // the connection's lifetime
	conn    *sdk.AgentSideConnection
	log     *slog.Logger
	logw    io.Writer // MCP servers' stderr goes here too
	version string
	// launcher is the host binary, which runs `sandbox-exec`.
	launcher string
	// self is this binary, which client terminals run as the follower of
	// a command's output (terminal.go).
	self   string
	getenv func(string) string

	mu       sync.Mutex
	caps     sdk.ClientCapabilities
	sessions map[sdk.SessionId]*session
	// roots are the workspaces of every session opened or listed, where
	// session/delete looks; deleted are the sessions it deleted.
	roots   map[string]bool
	deleted map[sdk.SessionId]bool
}

var (
	_ sdk.Agent       = (*server)(nil)
	_ sdk.AgentLoader = (*server)(nil)
)

// commandsDelay lets the session/new response reach the client before the
// first notification about the new session.
const commandsDelay = 50 * time.Millisecond

func (a *server) Initialize(_ context.Context, p sdk.InitializeRequest) (sdk.InitializeResponse, error) {
	a.mu.Lock()
	a.caps = p.ClientCapabilities
	a.mu.Unlock()
	return sdk.InitializeResponse{
		ProtocolVersion: sdk.ProtocolVersionNumber,
		AgentCapabilities: sdk.AgentCapabilities{
			LoadSession:        true,
			PromptCapabilities: sdk.PromptCapabilities{EmbeddedContext: true, Image: true},
			McpCapabilities:    sdk.McpCapabilities{Http: true},
			SessionCapabilities: sdk.SessionCapabilities{
				List:   &sdk.SessionListCapabilities{},
				Close:  &sdk.SessionCloseCapabilities{},
				Resume: &sdk.SessionResumeCapabilities{},
			},
		},
		AgentInfo:   &sdk.Implementation{Name: "coder-nvim", Title: sdk.Ptr("coder-nvim"), Version: a.version},
		AuthMethods: []sdk.AuthMethod{},
	}, nil
}

// Authenticate refuses every method id: none is advertised, since the
// provider key comes from the environment or the config files.
func (a *server) Authenticate(_ context.Context, p sdk.AuthenticateRequest) (sdk.AuthenticateResponse, error) {
	return sdk.AuthenticateResponse{}, sdk.NewInvalidParams(map[string]any{"methodId": p.MethodId,
		"error": fmt.Sprintf("methodId %q: this agent advertises no authentication methods; the model provider's key comes from the environment or the config files", p.MethodId)})
}

// UnstableSetSessionModel is session/set_model (unstable; avante falls
// back to it): the same as setting the model config option.
func (a *server) UnstableSetSessionModel(_ context.Context, p sdk.UnstableSetSessionModelRequest) (sdk.UnstableSetSessionModelResponse, error) {
	s, err := a.lookup(p.SessionId)
	if err != nil {
		return sdk.UnstableSetSessionModelResponse{}, err
	}
	if err := s.setConfigOption(optModel, string(p.ModelId)); err != nil {
		return sdk.UnstableSetSessionModelResponse{}, err
	}
	return sdk.UnstableSetSessionModelResponse{}, nil
}

func (a *server) NewSession(_ context.Context, p sdk.NewSessionRequest) (sdk.NewSessionResponse, error) {
	if err := noExtraRoots(p.AdditionalDirectories); err != nil {
		return sdk.NewSessionResponse{}, err
	}
	root, err := checkCwd(p.Cwd)
	if err != nil {
		return sdk.NewSessionResponse{}, err
	}
	s, err := a.open(root, "", p.McpServers)
	if err != nil {
		return sdk.NewSessionResponse{}, err
	}
	time.AfterFunc(commandsDelay, func() {
		s.send(availableCommands(s.eng.PromptCommands()))
		s.sendAgentsMD()
		// A workspace file the user has not trusted: the agent runs
		// restricted and says so.
		if n := s.workspaceNotice; n != "" {
			s.send(sdk.UpdateAgentMessageText(n))
		}
		if n := a.homeNotice(); n != "" {
			s.send(sdk.UpdateAgentMessageText(n))
		}
	})
	return sdk.NewSessionResponse{SessionId: s.id, Modes: modeState(s.eng.Status().Mode), ConfigOptions: s.configOptions()}, nil
}

func (a *server) LoadSession(_ context.Context, p sdk.LoadSessionRequest) (sdk.LoadSessionResponse, error) {
	if err := noExtraRoots(p.AdditionalDirectories); err != nil {
		return sdk.LoadSessionResponse{}, err
	}
	s, err := a.reopen(p.Cwd, p.SessionId, p.McpServers)
	if err != nil {
		return sdk.LoadSessionResponse{}, err
	}
	// The history goes out before the response, as the protocol asks. A
	// load that would replay nothing is no success: a client would show an
	// empty chat as resumed.
	history := s.eng.History("")
	if len(history) == 0 {
		a.forget(s)
		return sdk.LoadSessionResponse{}, notFound(p.SessionId, "the session holds no messages: there is nothing to load; start a new session")
	}
	for _, u := range replay(s.root, history) {
		s.send(u)
	}
	if todos := s.eng.ShownTodos(); len(todos) > 0 {
		var plan []event.Todo
		for _, td := range todos {
			plan = append(plan, event.Todo{Content: td.Content, Status: td.Status})
		}
		s.send(planUpdate(plan))
	}
	s.send(availableCommands(s.eng.PromptCommands()))
	s.sendAgentsMD()
	return sdk.LoadSessionResponse{Modes: modeState(s.eng.Status().Mode), ConfigOptions: s.configOptions()}, nil
}

// ResumeSession is session/load without the replay.
func (a *server) ResumeSession(_ context.Context, p sdk.ResumeSessionRequest) (sdk.ResumeSessionResponse, error) {
	if err := noExtraRoots(p.AdditionalDirectories); err != nil {
		return sdk.ResumeSessionResponse{}, err
	}
	s, err := a.reopen(p.Cwd, p.SessionId, p.McpServers)
	if err != nil {
		return sdk.ResumeSessionResponse{}, err
	}
	time.AfterFunc(commandsDelay, func() {
		s.send(availableCommands(s.eng.PromptCommands()))
		s.sendAgentsMD()
	})
	return sdk.ResumeSessionResponse{Modes: modeState(s.eng.Status().Mode), ConfigOptions: s.configOptions()}, nil
}

// reopen resumes a saved session, replacing a live one with the same id.
func (a *server) reopen(cwd string, id sdk.SessionId, mcp []sdk.McpServer) (*session, error) {
	root, err := checkCwd(cwd)
	if err != nil {
		return nil, err
	}
	if id == "" {
		return nil, sdk.NewInvalidParams(map[string]any{"error": "sessionId is required"})
	}
	a.mu.Lock()
	old := a.sessions[id]
	delete(a.sessions, id)
	a.mu.Unlock()
	if old != nil {
		old.close()
	}
	return a.open(root, string(id), mcp)
}

// open starts an engine session in root: a new one, or the saved one with
// the given id.
func (a *server) open(root, id string, mcp []sdk.McpServer) (*session, error) {
	cfg, err := config.Load(root, a.getenv)
	if err != nil {
		return nil, failure(fmt.Sprintf("configuration: %v", err))
	}
	servers, err := mcpServers(mcp)
	if err != nil {
		return nil, sdk.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	cfg.AddMCPServers(servers)
	be, err := backend.New(cfg)
	if err != nil {
		return nil, failure(fmt.Sprintf("model provider: %v", err))
	}
	cfg = be.Config // after detection
	s := newSession(a, root)
	opts := agent.Options{Config: cfg, Root: root, Provider: be.Provider, Demo: be.Demo, OnEvent: s.onEvent, Prompter: true, Log: a.logw, Version: a.version, Models: be.Models, Launcher: a.launcher}
	var eng *agent.Session
	if id == "" {
		eng, err = agent.Open(opts)
	} else {
		eng, err = agent.Resume(opts, agent.SessionID(id))
	}
	if err != nil {
		be.Close()
		if errors.Is(err, store.ErrNotFound) {
			return nil, notFound(sdk.SessionId(id), err.Error())
		}
		if errors.Is(err, store.ErrLocked) {
			// The message names the process; data carries it for a client.
			return nil, &sdk.RequestError{Code: codeSessionLocked, Message: err.Error(), Data: map[string]any{"error": err.Error(), "reason": "locked", "sessionId": id, "inUseBy": store.Holder(store.Dir(root), id)}}
		}
		return nil, failure(err.Error())
	}
	s.id, s.eng, s.be, s.mcp = sdk.SessionId(eng.ID()), eng, be, mcp
	s.model = eng.Status().Model
	s.listModels()
	// An Ollama that answers after start-up: from the next prompt.
	be.Follow(eng, func(nb *backend.Backend) {
		s.mu.Lock()
		s.be = nb
		s.mu.Unlock()
		s.listModels()
	})
	s.workspaceNotice = cfg.Workspace.Notice(root)
	s.mode = eng.Status().Mode

	a.mu.Lock()
	caps := a.caps.Fs
	a.sessions[s.id] = s
	a.roots[root] = true
	a.mu.Unlock()
	if caps.ReadTextFile || caps.WriteTextFile {
		eng.Workspace().SetFS(&clientFS{conn: a.conn, session: s.id, read: caps.ReadTextFile, write: caps.WriteTextFile, realRoot: eng.Workspace().Root(), cwd: root, timeout: a.clientTimeout()})
	}
	go s.pump()
	a.log.Info("session opened", "session", s.id, "cwd", root, "provider", cfg.Provider, "model", cfg.Model, "resumed", id != "")
	return s, nil
}

// homeNotice says that the user's directories cannot be found: no HOME
// (nor a passwd entry to find it, see cmd/coder-nvim) and no XDG
// directories in its place.
func (a *server) homeNotice() string {
	if runtime.GOOS == "windows" || a.getenv("HOME") != "" || a.getenv("XDG_CONFIG_HOME") != "" && a.getenv("XDG_STATE_HOME") != "" {
		return ""
	}
	return "Note: HOME is not set and the user's home directory cannot be found, so your configuration, trust records and session origins are not used: start the agent with HOME (or XDG_CONFIG_HOME and XDG_STATE_HOME) set.\n"
}

// defaultClientTimeout bounds each file request to the client: long enough
// for an editor that asks its user first, short of a turn hung for good.
const defaultClientTimeout = 60 * time.Second

// clientTimeout is defaultClientTimeout, or CODER_NVIM_ACP_CLIENT_TIMEOUT
// (a Go duration) when set and valid.
func (a *server) clientTimeout() time.Duration {
	if d, err := time.ParseDuration(a.getenv("CODER_NVIM_ACP_CLIENT_TIMEOUT")); err == nil && d > 0 {
		return d
	}
	return defaultClientTimeout
}

func (a *server) lookup(id sdk.SessionId) (*session, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if s := a.sessions[id]; s != nil {
		return s, nil
	}
	return nil, notFound(id, "no such session in this agent; create it with session/new or load it with session/load")
}

func (a *server) Prompt(ctx context.Context, p sdk.PromptRequest) (sdk.PromptResponse, error) {
	s, err := a.lookup(p.SessionId)
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	// Queued behind the running turn from here on (queue.go); the work
	// below runs on the turn's context, which a later prompt leaves alone.
	t := s.newTurn(ctx)
	defer s.leave(t)
	ctx = t.ctx
	input, typed, images, err := fold(p.Prompt)
	if err != nil {
		return sdk.PromptResponse{}, sdk.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	command := isCommand(p.Prompt)
	if line, ok := wrappedCommand(p.Prompt); ok && len(images) == 0 {
		input, typed, command = line, "", true // a command inside a client's wrapper (wrappers.go)
	}
	// "@path" and "#diff" typed in the prompt's text (a client that sends
	// plain text) are resolved here, with the workspace's path rules, and
	// so are the workspace files it links (codecompanion's /file, avante's
	// attachments): read through the client when it offers reads, so an
	// unsaved buffer wins. Embedded resources are already in input.
	if !command {
		items := s.eng.ResolveMentions(ctx, promptWords(p.Prompt))
		items = append(items, notMentioned(s.eng.ResolveFiles(ctx, linkedFiles(p.Prompt)), items)...)
		if len(items) > 0 {
			var more []llm.Image
			input, more, _ = mention.Attach(input, items, mention.DefaultLimits)
			images = append(images, more...)
		}
	}
	s.lineOpen.Store(false) // a new turn's text starts a new message
	stop, err := s.prompt(t, input, typed, images)
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	return sdk.PromptResponse{StopReason: stop}, nil
}

// notMentioned are the linked files not already attached whole by an
// "@path" of the same prompt: a file linked and mentioned goes once.
func notMentioned(linked, mentioned []mention.Item) []mention.Item {
	whole := map[string]bool{}
	for _, it := range mentioned {
		if it.Range == "" && it.Err == "" {
			whole[it.Path] = true
		}
	}
	var out []mention.Item
	for _, it := range linked {
		if !whole[it.Path] {
			out = append(out, it)
		}
	}
	return out
}

// Cancel stops the session's turn. The SDK has already cancelled the
// prompt's context; stopping here too covers a turn between its request
// and the context check.
//
// It must not wait for the turn to stop: the SDK holds every response to
// our own requests until the notification being handled returns, and a
// stopping turn may still need one (a rolled-back write through the
// client), which would deadlock.
func (a *server) Cancel(_ context.Context, p sdk.CancelNotification) error {
	s, err := a.lookup(p.SessionId)
	if err != nil {
		return nil // a notification: nothing to answer, nothing to stop
	}
	s.cancelTurn()
	return nil
}

func (a *server) SetSessionMode(_ context.Context, p sdk.SetSessionModeRequest) (sdk.SetSessionModeResponse, error) {
	s, err := a.lookup(p.SessionId)
	if err != nil {
		return sdk.SetSessionModeResponse{}, err
	}
	m, err := policy.ParseMode(string(p.ModeId))
	if err != nil {
		return sdk.SetSessionModeResponse{}, sdk.NewInvalidParams(map[string]any{"error": err.Error(), "modeId": p.ModeId})
	}
	s.eng.SetMode(m)
	return sdk.SetSessionModeResponse{}, nil
}

func (a *server) ListSessions(_ context.Context, p sdk.ListSessionsRequest) (sdk.ListSessionsResponse, error) {
	var roots []string
	if p.Cwd != nil {
		root, err := checkCwd(*p.Cwd)
		if err != nil {
			return sdk.ListSessionsResponse{}, err
		}
		roots = []string{root}
		a.mu.Lock()
		a.roots[root] = true
		a.mu.Unlock()
	} else {
		seen := map[string]bool{}
		a.mu.Lock()
		for _, s := range a.sessions {
			if !seen[s.root] {
				seen[s.root] = true
				roots = append(roots, s.root)
			}
		}
		a.mu.Unlock()
		sort.Strings(roots)
	}
	start, err := listCursor(p.Cursor)
	if err != nil {
		return sdk.ListSessionsResponse{}, err
	}
	out := sdk.ListSessionsResponse{Sessions: []sdk.SessionInfo{}}
	for _, root := range roots {
		dir, err := store.WorkspaceDir(root)
		if err != nil {
			return sdk.ListSessionsResponse{}, failure(err.Error())
		}
		list, err := store.List(dir)
		if err != nil {
			return sdk.ListSessionsResponse{}, failure(err.Error())
		}
		for _, sum := range list {
			if sum.Messages == 0 {
				continue // nothing to load
			}
			info := sdk.SessionInfo{Cwd: root, SessionId: sdk.SessionId(sum.ID), UpdatedAt: sdk.Ptr(sum.UpdatedAt.UTC().Format(time.RFC3339))}
			if sum.FirstPrompt != "" {
				info.Title = sdk.Ptr(sessionTitle(sum.FirstPrompt))
			}
			out.Sessions = append(out.Sessions, info)
		}
	}
	return page(out.Sessions, start), nil
}

// markInUse marks a listed session another process holds (pid, or -1 when
// its pid is unknown): loading it would be refused, so its title says so
// and _meta["coder-nvim"].inUseBy names the process.
func markInUse(info *sdk.SessionInfo, pid int) {
	if pid == 0 || pid == os.Getpid() {
		return
	}
	who := "another process"
	if pid > 0 {
		who = fmt.Sprintf("process %d", pid)
	}
	title := "(untitled)"
	if info.Title != nil {
		title = *info.Title
	}
	info.Title = sdk.Ptr(fmt.Sprintf("%s [open in %s]", title, who))
	info.Meta = map[string]any{"coder-nvim": map[string]any{"inUseBy": pid}}
}

// forget closes s and drops it from the live sessions.
func (a *server) forget(s *session) {
	a.mu.Lock()
	if a.sessions[s.id] == s {
		delete(a.sessions, s.id)
	}
	a.mu.Unlock()
	s.close()
}

func (a *server) CloseSession(_ context.Context, p sdk.CloseSessionRequest) (sdk.CloseSessionResponse, error) {
	a.mu.Lock()
	s := a.sessions[p.SessionId]
	delete(a.sessions, p.SessionId)
	a.mu.Unlock()
	if s == nil {
		return sdk.CloseSessionResponse{}, notFound(p.SessionId, "no such session in this agent")
	}
	s.close()
	return sdk.CloseSessionResponse{}, nil
}

func (a *server) SetSessionConfigOption(_ context.Context, p sdk.SetSessionConfigOptionRequest) (sdk.SetSessionConfigOptionResponse, error) {
	if p.ValueId == nil {
		return sdk.SetSessionConfigOptionResponse{}, sdk.NewInvalidParams(map[string]any{"error": "this agent's options (mode, model) take a value id, not a boolean"})
	}
	s, err := a.lookup(p.ValueId.SessionId)
	if err != nil {
		return sdk.SetSessionConfigOptionResponse{}, err
	}
	if err := s.setConfigOption(p.ValueId.ConfigId, string(p.ValueId.Value)); err != nil {
		return sdk.SetSessionConfigOptionResponse{}, err
	}
	return sdk.SetSessionConfigOptionResponse{ConfigOptions: s.configOptions()}, nil
}

// closeAll interrupts every session (their files stay) at shutdown.
func (a *server) closeAll() {
	a.mu.Lock()
	all := a.sessions
	a.sessions = map[sdk.SessionId]*session{}
	a.mu.Unlock()
	for _, s := range all {
		s.close()
	}
}

// checkCwd validates a session's working directory: absolute, an existing
// directory. It becomes the workspace root.
func checkCwd(cwd string) (string, error) {
	if cwd == "" || !filepath.IsAbs(cwd) {
		return "", sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("cwd must be an absolute path, got %q", cwd)})
	}
	st, err := os.Stat(cwd)
	if err != nil || !st.IsDir() {
		return "", sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("cwd %s is not a directory", cwd)})
	}
	return filepath.Clean(cwd), nil
}

// noExtraRoots refuses additionalDirectories (not advertised): the
// workspace is the cwd alone, and ignoring them would let a client believe
// the agent sees files it cannot.
func noExtraRoots(dirs []string) error {
	if len(dirs) == 0 {
		return nil
	}
	return sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("additionalDirectories (%s) are not supported: this agent's workspace is the cwd alone; open a session in a directory that holds them all", strings.Join(dirs, ", ")), "additionalDirectories": dirs})
}

// codeNotFound is ACP's "resource not found"; codeSessionLocked, in the
// server range, says another process has the session open.
const (
	codeNotFound      = -32002
	codeSessionLocked = -32010
)

func notFound(id sdk.SessionId, detail string) *sdk.RequestError {
	return &sdk.RequestError{Code: codeNotFound, Message: fmt.Sprintf("session %q not found", id), Data: map[string]any{"sessionId": id, "error": detail}}
}

// failure is an internal error whose message says what failed, since
// clients show the message.
func failure(msg string) *sdk.RequestError {
	return &sdk.RequestError{Code: -32603, Message: msg, Data: map[string]any{"error": msg}}
}

func shorten(s string, n int) string {
	r := []rune(s)
	for i, c := range r {
		if c == '\n' {
			r = r[:i]
			break
		}
	}
	if len(r) > n {
		return string(r[:n]) + "…"
	}
	return string(r)
}
