package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/coder-nvim/coder-nvim/core/agent/outstream"
	"github.com/coder-nvim/coder-nvim/core/agent/toolcalls"
	"github.com/coder-nvim/coder-nvim/core/editor"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/policy"
	"github.com/coder-nvim/coder-nvim/core/review"
	"github.com/coder-nvim/coder-nvim/core/shellcheck"
	"github.com/coder-nvim/coder-nvim/core/text"
	"github.com/coder-nvim/coder-nvim/core/tools"
	"github.com/google/uuid"
)

// runTool takes one tool call through the pipeline of seed 001 §5: the
// tool switch, the policy decision, the tool's own check (bash analysis),
// approval, then the run. It returns the tool message content; it never
// fails, since every call needs a result.
func (s *Session) runTool(ctx context.Context, t *task, call llm.ToolCall) string {
	t.ranDurable = false
	c := &toolCall{t: t, call: call, name: call.Function.Name, start: time.Now()}
	c.info = &event.Tool{CallID: call.ID, Name: c.name, Kind: string(tools.KindOther), Title: c.name, Arguments: call.Function.Arguments}
	if msg := s.switchTool(c); msg != "" {
		return c.fail(msg)
	}
	if msg := s.prepareCall(ctx, c); msg != "" {
		return c.fail(msg)
	}
	// The user's own check speaks before any approval is asked.
	if msg := s.preToolHooks(ctx, c); msg != "" {
		c.t.emit(event.Event{Kind: event.ToolCallBegin, Tool: c.info})
		return c.end(event.ToolDenied, text.FirstLine(msg), msg, msg)
	}
	if result, stop := s.decide(ctx, c); stop {
		return result
	}
	return s.execute(ctx, c)
}

// toolCall is one call on its way through the pipeline.
type toolCall struct {
	t     *task
	call  llm.ToolCall
	name  string
	info  *event.Tool
	start time.Time
	mode  policy.Mode // when the call arrived: one mode decides it

	tool     tools.Tool
	mt       mcpTool
	isMCP    bool
	isEditor bool
	own      bool // the session's own tool: no policy, no approval
	inv      *tools.Invocation
	// readOnly: a command proven read-only, run with git kept off the
	// repository's configuration, changes no file: it takes no snapshot.
	readOnly bool
	err      error // why a run failed, when a kind says it (ErrorKind)
}

// end reports the call's end and returns content, its tool message.
func (c *toolCall) end(status, summary, output, content string) string {
	c.info.Status, c.info.Summary, c.info.Output = status, summary, output
	switch status {
	case event.ToolDenied:
		c.err = ErrApprovalDenied
	case event.ToolAborted:
		c.err = ErrCancelled
	case event.ToolCompleted:
		c.err = nil
	}
	c.info.Error = ErrorKind(c.err)
	d := time.Since(c.start)
	c.info.DurationMS = d.Milliseconds()
	c.t.conv.countToolCall(c.name, status, c.info.Server != "", d)
	c.t.emit(event.Event{Kind: event.ToolCallEnd, Tool: c.info})
	return content
}

// fail announces and ends a call refused before its verdict, titled from
// its arguments when no tool has titled it yet.
func (c *toolCall) fail(msg string) string {
	if c.info.Title == c.name && len(c.info.Paths) == 0 {
		c.info.Title, c.info.Paths = toolcalls.Title(c.name, c.call.Function.Arguments)
	}
	c.t.emit(event.Event{Kind: event.ToolCallBegin, Tool: c.info})
	return c.end(event.ToolFailed, text.FirstLine(msg), msg, "error: "+msg)
}

// switchTool is step 1, the tool switch: the tool must exist and be
// offered in this mode. It returns why not, or "".
func (s *Session) switchTool(c *toolCall) string {
	c.tool = s.lookupTool(c.name)
	c.mode = s.Mode()
	mode := c.mode
	if c.tool == nil && c.name == editor.ToolName {
		// Offered while a server is attached; a call just after the last
		// one went away gets the tool's own "no server" answer.
		if c.tool = s.lspTool(); c.tool != nil {
			c.isEditor = true
		}
	}
	if c.tool == nil { // MCP names hold "__", no built-in does
		if c.mt, c.isMCP = s.lookupMCP(c.t, c.name, mode); c.isMCP {
			c.tool = c.mt
		}
	}
	if c.tool == nil {
		return fmt.Sprintf("unknown tool %q; available tools: %s", c.name, strings.Join(s.offeredNames(c.t.conv), ", "))
	}
	c.info.Kind = string(c.tool.Kind())
	if c.isMCP {
		c.info.Server = c.mt.t.Server
	}
	if !c.isMCP && !c.isEditor && !s.offered(c.t.conv, c.name) {
		if mode != policy.ModePlan {
			return fmt.Sprintf("tool %q is not enabled in this conversation", c.name)
		}
		return fmt.Sprintf("tool %q is not available in %s mode (read-only: no file changes)", c.name, mode)
	}
	_, c.own = c.tool.(ownTool)
	return ""
}

// prepareCall checks the arguments and lets the tool plan the call
// without doing it. It returns why the call cannot run, or "".
func (s *Session) prepareCall(ctx context.Context, c *toolCall) string {
	args := strings.TrimSpace(c.call.Function.Arguments)
	if args == "" {
		args = "{}"
	}
	if !json.Valid([]byte(args)) {
		return fmt.Sprintf("the arguments of %s are not valid JSON: %s", c.name, text.Truncate(args, 200))
	}
	inv, err := c.tool.Prepare(ctx, s.ws, json.RawMessage(args))
	if err != nil {
		return err.Error()
	}
	c.inv = inv
	c.info.Title, c.info.Paths = inv.Title, inv.Paths
	c.info.Diffs = diffs(inv.Changes)
	return ""
}

// decide is steps 2–3: policy and the tool's own check (yolo skips both
// for bash), then approval when the verdict asks. The verdict is pure: it
// is known before the call is announced, so front ends can show a call
// that waits for approval as pending. stop: the call ends here with
// result.
func (s *Session) decide(ctx context.Context, c *toolCall) (result string, stop bool) {
	mode, inv := c.mode, c.inv
	action := policy.Action{Tool: c.name, Kind: string(inv.Kind), Paths: inv.Paths, Command: inv.Command, Conversation: string(c.t.conv.ID), Protected: s.userDirs, Host: inv.Host}
	if c.isMCP {
		action.ReadOnly, action.NonDestructive, action.Trusted = c.mt.t.ReadOnly, c.mt.t.NonDestructive, c.mt.t.Trusted
	}
	outside := s.confineCall(ctx, c, &action)
	verdict := policy.Verdict{Decision: policy.Allow}
	switch {
	case outside:
		verdict = s.policyFor(c.t.conv).OutsideSandbox(action, s.root)
	case !c.own && !(mode == policy.ModeYolo && c.name == "bash"):
		verdict = policy.Evaluate(mode, s.policyFor(c.t.conv), action, s.root)
	}
	if inv.Confirm != "" && verdict.Decision != policy.Deny {
		// A skill or startup-file write: asked in every mode, yolo too;
		// without keys nothing remembers or settles it.
		verdict = policy.Verdict{Decision: policy.Ask, Reason: inv.Confirm, Scope: "this call only: such writes are never remembered"}
	}
	c.info.Asks = verdict.Decision == policy.Ask && !s.settled(action, verdict)
	c.t.emit(event.Event{Kind: event.ToolCallBegin, Tool: c.info})
	// The editor's unsaved-buffer guard speaks before an approval is asked:
	// approving a change that is then refused wastes the user's time.
	if err := s.ws.CheckGuard(ctx, inv.Changes); err != nil {
		return c.end(event.ToolFailed, text.FirstLine(err.Error()), err.Error(), "error: "+err.Error()), true
	}
	switch verdict.Decision {
	case policy.Allow:
		an := verdict.Analysis
		if an == nil && mode == policy.ModeYolo && inv.Kind == tools.KindExecute {
			x := shellcheck.AnalyzeProtected(inv.Command, s.root, s.userDirs)
			an = &x
		}
		if an != nil && an.Class == shellcheck.ReadOnly && inv.Kind == tools.KindExecute {
			// Runs unasked as read-only: git must not load a repository
			// or configuration the model could have written.
			inv.Env = shellcheck.ReadOnlyEnv()
			c.readOnly = true
		}
	case policy.Deny:
		msg := "denied by policy: " + verdict.Reason
		return c.end(event.ToolDenied, msg, "", msg), true
	case policy.Ask:
		if ok, msg := s.approve(ctx, c.t, c.call, inv, action, verdict); !ok {
			status := event.ToolDenied
			if ctx.Err() != nil {
				status = event.ToolAborted
			}
			// The summary is cut; the whole message says how to allow it.
			detail := ""
			if text.FirstLine(msg) != msg {
				detail = msg
			}
			return c.end(status, text.FirstLine(msg), detail, msg), true
		}
	}
	if ctx.Err() != nil {
		return c.end(event.ToolAborted, "aborted", "", toolcalls.Aborted), true
	}
	return "", false
}

// execute is step 4: the run, once its start is recorded (a crash from
// here on leaves "outcome unknown", never "did not run"), and its result
// with the language servers' word on the files it changed.
func (s *Session) execute(ctx context.Context, c *toolCall) string {
	t, inv, call := c.t, c.inv, c.call
	if inv.Kind == tools.KindExecute && !c.readOnly || len(inv.Changes) > 0 {
		s.awaitBefore(t) // the turn's snapshot first: that wait is no start
	}
	before := s.editorBefore(ctx, inv.Changes)
	// A command proven read-only is, like a read tool, harmless to run
	// again: its start marker is not worth a synchronous write.
	durable := inv.Kind != tools.KindRead && !c.own && !c.readOnly
	t.ranDurable = durable
	s.markStarted(call.ID, durable)
	var out *outstream.Stream
	if c.name == "bash" && !c.isMCP && t.conv.Tools.Shell {
		out = streamOutput(t, c.info) // use_streamable_shell_tool
		inv.Output = out
	}
	if c.isMCP {
		ctx = withMCPCall(ctx, call.ID) // a server's question names its call
	}
	res := s.runTracked(ctx, t, inv, c.readOnly)
	out.Close() // every delta before the call's end
	s.markEnded(call.ID)
	if ho := t.handover; ho != nil && ho.closure.callID == call.ID {
		t.conv.countToolCall(c.name, event.ToolCompleted, false, 0)
		return res.Output // handed over: the continuation ends the call
	}
	status := event.ToolCompleted
	if res.IsError {
		status = event.ToolFailed
	}
	c.err = res.Err
	if errors.Is(res.Err, tools.ErrSandboxRefused) {
		c.err = fmt.Errorf("%w: %w", ErrSandbox, res.Err)
	}
	if ctx.Err() != nil {
		status = event.ToolAborted
		res.Output += "\n[aborted: the user interrupted the turn]"
	}
	c.info.Diffs = diffs(inv.Changes)
	c.info.ExitCode = res.ExitCode
	if len(inv.Changes) > 0 && !res.IsError {
		var paths []string
		for _, ch := range inv.Changes {
			paths = append(paths, ch.Path)
			if ch.MoveTo != "" {
				paths = append(paths, ch.MoveTo)
			}
		}
		t.edited = append(t.edited, paths...)
		t.emit(event.Event{Kind: event.FilesChanged, Paths: paths})
	}
	display := res.Display
	if display == "" {
		display = res.Output
	}
	if len(inv.Changes) > 0 && !res.IsError && ctx.Err() == nil {
		// The language servers' word on the new text, while the model
		// still has the change in mind.
		if fb := s.editorFeedback(ctx, inv.Changes, before); fb != "" {
			res.Output += fb
			display += fb
		}
	}
	if !res.IsError && ctx.Err() == nil {
		// A directory with its own AGENTS.md: its text comes with the
		// result of the first call that works there.
		res.Output += s.nestedAgents(t, inv.Paths)
	}
	if status != event.ToolAborted {
		if more := s.postToolHooks(ctx, c, status, res.Output); more != "" {
			res.Output += more
			display += more
		}
	}
	return c.end(status, res.Summary, display, res.Output)
}

// settled reports whether an ask is answered without asking: a remembered
// approval, or (seed 001 §5) asks allowed when nobody is asked.
func (s *Session) settled(action policy.Action, v policy.Verdict) bool {
	s.mu.Lock()
	mem := s.memory
	s.mu.Unlock()
	interactive := s.opts.Config.Interactive() && !s.opts.AllowAsks
	return policy.Settle(v, action, mem, interactive) == policy.Allow
}

// approve settles an ask: remembered approvals, non-interactive settings,
// or the user's answer. It returns whether to run and, if not, the message
// for the model.
func (s *Session) approve(ctx context.Context, t *task, call llm.ToolCall, inv *tools.Invocation, action policy.Action, v policy.Verdict) (bool, string) {
	if s.settled(action, v) {
		return true, ""
	}
	if !s.opts.Prompter {
		return false, fmt.Sprintf("denied: %s needs approval (%s) and nobody can approve it here; rerun with --yes, or set \"approval\": {\"interactive\": false} in ~/.config/coder/config.json", inv.Title, v.Reason)
	}
	req := &event.Approval{
		ID:      uuid.NewString(),
		CallID:  call.ID,
		Tool:    inv.Tool,
		Kind:    string(inv.Kind),
		Title:   inv.Title,
		Command: inv.Command,
		Paths:   inv.Paths,
		Reason:  v.Reason,
		Scope:   v.Scope,
		Danger:  v.Dangerous,
		Diffs:   diffs(inv.Changes),
		Always:  policy.OffersAlways(v, inv.OutsideSandbox),
	}
	if !req.Always {
		req.Scope = policy.OnceScope(v, inv.OutsideSandbox)
	}
	switch {
	case inv.OutsideSandbox:
		req.Sandbox = event.SandboxOutside
	case inv.Confine != nil:
		req.Sandbox = event.SandboxIn
	}
	ans, ok := s.ask(ctx, t, req)
	if !ok {
		return false, toolcalls.Aborted
	}
	switch ans.Decision {
	case AllowOnce:
	case AllowAlways:
		// The keys carry the scope and TTL of the policy (approval.scope,
		// approval.ttl); where "always" was not offered it counts as once.
		s.mu.Lock()
		mem := s.memory
		s.mu.Unlock()
		mem.Apply(policy.AlwaysAnswer(req.Always), v)
	default: // deny, or a plan's answer to a call's request: no
		return false, "denied by the user: do not retry this call unchanged; adapt the approach or ask the user what they want"
	}
	if len(ans.Accepted) > 0 && len(inv.Changes) > 0 {
		kept, err := applyReview(inv, ans.Accepted)
		if err != nil {
			return false, "not applied: " + err.Error()
		}
		if kept == 0 {
			return false, "the user rejected every hunk of this change; nothing was written"
		}
	}
	return true, ""
}

// ask puts req to the user and waits for the answer; ok is false when
// the turn was interrupted first. Tool approvals and the plan hand-off
// take this one path: the event out, Session.Answer back.
func (s *Session) ask(ctx context.Context, t *task, req *event.Approval) (ans Answer, ok bool) {
	ch := make(chan Answer, 1)
	s.mu.Lock()
	s.approvals[req.ID] = ch
	s.mu.Unlock()
	t.emit(event.Event{Kind: event.ApprovalRequested, Approval: req})
	select {
	case ans = <-ch:
	case <-ctx.Done():
		s.mu.Lock()
		delete(s.approvals, req.ID)
		s.mu.Unlock()
		t.emit(event.Event{Kind: event.ApprovalResolved, Approval: req, Reason: "cancelled"})
		return Answer{}, false
	}
	if ans.Decision == AllowAlways && !req.Always {
		ans.Decision = AllowOnce // "always" where it was not offered (policy.OffersAlways)
	}
	t.emit(event.Event{Kind: event.ApprovalResolved, Approval: req, Reason: string(ans.Decision)})
	return ans, true
}

// policyFor is the policy in force in a conversation: the session's,
// narrowed by the conversation's own.
func (s *Session) policyFor(c *Conversation) policy.Policy {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.Policy != nil {
		return policy.Narrow(s.policy, *c.Policy)
	}
	return s.policy
}

func (s *Session) lookupTool(name string) tools.Tool {
	for _, t := range s.tools {
		if t.Spec().Function.Name == name {
			return t
		}
	}
	return nil
}

func (s *Session) offered(c *Conversation, name string) bool {
	for _, n := range s.offeredNames(c) {
		if n == name {
			return true
		}
	}
	return false
}

func (s *Session) offeredNames(c *Conversation) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var names []string
	for _, t := range s.offeredToolsLocked(c) {
		names = append(names, t.Spec().Function.Name)
	}
	sort.Strings(names)
	return names
}

func diffs(changes []tools.FileChange) []event.Diff {
	var out []event.Diff
	for _, c := range changes {
		out = append(out, event.Diff{Path: c.Path, MoveTo: c.MoveTo, Op: string(c.Op), Old: c.Old, New: c.New, Hunks: review.Hunks(c.Old, c.New)})
	}
	return out
}

// applyReview narrows planned changes to the hunks the user accepted and
// returns how many changes still do something.
func applyReview(inv *tools.Invocation, accepted map[string][]bool) (int, error) {
	var kept []tools.FileChange
	for _, c := range inv.Changes {
		if choice, ok := accepted[c.Path]; ok {
			text, err := review.Apply(c.Old, c.New, choice)
			if err != nil {
				return 0, fmt.Errorf("%s: %w", c.Path, err)
			}
			c.New = text
			switch {
			case c.Op == tools.OpDelete && c.New != "":
				c.Op = tools.OpUpdate // some lines kept: the file stays
			case c.Op == tools.OpAdd && c.New == "":
				continue // the whole new file was rejected
			}
		}
		if c.Op == tools.OpUpdate && c.New == c.Old && c.MoveTo == "" {
			continue
		}
		kept = append(kept, c)
	}
	inv.Changes = kept
	return len(kept), nil
}

// streamOutput is the stream of one bash call, sending deltas as the
// task's events.
func streamOutput(t *task, info *event.Tool) *outstream.Stream {
	call := &event.Tool{CallID: info.CallID, Name: info.Name, Kind: info.Kind, Title: info.Title}
	return outstream.New(func(text string, atLimit bool) {
		ev := event.Event{Kind: event.ToolOutputDelta, Tool: call, Text: text}
		if atLimit {
			ev.Reason = event.ReasonOutputLimit
		}
		t.emit(ev)
	})
}
