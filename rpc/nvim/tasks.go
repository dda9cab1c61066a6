package nvimhost

// Parallel tasks (core/worktree) in the editor: /task and :Coder task start
// one, the task list buffer's requests act on them, and their Sessions'
// events are routed here. The transcript shows one session at a time (the
// chat's, or a task's opened from the list); events of the others reach
// the editor only as approvals, labelled with the task, in the one
// approval float, and as notices when a task ends or waits.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/coder-nvim/coder-nvim/core/agent"
	"github.com/coder-nvim/coder-nvim/core/agent/command"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/hooks"
	"github.com/coder-nvim/coder-nvim/core/hostpath"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/store"
	"github.com/coder-nvim/coder-nvim/core/worktree"
)

// taskFront is the host's side of the task manager.
type taskFront struct {
	mu     sync.Mutex
	m      *worktree.Manager
	owners map[string]int         // approval id → task (0: the chat)
	last   map[int]worktree.State // the state last told, per task
	titles map[int]string         // for labels
	// notices counts the notices sent, for their ids.
	notices int
	waited  map[int]bool // a wait of the current turn was told

}

// manager is the task manager, made on first use.
func (h *host) manager() (*worktree.Manager, error) {
	h.tasks.mu.Lock()
	defer h.tasks.mu.Unlock()
	if h.tasks.m != nil {
		return h.tasks.m, nil
	}
	h.mu.Lock()
	chat, cfg := h.chat, h.cfg
	h.mu.Unlock()
	if chat == nil {
		return nil, errors.New("the session is not open yet")
	}
	m, err := worktree.New(h.ctx, worktree.Options{
		Root: chat.Root(), StateDir: cfg.StateDir, MaxParallel: cfg.Tasks.MaxParallel, Copy: cfg.Tasks.Copy,
		Open: h.openTask, OnEvent: h.taskEvent, OnChange: h.taskChanged,
	})
	if err != nil {
		return nil, err
	}
	h.tasks.m = m
	h.tasks.owners, h.tasks.last, h.tasks.titles, h.tasks.waited = map[string]int{}, map[int]worktree.State{}, map[int]string{}, map[int]bool{}
	return m, nil
}

// openTask opens a task's Session with the chat's provider and settings,
// in the task's mode and worktree.
func (h *host) openTask(_ context.Context, a worktree.OpenArgs) (*agent.Session, error) {
	h.mu.Lock()
	cfg, be := h.cfg, h.be
	h.mu.Unlock()
	if be == nil {
		return nil, errors.New("no provider")
	}
	cfg.Mode = a.Mode
	opts := agent.Options{Config: cfg, Root: a.Root, Provider: be.Provider, Demo: be.Demo, OnEvent: a.OnEvent, Prompter: true,
		Log: h.log.Writer(), Version: h.version, Models: be.Models, Launcher: h.launcher, ModeFromFlag: a.ModeFromUser}
	var sess *agent.Session
	var err error
	if a.Resume != "" {
		sess, err = agent.Resume(opts, agent.SessionID(a.Resume))
	} else {
		sess, err = agent.Open(opts)
	}
	if err != nil {
		return nil, err
	}
	sess.Workspace().SetGuard(h.guard)
	return sess, nil
}

// taskEvent is a task Session's event: rendered when its transcript is
// shown, else only what needs the user.
func (h *host) taskEvent(n int, ev event.Event) {
	h.ownApproval(n, ev)
	h.renderMu.Lock()
	shown := h.shownTask == n
	if shown && h.render != nil {
		h.render.event(ev)
	}
	h.renderMu.Unlock()
	if !shown {
		h.backgroundEvent(n, ev)
		return
	}
	h.sendQueued(ev) // input typed while it was busy goes to it
}

// ownApproval remembers whose an approval is, so the answer reaches it,
// until its session says it is resolved: an answer it refused (an MCP
// form's values that do not fit) leaves it open, and the retry must
// reach the same session.
func (h *host) ownApproval(n int, ev event.Event) {
	if ev.Approval == nil || (ev.Kind != event.ApprovalRequested && ev.Kind != event.ApprovalResolved) {
		return
	}
	h.tasks.mu.Lock()
	defer h.tasks.mu.Unlock()
	if ev.Kind == event.ApprovalResolved {
		delete(h.tasks.owners, ev.Approval.ID)
		return
	}
	if h.tasks.owners == nil {
		h.tasks.owners = map[string]int{}
	}
	h.tasks.owners[ev.Approval.ID] = n
}

// backgroundEvent passes on what a session not shown needs the user for:
// its approvals, labelled, into the one float.
func (h *host) backgroundEvent(n int, ev event.Event) {
	a := ev.Approval
	if a == nil {
		return
	}
	switch ev.Kind {
	case event.ApprovalRequested:
		o := approvalOp(h.workspaceRoot(), a)
		o["label"] = h.taskLabel(n)
		h.out.add(op{"t": "approval", "approval": o}, true)
	case event.ApprovalResolved:
		h.out.add(op{"t": "approval_closed", "id": a.ID, "decision": ev.Reason}, true)
	}
}

func (h *host) taskLabel(n int) string {
	if n == 0 {
		return "chat"
	}
	h.tasks.mu.Lock()
	t := h.tasks.titles[n]
	h.tasks.mu.Unlock()
	return fmt.Sprintf("task %d: %s", n, t)
}

// approvalSession is the session an approval belongs to.
func (h *host) approvalSession(id string) (*agent.Session, error) {
	h.tasks.mu.Lock()
	n, ok := h.tasks.owners[id]
	m := h.tasks.m
	h.tasks.mu.Unlock()
	if !ok || n == 0 || m == nil {
		h.mu.Lock()
		defer h.mu.Unlock()
		if ok && n == 0 && h.chat != nil {
			return h.chat, nil
		}
		if h.sess == nil {
			return nil, errors.New("the session is not open yet")
		}
		return h.sess, nil
	}
	return m.Session(h.ctx, n)
}

// taskChanged tells the editor a task's new state: the status line's
// segment and, when it ended or waits while not shown, a notice.
func (h *host) taskChanged(rec worktree.Record) {
	h.tasks.mu.Lock()
	m := h.tasks.m
	prev := h.tasks.last[rec.N]
	h.tasks.last[rec.N] = rec.State
	if !rec.State.Active() {
		delete(h.tasks.waited, rec.N) // the next turn's wait is news again
	}
	h.tasks.titles[rec.N] = rec.Title
	h.tasks.mu.Unlock()
	if m == nil {
		return
	}
	h.out.add(op{"t": "tasks", "segment": worktree.Segment(m.List())}, true)
	if prev == rec.State {
		return
	}
	kind, msg := "", ""
	switch rec.State {
	case worktree.Done:
		kind, msg = "task_done", fmt.Sprintf("task %d done: %s (%d files +%d −%d)", rec.N, rec.Title, rec.Files, rec.Added, rec.Removed)
	case worktree.Failed:
		kind, msg = "task_done", fmt.Sprintf("task %d failed: %s — %s", rec.N, rec.Title, rec.Error)
	case worktree.Waiting:
		if h.waitedBefore(rec.N) {
			return // said once a turn: the float holds the rest
		}
		kind, msg = "task_waiting", fmt.Sprintf("task %d waits for your answer: %s", rec.N, rec.Title)
	default:
		return
	}
	h.renderMu.Lock()
	shown := h.shownTask == rec.N
	h.renderMu.Unlock()
	h.tasks.mu.Lock()
	h.tasks.notices++
	id := fmt.Sprintf("task-%d-%d", rec.N, h.tasks.notices)
	h.tasks.mu.Unlock()
	h.out.add(op{"t": "notice", "id": id, "kind": kind, "msg": "coder: " + msg, "shown": shown,
		"data": map[string]any{"n": rec.N, "title": rec.Title, "state": string(rec.State), "branch": rec.Branch, "path": rec.Path, "session": rec.Session}}, true)
	h.notificationHook(rec, kind, msg)
}

// waitedBefore reports whether task n's wait was told in this turn, and
// records that it is now.
func (h *host) waitedBefore(n int) bool {
	h.tasks.mu.Lock()
	defer h.tasks.mu.Unlock()
	if h.tasks.waited[n] {
		return true
	}
	h.tasks.waited[n] = true
	return false
}

// notificationHook runs the user's notification hooks for a task notice.
func (h *host) notificationHook(rec worktree.Record, kind, msg string) {
	h.mu.Lock()
	cfg := h.cfg
	h.mu.Unlock()
	run := hooks.New(cfg.Hooks, rec.Root, hostpath.Resolve(os.Getenv("PATH"), rec.Root))
	if !run.Has(hooks.Notification, "") {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(h.ctx, hooks.MaxTimeout)
		defer cancel()
		out := run.Run(ctx, hooks.Notification, hooks.Input{SessionID: rec.Session, Cwd: rec.Root, Message: msg, NotificationType: kind})
		for _, w := range out.Warnings {
			h.log.Print(w)
		}
	}()
}

// startTask runs `/task ARGS` (typed in the chat or :Coder task): the mode
// is the chat's unless the user names one.
func (h *host) startTask(line string) (string, error) {
	a, err := worktree.ParseStart(line)
	if err != nil {
		return "", err
	}
	m, err := h.manager()
	if err != nil {
		return "", err
	}
	h.mu.Lock()
	chat := h.chat
	h.mu.Unlock()
	if !a.ModeFromUser {
		a.Mode = string(chat.Mode())
	}
	ctx, cancel := context.WithTimeout(h.ctx, 2*time.Minute)
	defer cancel()
	rec, err := m.Start(ctx, a)
	if err != nil {
		return "", err
	}
	h.tasks.mu.Lock()
	h.tasks.titles[rec.N] = rec.Title
	h.tasks.mu.Unlock()
	return fmt.Sprintf("task %d started on %s (%s mode) in %s; :Coder tasks lists it", rec.N, rec.Branch, rec.Mode, rec.Path), nil
}

// taskRequest is coder_task (rpcrequest): start a task and say how.
func (h *host) taskRequest(line string) (string, error) {
	h.waitOpened()
	return h.startTask(line)
}

// taskStart is coder_task_start (rpcnotify, :Coder task): Neovim does not
// wait while git makes the worktree; the outcome comes as a notice.
func (h *host) taskStart(line string) {
	go func() {
		h.waitOpened()
		msg, err := h.startTask(line)
		if err != nil {
			h.notify("error", err.Error())
			return
		}
		h.notify("info", msg)
	}()
}

// tasksRequest is coder_tasks: the list buffer's lines.
func (h *host) tasksRequest() (map[string]any, error) {
	h.waitOpened()
	m, err := h.manager()
	if err != nil {
		return nil, err
	}
	list := m.List()
	items := make([]map[string]any, 0, len(list))
	now := time.Now()
	for _, r := range list {
		items = append(items, map[string]any{"n": r.N, "line": worktree.Line(r, now), "state": string(r.State), "title": r.Title, "branch": r.Branch, "path": r.Path})
	}
	h.renderMu.Lock()
	shown := h.shownTask
	h.renderMu.Unlock()
	return map[string]any{"header": worktree.Header(), "items": items, "total": worktree.Total(list), "repo": m.Repository(), "shown": shown}, nil
}

// taskActionRequest is coder_task_action n action: what a key of the list
// buffer does. The answer is a message for the user, or (diff) the patch.
func (h *host) taskActionRequest(n int, action string) (any, error) {
	m, err := h.manager()
	if err != nil {
		return nil, err
	}
	ctx := h.ctx
	switch action {
	case "open":
		return h.showTask(n)
	case "diff":
		return m.Diff(ctx, n)
	case "stop":
		return fmt.Sprintf("task %d: stopping", n), m.Stop(n)
	case "continue":
		return fmt.Sprintf("task %d continues", n), m.Continue(ctx, n, "")
	case "discard", "discard!":
		h.renderMu.Lock()
		shown := h.shownTask
		h.renderMu.Unlock()
		if shown == n {
			if _, err := h.showTask(0); err != nil {
				return nil, err
			}
		}
		if err := m.Discard(ctx, n, action == "discard!"); err != nil {
			return nil, err
		}
		return fmt.Sprintf("task %d discarded: its worktree is gone", n), nil
	case "merge":
		res, err := h.mergeAsTurn(ctx, m, n)
		if err != nil {
			return nil, err
		}
		h.reloadAll()
		return fmt.Sprintf("task %d merged into your working tree as uncommitted changes: %s (/undo takes it back)", n, res.Summary()), nil
	case "unmerge":
		msg, err := m.Unmerge(n)
		h.reloadAll()
		if err != nil {
			return nil, err
		}
		return msg, nil
	case "merge_branch":
		res, err := m.MergeBranch(ctx, n)
		if err != nil {
			return nil, err
		}
		h.reloadAll()
		if len(res.Conflicts) > 0 {
			return fmt.Sprintf("task %d: git merge stopped on conflicts in %s; resolve them and commit (or git merge --abort)", n, strings.Join(res.Conflicts, ", ")), nil
		}
		return fmt.Sprintf("task %d merged (git merge --no-ff)", n), nil
	}
	return nil, fmt.Errorf("unknown task action %q", action)
}

// mergeAsTurn merges task n into the chat's workspace as a turn of the
// chat's session (agent.ExternalChange), so /undo and /rewind take the
// merge back like any turn's changes; the chat's model is told.
func (h *host) mergeAsTurn(ctx context.Context, m *worktree.Manager, n int) (worktree.MergeResult, error) {
	h.mu.Lock()
	sess := h.chat // not the session shown: that may be a task's
	h.mu.Unlock()
	if sess == nil {
		return worktree.MergeResult{}, errors.New("the chat's session is not open yet")
	}
	var res worktree.MergeResult
	err := sess.RunExternal(ctx, agent.ExternalChange{Label: fmt.Sprintf("merge of task %d", n), Apply: func(ctx context.Context) ([]string, string, error) {
		r, err := m.Merge(ctx, n)
		res = r
		paths := append(slices.Clone(r.Applied), r.Conflicts...)
		return paths, fmt.Sprintf("I merged task %d's changes into the working tree: %s", n, r.Summary()), err
	}})
	return res, err
}

// reloadAll asks the editor to reload the unmodified buffers of files a
// merge wrote: every buffer's file checked again (a git merge may touch
// any).
func (h *host) reloadAll() { h.out.add(op{"t": "reload"}, true) }

// taskReviewRequest is coder_task_review n: task n's hunks for the review.
func (h *host) taskReviewRequest(n int) (worktree.TaskReview, error) {
	m, err := h.manager()
	if err != nil {
		return worktree.TaskReview{}, err
	}
	return m.Review(h.ctx, n)
}

// taskVerdictRequest is coder_task_verdict n id keep reason.
func (h *host) taskVerdictRequest(n, id int, keep bool, reason string) (worktree.TaskReview, error) {
	m, err := h.manager()
	if err != nil {
		return worktree.TaskReview{}, err
	}
	return m.Judge(h.ctx, n, id, keep, reason)
}

// showTask makes the transcript show task n's session (0: the chat's):
// input then goes to it, and its history is replayed under a heading.
func (h *host) showTask(n int) (string, error) {
	var sess *agent.Session
	title := "chat"
	if n == 0 {
		h.mu.Lock()
		sess = h.chat
		h.mu.Unlock()
	} else {
		m, err := h.manager()
		if err != nil {
			return "", err
		}
		if sess, err = m.Session(h.ctx, n); err != nil {
			return "", err
		}
		title = h.taskLabel(n)
	}
	if sess == nil {
		return "", errors.New("the session is not open yet")
	}
	h.dropQueued()
	h.mu.Lock()
	h.sess = sess
	h.mu.Unlock()
	h.renderMu.Lock()
	defer h.renderMu.Unlock()
	h.shownTask = n
	openKey := ""
	if h.render != nil {
		openKey = h.render.openKey
	}
	h.render = newRenderer(sess.Root(), h.out.addText, h.out.add)
	h.render.history = func() ([]llm.Message, []store.Command) { return sess.History(""), sess.Commands("") }
	h.render.openKey = openKey
	h.render.status = sess.Status()
	h.render.session = string(sess.ID())
	h.render.replayTitled(title, []string{"session " + string(sess.ID()), "workspace " + sess.Root()}, sess.History(""), sess.Commands(""))
	h.out.add(h.render.statusOp(), true)
	h.out.add(op{"t": "tasks", "shown": showing(n, title)}, true)
	return "showing " + title, nil
}

func showing(n int, title string) string {
	if n == 0 {
		return ""
	}
	return title
}

// closeTasks closes the task Sessions with the host: a task at work stays
// recorded as such, and the next host shows it interrupted.
func (h *host) closeTasks() {
	h.tasks.mu.Lock()
	m := h.tasks.m
	h.tasks.mu.Unlock()
	if m != nil {
		m.Close()
	}
}

// taskHealth lists the tasks for :checkhealth.
func (h *host) taskHealth() []string {
	m, err := h.manager()
	if errors.Is(err, worktree.ErrNoRepository) {
		return nil // no repository: no tasks to list
	}
	if err != nil {
		return []string{err.Error()}
	}
	list := m.List()
	if len(list) == 0 {
		return nil
	}
	out := []string{worktree.Header()}
	for _, r := range list {
		out = append(out, worktree.Line(r, time.Now()))
	}
	return append(out, worktree.Total(list))
}

// editorCommands are the / commands the editor's host runs itself
// (taskCommand), offered for completion beside the engine's.
var editorCommands = []string{"task", "tasks"}

// commandHelp is the engine's command help with the editor's.
func commandHelp() map[string]string {
	help := command.Help()
	help["task"] = "start a task in a new git worktree beside the chat: /task [--mode MODE] [--from REF] PROMPT"
	help["tasks"] = "open the task list (:help coder-tasks)"
	return help
}

// taskSessions are the tasks' sessions for the /resume picker, whose
// choice comes back as `/resume task:N`.
func (h *host) taskSessions() []map[string]any {
	h.tasks.mu.Lock()
	m := h.tasks.m
	h.tasks.mu.Unlock()
	if m == nil {
		var err error
		if m, err = h.manager(); err != nil {
			return nil // not in a repository: no tasks
		}
	}
	var items []map[string]any
	for _, r := range m.List() {
		if r.Session != "" {
			items = append(items, map[string]any{"id": fmt.Sprintf("task:%d", r.N),
				"label": fmt.Sprintf("task %d  %s  (%s, %s)", r.N, r.Title, worktree.StateLabel(r.State), r.Branch)})
		}
	}
	return items
}

// taskCommand runs /task, /tasks and a /resume of a task's session typed
// in the chat; false: text is none of them.
func (h *host) taskCommand(text string) bool {
	t := strings.TrimSpace(text)
	var n int
	if _, err := fmt.Sscanf(t, "/resume task:%d", &n); err == nil {
		go func() {
			if _, err := h.showTask(n); err != nil {
				h.notify("error", err.Error())
			}
		}()
		return true
	}
	switch {
	case t == "/tasks":
		h.out.add(op{"t": "open_tasks"}, true)
	case t == "/task" || strings.HasPrefix(t, "/task "):
		go func() {
			msg, err := h.startTask(strings.TrimPrefix(t, "/task"))
			if err != nil {
				h.out.add(op{"t": "input_rejected", "text": text, "msg": "coder: " + err.Error()}, true)
				return
			}
			h.notify("info", msg)
		}()
	default:
		return false
	}
	return true
}
