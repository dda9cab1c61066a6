package nvimhost

// Opening the session: coder_start, the configuration and provider it
// opens with, reopening it when the workspace is trusted, and the wait of
// requests that overtook coder_start.

import (
	"errors"
	"fmt"
	"github.com/coder-nvim/coder-nvim/core/text"
	"os"
	"path/filepath"
	"time"

	"github.com/coder-nvim/coder-nvim/core/agent"
	"github.com/coder-nvim/coder-nvim/core/backend"
	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/cpuprio"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/store"
)

// startArgs is what the plugin sends with coder_start.
type startArgs struct {
	Cwd    string `msgpack:"cwd"`
	Resume string `msgpack:"resume"`
	// MCPServers is setup({ mcp_servers }) as a JSON object ("" for none).
	MCPServers string `msgpack:"mcp_servers"`
	// OpenKey is the key that opens a folded text (keys.open_full); the
	// fold notices name it. "": unmapped.
	OpenKey string `msgpack:"open_key"`
	// Nice is setup({ host_nice }): how far below the editor the host and
	// the tools it runs take the CPU (0: level with it).
	Nice int `msgpack:"nice"`
	// EditorPID is Neovim's pid: the host stays below its session.
	EditorPID int `msgpack:"editor_pid"`
	// Shown is the session the plugin's transcript already shows ("":
	// none, or it was wiped): a resumed session is replayed unless it is
	// this one.
	Shown string `msgpack:"shown"`
}

// start opens the session for the editor's working directory. A second
// start only repeats the ready message.
func (h *host) start(args startArgs) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.started {
		h.readyLocked(false)
		return
	}
	h.started = true
	defer close(h.opened)
	// Before any tool runs, so that every child inherits it.
	switch how, err := cpuprio.Lower(args.Nice, args.EditorPID); {
	case err != nil:
		h.priority = "not lowered: " + err.Error()
		h.log.Printf("host_nice: %v", err)
	case how == "":
		h.priority = "level with Neovim"
	default:
		h.priority = "below Neovim: " + how
	}
	h.args = args
	h.openLocked(args.Resume, nil)
}

// openLocked loads the configuration and opens the session, resuming the
// one with the given id when it can. untrusted, when the user has just
// trusted the workspace's config, is the configuration from before: a
// mode or preset the trust changed wins over the one the session saved.
// h.mu is held.
func (h *host) openLocked(resume string, untrusted *config.Config) {
	args := h.args
	root := args.Cwd
	if root == "" {
		root, _ = os.Getwd()
	}
	if abs, err := filepath.Abs(root); err == nil {
		root = abs
	}
	h.root = root
	cfg, err := config.Load(root, os.Getenv)
	if err != nil {
		h.failLocked(fmt.Errorf("configuration: %w", err))
		return
	}
	if args.MCPServers != "" {
		servers, err := config.DecodeMCPServers([]byte(args.MCPServers))
		if err != nil {
			h.failLocked(fmt.Errorf("setup({ mcp_servers }): %w", err))
			return
		}
		cfg.AddMCPServers(servers)
	}
	be, err := backend.New(cfg)
	if err != nil {
		h.cfg = cfg
		h.failLocked(fmt.Errorf("provider: %w", err))
		return
	}
	cfg = be.Config // after detection
	h.cfg = cfg
	opts := agent.Options{Config: cfg, Root: root, Provider: be.Provider, Demo: be.Demo, OnEvent: h.onEvent, Prompter: true, Log: h.log.Writer(), Version: h.version, Models: be.Models, Editor: h.editor, Launcher: h.launcher}
	if untrusted != nil {
		opts.ModeFromTrust = cfg.Mode != untrusted.Mode
		opts.PresetFromTrust = cfg.Permissions.Preset != untrusted.Permissions.Preset
	}
	var sess *agent.Session
	resumed := false
	if resume != "" {
		if sess, err = agent.Resume(opts, agent.SessionID(resume)); err == nil {
			resumed = true
		} else {
			h.log.Printf("resume %s: %v; opening a new session", resume, err)
			if errors.Is(err, store.ErrLocked) || errors.Is(err, store.ErrLeavesWorkspace) {
				// Another Neovim has it, or the sessions directory is a
				// link out: say so, rather than silently continuing in a
				// new session.
				h.notify("warn", err.Error()+"\nThis editor continues in a new session.")
			}
		}
	}
	if sess == nil {
		if sess, err = agent.Open(opts); err != nil {
			be.Close()
			h.failLocked(fmt.Errorf("open session: %w", err))
			return
		}
	}
	h.sess, h.chat, h.be = sess, sess, be
	// An Ollama that answers after start-up: from the next turn.
	be.Follow(sess, func(nb *backend.Backend) {
		h.mu.Lock()
		defer h.mu.Unlock()
		if h.be == be {
			h.be, h.cfg = nb, nb.Config
		}
	})
	sess.Workspace().SetGuard(h.guard)
	// List the files for @ completion now, in the background (the host
	// runs below Neovim's priority): the first @ then has them.
	h.fileIndex(sess.Workspace()).Warm()
	h.renderMu.Lock()
	// What the transcript shows: the previous renderer's session when the
	// session reopens in this host (trust), else what the plugin said.
	shown := args.Shown
	if h.render != nil {
		shown = h.render.session
	}
	h.render = newRenderer(sess.Root(), h.out.addText, h.out.add)
	h.render.history = func() ([]llm.Message, []store.Command) { return sess.History(""), sess.Commands("") }
	h.render.openKey = args.OpenKey
	h.renderMu.Unlock()
	h.readyLocked(resumed)
	h.renderMu.Lock()
	if resumed && shown != string(sess.ID()) {
		// The transcript does not show the resumed session (wiped while
		// the last host was gone): show what it holds before anything new.
		h.render.replayHistory()
	}
	for _, ev := range h.early {
		h.render.event(ev)
	}
	h.early = nil
	h.renderMu.Unlock()
	if cfg.Workspace.Invalid != "" {
		// The repository's config is broken: the user's settings stand.
		h.out.add(op{"t": "notify", "level": "warn", "msg": "coder: " + cfg.Workspace.Invalid}, true)
	}
	if cfg.Workspace.Restricted() {
		// The workspace's own config asked for more than it got: the
		// plugin asks the user whether to trust it.
		h.out.add(trustOp(cfg, root), true)
	}
}

// trustOp asks the plugin to show the trust question: what the file asks
// for, and the hash of the content that list was made from, which the
// answer names.
//
// Every item is listed, each long value in it cut ("… (N more
// characters)"), so that one value cannot push the others out of the
// float; `v` there shows the file whole.
func trustOp(cfg config.Config, root string) op {
	ignored := make([]string, len(cfg.Workspace.Ignored))
	for i, item := range cfg.Workspace.Ignored {
		ignored[i] = text.CutRuns(item, trustRun, trustRunKeep, trustItemMax)
	}
	return op{"t": "trust", "file": cfg.Workspace.File, "ignored": ignored, "root": root, "hash": cfg.Workspace.Hash}
}

// The trust float's cuts: a run (a value, a word, whitespace) longer
// than trustRun characters keeps trustRunKeep; an item at most
// trustItemMax characters (a few rows even on a narrow screen).
const (
	trustRun     = 80
	trustRunKeep = 60
	trustItemMax = 600
)

// trustRequest records the user's trust in the workspace's config file as
// the float showed it (hash: its content then) and reopens the session
// under it. A file changed since is not trusted: the float shows it again.
func (h *host) trustRequest(hash string) (string, error) {
	h.waitOpened()
	h.mu.Lock()
	defer h.mu.Unlock()
	// Nothing is recorded while a turn runs: the record would apply at
	// the next start while this session goes on untrusted.
	if h.sess != nil && h.sess.Status().Busy {
		return "", errors.New("trust: a turn is running; stop it or wait, then trust again (:Coder trust)")
	}
	if h.sess != h.chat {
		return "", errors.New("trust: a task's transcript is shown; go back to the chat first (:Coder tasks, then <CR> on the chat line)")
	}
	if err := config.TrustShown(h.root, os.Getenv, hash); err != nil {
		if errors.Is(err, config.ErrChangedSinceShown) {
			if cfg, lerr := config.Load(h.root, os.Getenv); lerr == nil && cfg.Workspace.Restricted() {
				h.out.add(trustOp(cfg, h.root), true)
			}
		}
		return "", fmt.Errorf("trust: %w", err)
	}
	untrusted := h.cfg
	resume := ""
	if h.sess != nil {
		resume = string(h.sess.ID())
		h.sess.Close()
		h.sess, h.chat = nil, nil
	}
	if h.be != nil && h.be.Close != nil {
		h.be.Close()
		h.be = nil
	}
	h.cfgErr = nil
	h.openLocked(resume, &untrusted)
	if h.cfgErr != nil {
		return "", h.cfgErr
	}
	return "trusted " + config.WorkspaceFile(h.root), nil
}

// readyLocked tells the plugin the session is open and writes the
// transcript header. h.mu is held.
func (h *host) readyLocked(resumed bool) {
	if h.sess == nil {
		if h.cfgErr != nil {
			h.out.add(op{"t": "notify", "level": "error", "msg": "coder: " + h.cfgErr.Error()}, true)
		}
		return
	}
	st := h.sess.Status()
	id := string(h.sess.ID())
	names, help := commandList(h.sess)
	h.out.add(op{"t": "ready", "version": h.version, "commands": names, "command_help": help, "session_id": id, "demo": st.Demo, "cwd": st.Cwd}, true)
	h.renderMu.Lock()
	h.render.header(h.version, st, id, resumed)
	h.out.add(h.render.statusOp(), true)
	h.renderMu.Unlock()
}

// failLocked says why the session could not open: in a notification, in
// the chat and in the status line, which otherwise waits at "starting…"
// for good. h.mu is held.
func (h *host) failLocked(err error) {
	h.cfgErr = err
	h.log.Print(err)
	msg := "coder: " + err.Error()
	if !h.retrying {
		// Sent again from the chat, the chat line says it: once.
		h.out.add(op{"t": "notify", "level": "error", "msg": msg}, true)
	}
	line := "✗ " + msg + "\n  Fix it, then send again: the session opens then (your input is kept)."
	h.renderMu.Lock()
	if h.render != nil {
		h.render.line(hlError, line)
	} else {
		h.out.addText("", "\n")
		h.out.addText(hlError, line+"\n")
	}
	h.renderMu.Unlock()
	h.out.add(op{"t": "status", "status": map[string]any{"error": err.Error()}}, true)
}

// retryOpen opens the session again when opening it failed: the user may
// have fixed the configuration since, and input sent then runs.
func (h *host) retryOpen() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.sess != nil || h.cfgErr == nil || !h.started {
		return
	}
	h.cfgErr = nil
	h.retrying = true
	h.openLocked(h.args.Resume, nil)
	h.retrying = false
}

// openTimeout bounds how long a request waits for coder_start.
const openTimeout = 10 * time.Second

// waitOpened waits until coder_start has been handled, so a request that
// overtook it does not see a session that is about to open as missing.
func (h *host) waitOpened() {
	t := time.NewTimer(openTimeout)
	defer t.Stop()
	select {
	case <-h.opened:
	case <-h.ctx.Done():
	case <-t.C:
	}
}
