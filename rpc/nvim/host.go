// Package nvimhost is the Neovim front end of coder-nvim: it serves the Lua
// plugin (lua/coder) over msgpack-RPC on stdio. The plugin starts it with
// jobstart(..., {rpc = true}); every agent decision stays in Go, and Neovim
// only receives small batches of rendering operations.
//
// Lua → Go (rpcnotify unless noted):
//
//	coder_start {cwd, resume, shown, …}  open (or resume, replayed unless
//	                                the transcript shows it) the session of cwd
//	coder_submit text [items]       run input: text, /command or !shell;
//	                                items: context the editor gathered
//	coder_complete id kind query    completion candidates, answered with
//	                                require('coder.complete').answer(id, items)
//	coder_cancel                    interrupt the running turn
//	coder_answer id decision accepted   answer an approval request
//	coder_answer_plan id decision plan comment   answer a plan hand-off
//	coder_answer_elicit id decision values (rpcrequest)  answer an MCP server's question ("" or why not)
//	coder_status (rpcrequest)       current status
//	coder_commands (rpcrequest)     built-in command names
//	coder_health (rpcrequest)       provider configuration and reachability
//	coder_full_text id (rpcrequest)     a folded answer or tool output, whole
//	coder_conversations (rpcrequest)    the conversations, for a picker
//	coder_target id (rpcrequest)        send input to conversation id ("" the root)
//	coder_rewind (rpcrequest)           the turns /rewind N can go back to, for a picker
//	coder_review n (rpcrequest)         turn n's hunks (0: the last turn that changed files)
//	coder_review_verdict n id keep reason (rpcrequest)  keep or reject (revert) one hunk
//	coder_transcript id (rpcrequest)    a conversation's messages as transcript text
//	coder_conversation_new line form (rpcrequest)  open a conversation (`/conversation new` arguments or form answers) and target it
//	coder_conversation_set line (rpcrequest)       change the target conversation's context (KEY VALUE)
//	coder_inline {…}                    :Coder edit: rewrite a selection (answer: inline_review op)
//	coder_inline_cancel                 stop the inline edit asking the model
//	coder_inline_result id decision accepted (rpcrequest)  the reviewed selection's lines
//	coder_lua_done id json              the answer of a coder.lsp call that waited
//	coder_task_start line               :Coder task: start a task (/task's arguments)
//	coder_task line (rpcrequest)        the same, answered with what it did
//	coder_tasks (rpcrequest)            the task list buffer's lines
//	coder_task_action n action (rpcrequest)   a key of the task list (open, diff, stop, …)
//	coder_task_review n / coder_task_verdict n id keep reason (rpcrequest)  a task's merge review
//
// Go → Lua: nvim_exec_lua of require('coder.bridge').apply(ops), at most
// ~30 times per second for streamed text, at once for anything else; and
// require('coder.bridge').buffer_modified(path) from the write guard; and
// require('coder.lsp') for diagnostics and language-server queries.
package nvimhost

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/coder-nvim/coder-nvim/core/agent"
	"github.com/coder-nvim/coder-nvim/core/agent/command"
	"github.com/coder-nvim/coder-nvim/core/backend"
	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/mention"
	"github.com/coder-nvim/coder-nvim/core/store"
	"github.com/neovim/go-client/nvim"
)

// guardTimeout bounds how long a write waits for Neovim to say whether the
// file's buffer has unsaved edits.
const guardTimeout = 5 * time.Second

// host is one connection to Neovim and the session it drives.
type host struct {
	v       *nvim.Nvim
	log     *log.Logger
	version string
	// launcher is the host binary, which runs `sandbox-exec`.
	launcher string
	ctx      context.Context
	out      *outbox

	mu sync.Mutex
	// sess is the session the transcript shows and input goes to: chat,
	// the chat's own, or a task's opened from the task list (tasks.go).
	sess   *agent.Session
	chat   *agent.Session
	tasks  taskFront
	be     *backend.Backend
	cfg    config.Config
	cfgErr error
	// retrying: the open is a send's retry (retryOpen), its failure shown
	// in the chat only.
	retrying bool
	args     startArgs // what coder_start sent, for reopening
	queue    inputQueue
	root     string // the workspace
	// priority is how the host's CPU priority was set (host_nice), for
	// :checkhealth.
	priority string
	render   *renderer // guarded by renderMu
	started  bool
	// opened is closed once coder_start has been handled (the session is
	// open or failed). Requests run concurrently with notifications, so a
	// request sent right after coder_start waits for it here.
	opened chan struct{}

	comp   completer   // @ and /model completion
	editor *nvimEditor // the engine's editor.Editor: language servers
	inline inlineEdits // :Coder edit

	renderMu sync.Mutex
	early    []event.Event // notices from before the renderer existed (guarded by renderMu)
	// shownTask is the task whose session the transcript shows (0: the
	// chat's); guarded by renderMu, so an event is rendered by the
	// renderer of the session it comes from.
	shownTask int
}

// maxEarly bounds the notices kept from before the transcript existed.
const maxEarly = 20

// Serve speaks msgpack-RPC with the Neovim on in/out until the connection
// closes or ctx ends. Nothing but RPC is written to out; logs go to logw.
func Serve(ctx context.Context, in io.Reader, out io.Writer, logw io.Writer, version, launcher string) error {
	logger := log.New(logw, "coder-nvim: ", log.LstdFlags)
	closer, ok := out.(io.Closer)
	if !ok {
		closer = io.NopCloser(nil)
	}
	v, err := nvim.New(in, out, closer, logger.Printf)
	if err != nil {
		return fmt.Errorf("rpc: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	h := &host{v: v, log: logger, version: version, launcher: launcher, ctx: ctx, out: newOutbox(), opened: make(chan struct{})}
	h.editor = newNvimEditor(h)
	if err := h.register(); err != nil {
		return err
	}
	go h.out.run(ctx, h.send, logger.Printf)

	served := make(chan error, 1)
	go func() { served <- v.Serve() }()
	select {
	case err = <-served:
	case <-ctx.Done():
		err = ctx.Err()
		v.Close()
	}
	h.shutdown()
	return err
}

func (h *host) register() error {
	handlers := map[string]any{
		"coder_start":            h.start,
		"coder_submit":           h.submit,
		"coder_cancel":           h.cancel,
		"coder_answer":           h.answer,
		"coder_answer_plan":      h.answerPlan,
		"coder_answer_elicit":    h.answerElicitRequest,
		"coder_status":           h.statusRequest,
		"coder_commands":         h.commandsRequest,
		"coder_health":           h.healthRequest,
		"coder_conversations":    h.conversationsRequest,
		"coder_target":           h.targetRequest,
		"coder_rewind":           h.rewindRequest,
		"coder_review":           h.reviewRequest,
		"coder_review_verdict":   h.reviewVerdictRequest,
		"coder_review_comment":   h.reviewCommentRequest,
		"coder_review_comments":  h.reviewCommentsRequest,
		"coder_review_send":      h.reviewSend,
		"coder_transcript":       h.transcriptRequest,
		"coder_conversation_new": h.conversationNewRequest,
		"coder_conversation_set": h.conversationSetRequest,
		"coder_full_text":        h.fullTextRequest,
		"coder_trust":            h.trustRequest,
		"coder_complete":         h.complete,
		"coder_lua_done":         h.editor.luaDone,
		"coder_inline":           h.inlineEdit,
		"coder_inline_cancel":    h.inlineCancel,
		"coder_inline_result":    h.inlineResult,
		"coder_task":             h.taskRequest,
		"coder_task_start":       h.taskStart,
		"coder_tasks":            h.tasksRequest,
		"coder_task_action":      h.taskActionRequest,
		"coder_task_review":      h.taskReviewRequest,
		"coder_task_verdict":     h.taskVerdictRequest,
	}
	for name, fn := range handlers {
		if err := h.v.RegisterHandler(name, fn); err != nil {
			return fmt.Errorf("register %s: %w", name, err)
		}
	}
	return nil
}

func (h *host) shutdown() {
	h.closeTasks()
	h.mu.Lock()
	sess, be := h.chat, h.be
	h.sess, h.chat, h.be = nil, nil, nil
	h.mu.Unlock()
	if sess != nil {
		sess.Close()
	}
	if be != nil && be.Close != nil {
		be.Close()
	}
}

// send applies a batch of operations in Neovim and waits for it.
func (h *host) send(ops []op) error {
	return h.v.ExecLua("return require('coder.bridge').apply(...)", nil, ops)
}

// onEvent renders engine events; the session calls it one at a time.
func (h *host) onEvent(ev event.Event) {
	if ev.Kind == event.CommandsChanged {
		go h.commandsChanged() // never under the caller's locks
		return
	}
	if ev.Kind == event.Error && ev.Reason == event.ReasonSessionLocked {
		h.notify("warn", ev.Text)
	}
	h.ownApproval(0, ev)
	h.renderMu.Lock()
	if h.shownTask != 0 {
		// A task is shown: the chat's events wait in its history, but
		// what needs the user reaches them.
		h.renderMu.Unlock()
		h.backgroundEvent(0, ev)
		return
	}
	switch {
	case h.render != nil:
		h.render.event(ev)
	case (ev.Kind == event.Notice || ev.Kind == event.Error) && len(h.early) < maxEarly:
		// Said while the session opened (a resume in plan mode): shown
		// under the header once the transcript exists.
		h.early = append(h.early, ev)
	}
	h.renderMu.Unlock()
	h.sendQueued(ev)
}

func (h *host) session() (*agent.Session, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.sess != nil {
		return h.sess, nil
	}
	if h.cfgErr != nil {
		return nil, h.cfgErr
	}
	return nil, errors.New("the session is not open yet")
}

// openFailed reports whether opening the session failed (cfgErr).
func (h *host) openFailed() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.cfgErr != nil
}

func (h *host) notify(level, msg string) {
	h.out.add(op{"t": "notify", "level": level, "msg": "coder: " + msg}, true)
}

// submit runs input; items are the context the editor gathered for the
// mentions in it (#buffer, #diagnostics …), "@path" and "#diff" are
// resolved by the engine.
func (h *host) submit(text string, items []mention.Item) {
	h.retryOpen()
	sess, err := h.session()
	if err != nil {
		// Given back to the input: nothing typed is lost. Why the session
		// is not open the chat has just said.
		msg := "coder: " + err.Error()
		if h.openFailed() {
			msg = ""
		}
		h.out.add(op{"t": "input_rejected", "text": text, "msg": msg}, true)
		return
	}
	if strings.TrimSpace(text) == "/resume" {
		h.pickSession(sess)
		return
	}
	if h.taskCommand(text) {
		return
	}
	h.renderMu.Lock()
	target := h.render.target
	h.renderMu.Unlock()
	if _, _, err := sess.SubmitMentions(h.ctx, agent.ConversationID(target), text, items); err != nil {
		if errors.Is(err, agent.ErrBusy) {
			h.queueInput(text, items)
			return
		}
		if errors.Is(err, agent.ErrNotFound) {
			// The target was destroyed (conv.destroy) or belongs to
			// another session: input goes to the root again.
			h.setTarget("")
			err = fmt.Errorf("%w; input goes to the root conversation again", err)
		}
		h.out.add(op{"t": "input_rejected", "text": text, "msg": "coder: " + err.Error()}, true)
	}
}

// pickSession answers a bare /resume in the editor with a picker over the
// saved sessions; the choice comes back as `/resume ID`.
func (h *host) pickSession(sess *agent.Session) {
	list, err := sess.OtherSessions()
	tasks := h.taskSessions()
	if (err != nil || len(list) == 0) && len(tasks) == 0 {
		// The engine's own /resume explains (usage, no sessions, errors).
		if _, err := sess.Submit("/resume"); err != nil {
			h.out.add(op{"t": "input_rejected", "text": "/resume", "msg": "coder: " + err.Error()}, true)
		}
		return
	}
	var items []map[string]any
	for _, s := range list {
		items = append(items, map[string]any{"id": s.ID, "label": sessionLabel(s)})
	}
	h.out.add(op{"t": "pick_session", "items": append(items, tasks...)}, true)
}

// maxPromptRunes is how much of a session's first prompt the picker shows.
const maxPromptRunes = 60

// sessionLabel is one picker line: date, first line of the first prompt
// (cut on a character boundary) and the message count.
func sessionLabel(s store.Summary) string {
	prompt, _, _ := strings.Cut(strings.TrimSpace(s.FirstPrompt), "\n")
	if r := []rune(prompt); len(r) > maxPromptRunes {
		prompt = string(r[:maxPromptRunes]) + "…"
	}
	return fmt.Sprintf("%s  %s  (%d messages)", s.UpdatedAt.Local().Format("2006-01-02 15:04"), prompt, s.Messages)
}

func (h *host) cancel() {
	sess, err := h.session()
	if err != nil {
		return
	}
	h.dropQueued()
	// Cancel waits for the task to stop; the notification queue must not.
	go sess.Cancel()
}

// answer resolves an approval. accepted is a map from path to a list of
// booleans, one per hunk; Lua sends an empty list for an empty map.
func (h *host) answer(id, decision string, accepted any) {
	sess, err := h.approvalSession(id)
	if err != nil {
		h.notify("error", err.Error())
		return
	}
	a := agent.Answer{Decision: agent.Decision(decision)}
	if m, ok := accepted.(map[string]any); ok && len(m) > 0 {
		a.Accepted = map[string][]bool{}
		for path, v := range m {
			list, ok := v.([]any)
			if !ok {
				h.notify("error", fmt.Sprintf("approval answer: hunk choices for %s are not a list", path))
				return
			}
			choices := make([]bool, len(list))
			for i, c := range list {
				b, ok := c.(bool)
				if !ok {
					h.notify("error", fmt.Sprintf("approval answer: hunk choice %d for %s is not a boolean", i+1, path))
					return
				}
				choices[i] = b
			}
			a.Accepted[path] = choices
		}
	}
	if err := sess.Answer(id, a); err != nil {
		h.notify("warn", err.Error())
	}
}

func (h *host) statusRequest() (map[string]any, error) {
	h.waitOpened()
	sess, err := h.session()
	if err != nil {
		return nil, err
	}
	h.renderMu.Lock()
	defer h.renderMu.Unlock()
	h.render.status = sess.Status()
	return h.render.statusOp()["status"].(map[string]any), nil
}

// fullTextRequest gives a folded text whole, for the scratch buffer the
// Lua side opens: {title, lines}.
func (h *host) fullTextRequest(id int) (map[string]any, error) {
	sess, err := h.session()
	if err != nil {
		return nil, err
	}
	h.renderMu.Lock()
	x, err := h.render.folds.get(id)
	h.renderMu.Unlock()
	if err != nil {
		return nil, err
	}
	lines, err := x.whole(func(conv string) []llm.Message { return sess.History(agent.ConversationID(conv)) })
	if err != nil {
		return nil, err
	}
	return map[string]any{"title": x.title, "lines": lines}, nil
}

func (h *host) commandsRequest() ([]string, error) {
	sess, err := h.session()
	if err != nil {
		return command.Names(), nil
	}
	names, _ := commandList(sess)
	return names, nil
}

// commandList is the built-in commands and the prompt files' (which
// change as files come and go), with their one-line help.
func commandList(sess *agent.Session) ([]string, map[string]string) {
	names, help := append(command.Names(), editorCommands...), commandHelp()
	for _, p := range sess.PromptCommands() {
		names = append(names, p.Name)
		help[p.Name] = p.Description
	}
	return names, help
}

// commandsChanged sends the plugin the commands anew (MCP prompts came
// or went).
func (h *host) commandsChanged() {
	h.mu.Lock()
	sess := h.sess
	h.mu.Unlock()
	if sess == nil {
		return
	}
	names, help := commandList(sess)
	h.out.add(op{"t": "commands", "commands": names, "command_help": help}, true)
}

// guard refuses a write to a file whose Neovim buffer has unsaved edits. It
// asks Neovim synchronously: Go waits here, Neovim does not.
func (h *host) guard(ctx context.Context, abs string) error {
	type result struct {
		modified bool
		err      error
	}
	done := make(chan result, 1)
	go func() {
		var modified bool
		err := h.v.ExecLua("return require('coder.bridge').buffer_modified(...)", &modified, abs)
		done <- result{modified, err}
	}()
	ctx, cancel := context.WithTimeout(ctx, guardTimeout)
	defer cancel()
	select {
	case r := <-done:
		if r.err != nil {
			return fmt.Errorf("could not check Neovim for unsaved edits of %s: %w", abs, r.err)
		}
		if r.modified {
			return fmt.Errorf("the user has unsaved edits in %s in the editor; the file was not changed. Tell the user, or ask them to save or discard their edits first", h.rel(abs))
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("could not check Neovim for unsaved edits of %s: %w", abs, ctx.Err())
	}
}

// workspaceRoot is the session's workspace ("" before it opened).
func (h *host) workspaceRoot() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.sess != nil {
		return h.sess.Root()
	}
	return h.root
}

func (h *host) rel(abs string) string {
	h.mu.Lock()
	sess := h.sess
	h.mu.Unlock()
	if sess != nil {
		if r, err := filepath.Rel(sess.Root(), abs); err == nil && !strings.HasPrefix(r, "..") {
			return filepath.ToSlash(r)
		}
	}
	return abs
}

func homeDir() string {
	home, _ := os.UserHomeDir()
	return home
}
