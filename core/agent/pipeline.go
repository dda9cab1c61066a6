package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/coder-nvim/coder-nvim/core/editor"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/policy"
	"github.com/coder-nvim/coder-nvim/core/review"
	"github.com/coder-nvim/coder-nvim/core/shellcheck"
	"github.com/coder-nvim/coder-nvim/core/tools"
	"github.com/google/uuid"
)

// runTool takes one tool call through the pipeline of seed 001 §5: the
// tool switch, the policy decision, the tool's own check (bash analysis),
// approval, then the run. It returns the tool message content; it never
// fails, since every call needs a result.
func (s *Session) runTool(ctx context.Context, t *task, call llm.ToolCall) string {
	t.ranDurable = false
	name := call.Function.Name
	info := &event.Tool{CallID: call.ID, Name: name, Kind: string(tools.KindOther), Title: name, Arguments: call.Function.Arguments}
	start := time.Now()
	end := func(status, summary, output, content string) string {
		info.Status, info.Summary, info.Output = status, summary, output
		d := time.Since(start)
		info.DurationMS = d.Milliseconds()
		t.conv.countToolCall(name, status, info.Server != "", d)
		t.emit(event.Event{Kind: event.ToolCallEnd, Tool: info})
		return content
	}
	fail := func(msg string) string {
		t.emit(event.Event{Kind: event.ToolCallBegin, Tool: info})
		return end(event.ToolFailed, firstLine(msg), msg, "error: "+msg)
	}

	// 1. The tool switch: the tool must exist and be offered in this mode.
	tool := s.lookupTool(name)
	mode := s.Mode()
	var mt mcpTool
	isMCP, isEditor := false, false
	if tool == nil && name == editor.ToolName {
		// Offered while a server is attached; a call just after the last
		// one went away gets the tool's own "no server" answer.
		if tool = s.lspTool(); tool != nil {
			isEditor = true
		}
	}
	if tool == nil { // MCP names hold "__", no built-in does
		if mt, isMCP = s.lookupMCP(t, name, mode); isMCP {
			tool = mt
		}
	}
	if tool == nil {
		return fail(fmt.Sprintf("unknown tool %q; available tools: %s", name, strings.Join(s.offeredNames(t.conv), ", ")))
	}
	info.Kind = string(tool.Kind())
	if isMCP {
		info.Server = mt.t.Server
	}
	if !isMCP && !isEditor && !s.offered(t.conv, name) {
		if mode != policy.ModePlan {
			return fail(fmt.Sprintf("tool %q is not enabled in this conversation", name))
		}
		return fail(fmt.Sprintf("tool %q is not available in %s mode (read-only: no file changes)", name, mode))
	}
	args := strings.TrimSpace(call.Function.Arguments)
	if args == "" {
		args = "{}"
	}
	if !json.Valid([]byte(args)) {
		return fail(fmt.Sprintf("the arguments of %s are not valid JSON: %s", name, truncate(args, 200)))
	}
	inv, err := tool.Prepare(ctx, s.ws, json.RawMessage(args))
	if err != nil {
		return fail(err.Error())
	}
	info.Title, info.Paths = inv.Title, inv.Paths
	info.Diffs = diffs(inv.Changes)

	// 2–3. Policy and the tool's own check; yolo skips both for bash. The
	// verdict is pure: it is known before the call is announced, so front
	// ends can show a call that waits for approval as pending.
	action := policy.Action{Tool: name, Kind: string(inv.Kind), Paths: inv.Paths, Command: inv.Command, Conversation: string(t.conv.ID)}
	if isMCP {
		action.ReadOnly, action.NonDestructive, action.Trusted = mt.t.ReadOnly, mt.t.NonDestructive, mt.t.Trusted
	}
	verdict := policy.Verdict{Decision: policy.Allow}
	_, own := tool.(ownTool)
	if !own && !(mode == policy.ModeYolo && name == "bash") {
		verdict = policy.Evaluate(mode, s.policyFor(t.conv), action, s.root)
	}
	if inv.Confirm != "" && verdict.Decision != policy.Deny {
		// A skill write: asked in every mode, yolo too; without keys
		// nothing remembers or settles it.
		verdict = policy.Verdict{Decision: policy.Ask, Reason: inv.Confirm, Scope: "this call only: writes to skills are never remembered"}
	}
	info.Asks = verdict.Decision == policy.Ask && !s.settled(action, verdict)
	t.emit(event.Event{Kind: event.ToolCallBegin, Tool: info})
	// The editor's unsaved-buffer guard speaks before an approval is asked:
	// approving a change that is then refused wastes the user's time.
	if err := s.ws.CheckGuard(ctx, inv.Changes); err != nil {
		return end(event.ToolFailed, firstLine(err.Error()), err.Error(), "error: "+err.Error())
	}
	// readOnly: a command proven read-only, run with git kept off the
	// repository's configuration, changes no file: it takes no snapshot.
	readOnly := false
	switch verdict.Decision {
	case policy.Allow:
		an := verdict.Analysis
		if an == nil && mode == policy.ModeYolo && inv.Kind == tools.KindExecute {
			x := shellcheck.Analyze(inv.Command, s.root)
			an = &x
		}
		if an != nil && an.Class == shellcheck.ReadOnly && inv.Kind == tools.KindExecute {
			// Runs unasked as read-only: git must not load a repository
			// or configuration the model could have written.
			inv.Env = shellcheck.ReadOnlyEnv()
			readOnly = true
		}
	case policy.Deny:
		msg := "denied by policy: " + verdict.Reason
		return end(event.ToolDenied, msg, "", msg)
	case policy.Ask:
		ok, msg := s.approve(ctx, t, call, inv, action, verdict)
		if !ok {
			status := event.ToolDenied
			if ctx.Err() != nil {
				status = event.ToolAborted
			}
			// The summary is cut; the whole message says how to allow it.
			detail := ""
			if firstLine(msg) != msg {
				detail = msg
			}
			return end(status, firstLine(msg), detail, msg)
		}
	}
	if ctx.Err() != nil {
		return end(event.ToolAborted, "aborted", "", abortedResult)
	}

	// 4. Run, once its start is recorded: a crash from here on leaves
	// "outcome unknown", never "did not run".
	if inv.Kind == tools.KindExecute && !readOnly || len(inv.Changes) > 0 {
		s.awaitBefore(t) // the turn's snapshot first: that wait is no start
	}
	before := s.editorBefore(ctx, inv.Changes)
	// A command proven read-only is, like a read tool, harmless to run
	// again: its start marker is not worth a synchronous write.
	durable := inv.Kind != tools.KindRead && !own && !readOnly
	t.ranDurable = durable
	s.markStarted(call.ID, durable)
	var out *outputStream
	if name == "bash" && !isMCP && t.conv.Tools.Shell {
		out = streamOutput(t, info) // use_streamable_shell_tool
		inv.Output = out
	}
	res := s.runTracked(ctx, t, inv, readOnly)
	out.close() // every delta before the call's end
	s.markEnded(call.ID)
	if ho := t.handover; ho != nil && ho.closure.callID == call.ID {
		t.conv.countToolCall(name, event.ToolCompleted, false, 0)
		return res.Output // handed over: the continuation ends the call
	}
	status := event.ToolCompleted
	if res.IsError {
		status = event.ToolFailed
	}
	if ctx.Err() != nil {
		status = event.ToolAborted
		res.Output += "\n[aborted: the user interrupted the turn]"
	}
	info.Diffs = diffs(inv.Changes)
	if len(inv.Changes) > 0 && !res.IsError {
		var paths []string
		for _, c := range inv.Changes {
			paths = append(paths, c.Path)
			if c.MoveTo != "" {
				paths = append(paths, c.MoveTo)
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
	return end(status, res.Summary, display, res.Output)
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
	}
	ch := make(chan Answer, 1)
	s.mu.Lock()
	s.approvals[req.ID] = ch
	s.mu.Unlock()
	t.emit(event.Event{Kind: event.ApprovalRequested, Approval: req})

	var ans Answer
	select {
	case ans = <-ch:
	case <-ctx.Done():
		s.mu.Lock()
		delete(s.approvals, req.ID)
		s.mu.Unlock()
		t.emit(event.Event{Kind: event.ApprovalResolved, Approval: req, Reason: "cancelled"})
		return false, abortedResult
	}
	t.emit(event.Event{Kind: event.ApprovalResolved, Approval: req, Reason: string(ans.Decision)})
	switch ans.Decision {
	case Deny:
		return false, "denied by the user: do not retry this call unchanged; adapt the approach or ask the user what they want"
	case AllowAlways:
		// The keys carry the scope and TTL of the policy (approval.scope,
		// approval.ttl); dangerous calls are approved once only.
		s.mu.Lock()
		mem := s.memory
		s.mu.Unlock()
		mem.Apply(policy.AnswerAlways, v)
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

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return truncate(line, 160)
}

// truncate cuts s to at most n bytes on a character boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
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
