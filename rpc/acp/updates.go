package acp

import (
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/coder-nvim/coder-nvim/core/agent"
	"github.com/coder-nvim/coder-nvim/core/agent/command"
	"github.com/coder-nvim/coder-nvim/core/agent/todo"
	"github.com/coder-nvim/coder-nvim/core/agent/toolcalls"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/prompts"
	sdk "github.com/coder/acp-go-sdk"
	"github.com/google/uuid"
)

// maxToolText bounds the text content of one tool call update; the model
// still gets the whole result.
const maxToolText = 256 << 10

// modes are the engine's modes as advertised in session/new.
var modes = []struct{ id, name, desc string }{
	{"plan", "Plan", "Read-only: the agent explores and proposes a plan; no file changes or commands with effects."},
	{"default", "Default", "File changes and commands with effects ask for approval."},
	{"auto-edit", "Auto-edit", "File changes inside the workspace are applied without asking; risky commands still ask."},
	{"yolo", "Yolo", "Everything runs without asking, shell commands included."},
}

func modeState(current string) *sdk.SessionModeState {
	st := &sdk.SessionModeState{CurrentModeId: sdk.SessionModeId(current)}
	for _, m := range modes {
		st.AvailableModes = append(st.AvailableModes, sdk.SessionMode{Id: sdk.SessionModeId(m.id), Name: m.name, Description: sdk.Ptr(m.desc)})
	}
	return st
}

// hiddenCommands are not offered to ACP clients: the client owns the list
// of sessions, so /new and /resume would swap the session behind its back.
var hiddenCommands = map[string]bool{"new": true, "resume": true}

// commandHints are the argument hints of the commands that take one.
var commandHints = map[string]string{
	"model":       "model name",
	"mode":        "plan | default | auto-edit | yolo",
	"permissions": "strict | balanced | auto-edit | yolo",
	"rewind":      "turn number (empty: list the turns)",
}

func availableCommands(files []prompts.Prompt) sdk.SessionUpdate {
	help := command.Help()
	cmds := []sdk.AvailableCommand{}
	for _, name := range command.Names() {
		if hiddenCommands[name] {
			continue
		}
		c := sdk.AvailableCommand{Name: name, Description: help[name]}
		if hint, ok := commandHints[name]; ok {
			c.Input = &sdk.AvailableCommandInput{Unstructured: &sdk.UnstructuredCommandInput{Hint: hint}}
		}
		cmds = append(cmds, c)
	}
	for _, p := range files { // the user's prompt files, after the built-ins
		c := sdk.AvailableCommand{Name: p.Name, Description: p.Description}
		if p.Arguments != "" {
			c.Input = &sdk.AvailableCommandInput{Unstructured: &sdk.UnstructuredCommandInput{Hint: p.Arguments}}
		}
		cmds = append(cmds, c)
	}
	return sdk.SessionUpdate{AvailableCommandsUpdate: &sdk.SessionAvailableCommandsUpdate{AvailableCommands: cmds}}
}

func toolKind(kind string) sdk.ToolKind {
	switch kind {
	case "read":
		return sdk.ToolKindRead
	case "edit":
		return sdk.ToolKindEdit
	case "execute":
		return sdk.ToolKindExecute
	case "search":
		return sdk.ToolKindSearch
	case "fetch":
		return sdk.ToolKindFetch
	}
	return sdk.ToolKindOther
}

// kindOfTool is the kind of a built-in tool by name, for replayed calls
// (the history keeps names, not kinds).
func kindOfTool(name string) sdk.ToolKind {
	switch name {
	case "read", "ls":
		return sdk.ToolKindRead
	case "write", "edit", "patch":
		return sdk.ToolKindEdit
	case "bash":
		return sdk.ToolKindExecute
	case "glob", "grep":
		return sdk.ToolKindSearch
	case "web_fetch", "web_search":
		return sdk.ToolKindFetch
	}
	return sdk.ToolKindOther
}

// rawInput is the call's arguments as JSON when they parse, else the text.
func rawInput(args string) any {
	if strings.TrimSpace(args) == "" {
		return nil
	}
	if json.Valid([]byte(args)) {
		return json.RawMessage(args)
	}
	return args
}

func locations(root string, paths []string) []sdk.ToolCallLocation {
	var out []sdk.ToolCallLocation
	for _, p := range paths {
		out = append(out, sdk.ToolCallLocation{Path: absPath(root, p)})
	}
	return out
}

func absPath(root, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(root, filepath.FromSlash(p))
}

func diffContent(root string, diffs []event.Diff) []sdk.ToolCallContent {
	var out []sdk.ToolCallContent
	for _, d := range diffs {
		path := d.Path
		if d.MoveTo != "" {
			path = d.MoveTo
		}
		c := sdk.ToolDiffContent(absPath(root, path), d.New)
		if d.Op != "add" {
			c.Diff.OldText = sdk.Ptr(d.Old)
		}
		out = append(out, c)
	}
	return out
}

func textContent(text string) []sdk.ToolCallContent {
	if text == "" {
		return nil
	}
	if len(text) > maxToolText {
		text = text[:maxToolText] + "\n… (truncated)"
	}
	return []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(text))}
}

// handTitle is an interrupting call as users see it.
func handTitle(tool, target string) string {
	return event.ToolDisplayName(tool) + " → conversation " + event.ShortConversation(target)
}

// toolStart is the tool_call update of a ToolCallBegin.
func toolStart(root string, t *event.Tool) sdk.SessionUpdate {
	kind := toolKind(t.Kind)
	// A hand-over is a think call that streams the target's text.
	if event.IsHandOverTool(t.Name) {
		kind = sdk.ToolKindThink
	}
	var meta map[string]any
	if t.Server != "" {
		meta = map[string]any{"mcpServer": t.Server} // the title names it too
	}
	return sdk.SessionUpdate{ToolCall: &sdk.SessionUpdateToolCall{
		Meta:       meta,
		ToolCallId: sdk.ToolCallId(t.CallID),
		Title:      toolTitle(t),
		Kind:       kind,
		Status:     startStatus(t),
		Locations:  locations(root, t.Paths),
		RawInput:   rawInput(t.Arguments),
		Content:    diffContent(root, t.Diffs),
	}}
}

// startStatus is a call's status when it is announced: pending while it
// waits for the user's approval, in progress when it runs at once.
func startStatus(t *event.Tool) sdk.ToolCallStatus {
	if t.Asks {
		return sdk.ToolCallStatusPending
	}
	return sdk.ToolCallStatusInProgress
}

func toolTitle(t *event.Tool) string {
	if t.Title != "" {
		return readableTitle(t.Title)
	}
	return t.Name
}

// readableTitle puts what a call does first: clients cut a title at its
// first colon (codecompanion showed "Execute: bash" for "bash: echo hi"),
// so "bash: CMD" becomes "`CMD`" and "tool: what" becomes "what (tool)".
func readableTitle(title string) string {
	head, rest, ok := strings.Cut(title, ": ")
	if !ok || rest == "" || strings.ContainsAny(head, " `") {
		return title
	}
	if head == "bash" {
		return "`" + rest + "`"
	}
	return rest + " (" + head + ")"
}

// toolEnd is the tool_call_update of a ToolCallEnd. ACP has no cancelled
// status: an aborted call is failed, and says so.
func toolEnd(root string, t *event.Tool) sdk.SessionUpdate {
	status := sdk.ToolCallStatusCompleted
	text := t.Output
	switch t.Status {
	case event.ToolFailed:
		status = sdk.ToolCallStatusFailed
	case event.ToolDenied:
		status = sdk.ToolCallStatusFailed
		text = t.Summary
	case event.ToolAborted:
		status = sdk.ToolCallStatusFailed
		text = "cancelled"
		if t.Output != "" {
			text = t.Output
		}
	}
	if text == "" {
		text = t.Summary
	}
	content := diffContent(root, t.Diffs)
	if len(content) == 0 || status != sdk.ToolCallStatusCompleted {
		content = append(content, textContent(text)...)
	}
	raw := map[string]any{"status": t.Status}
	if t.Status == event.ToolAborted {
		raw["status"] = "cancelled"
	}
	if t.Summary != "" {
		raw["summary"] = t.Summary
	}
	if t.DurationMS > 0 {
		raw["duration_ms"] = t.DurationMS
	}
	return sdk.SessionUpdate{ToolCallUpdate: &sdk.SessionToolCallUpdate{
		ToolCallId: sdk.ToolCallId(t.CallID),
		Status:     sdk.Ptr(status),
		Content:    content,
		RawOutput:  raw,
	}}
}

func planUpdate(todos []event.Todo) sdk.SessionUpdate {
	entries := []sdk.PlanEntry{}
	for _, td := range todos {
		st := sdk.PlanEntryStatusPending
		switch td.Status {
		case "in_progress":
			st = sdk.PlanEntryStatusInProgress
		case "completed":
			st = sdk.PlanEntryStatusCompleted
		}
		entries = append(entries, sdk.PlanEntry{Content: td.Content, Priority: sdk.PlanEntryPriorityMedium, Status: st})
	}
	return sdk.SessionUpdate{Plan: &sdk.SessionUpdatePlan{Entries: entries}}
}

// permissionOptions are an approval's answers: once, always (only where
// the engine offers it, see policy.OffersAlways), reject. Every optionId
// is the well-known id of its kind: clients such as avante map answers by
// id, and any id but allow/allow_once/allow_always is a rejection there.
func permissionOptions(a *event.Approval) []sdk.PermissionOption {
	once := "Allow once"
	switch a.Sandbox {
	case event.SandboxOutside:
		once = "Run outside the sandbox, once"
	case event.SandboxIn:
		once = "Allow once (in the sandbox)"
	}
	opts := []sdk.PermissionOption{{OptionId: optAllowOnce, Name: once, Kind: sdk.PermissionOptionKindAllowOnce}}
	if a.Always {
		always := "Always allow"
		if a.Scope != "" {
			always += " " + a.Scope
		}
		opts = append(opts, sdk.PermissionOption{OptionId: optAllowAlways, Name: always, Kind: sdk.PermissionOptionKindAllowAlways})
	}
	return append(opts, sdk.PermissionOption{OptionId: optReject, Name: "Reject", Kind: sdk.PermissionOptionKindRejectOnce})
}

// The option ids: ACP's kinds, as clients know them.
const (
	optAllowOnce   sdk.PermissionOptionId = "allow_once"
	optAllowAlways sdk.PermissionOptionId = "allow_always"
	optReject      sdk.PermissionOptionId = "reject_once"
	// optAllow is avante's own "allow" (its fallback options): once.
	optAllow sdk.PermissionOptionId = "allow"
)

// decision maps a selected option onto the approval pipeline; anything
// unknown is a denial. An "always" the request did not offer reaches the
// engine as such and counts as once there.
func decision(id sdk.PermissionOptionId) agent.Decision {
	switch id {
	case optAllowOnce, optAllow:
		return agent.AllowOnce
	case optAllowAlways:
		return agent.AllowAlways
	}
	return agent.Deny
}

func permissionRequest(sid sdk.SessionId, root string, a *event.Approval) sdk.RequestPermissionRequest {
	// The title stays the call's own (a client keeps it after the call
	// ends); why it asks goes in the content.
	var why []string
	if a.Danger {
		why = append(why, "⚠ dangerous")
	}
	if a.Reason != "" {
		// Shell reasons already start so (core/policy).
		why = append(why, "needs approval: "+strings.TrimPrefix(a.Reason, "needs approval: "))
	}
	tc := sdk.ToolCallUpdate{
		ToolCallId: sdk.ToolCallId(a.CallID),
		Title:      sdk.Ptr(readableTitle(a.Title)),
		Kind:       sdk.Ptr(toolKind(a.Kind)),
		Status:     sdk.Ptr(sdk.ToolCallStatusPending),
		Locations:  locations(root, a.Paths),
		Content:    diffContent(root, a.Diffs),
	}
	if a.Command != "" {
		tc.RawInput = map[string]any{"command": a.Command}
		if len(tc.Content) == 0 {
			why = append([]string{"$ " + a.Command}, why...)
		}
	}
	tc.Content = append(tc.Content, textContent(strings.Join(why, "\n"))...)
	return sdk.RequestPermissionRequest{SessionId: sid, ToolCall: tc, Options: permissionOptions(a)}
}

// replay turns a saved conversation into the updates a client shows for
// it: user and agent messages and thoughts, each chunk with its message's
// id so adjacent messages stay apart, and each tool call as it ended, with
// its result and the title it had live.
func replay(root string, history []llm.Message) []sdk.SessionUpdate {
	var out []sdk.SessionUpdate
	var open []llm.ToolCall // calls whose result has not come yet
	// unanswered closes the calls left without a result (a history cut
	// short): failed, and said.
	unanswered := func() {
		for _, c := range open {
			out = append(out, replayCall(root, c, sdk.ToolCallStatusFailed, "no result was saved for this call"))
		}
		open = nil
	}
	for _, m := range history {
		if m.Role != llm.RoleTool {
			unanswered()
		}
		id := sdk.Ptr(uuid.NewString())
		switch m.Role {
		case llm.RoleUser:
			u := sdk.UpdateUserMessageText(todo.Shown(m.Content))
			u.UserMessageChunk.MessageId = id
			out = append(out, u)
			for _, img := range m.Images {
				u := sdk.UpdateUserMessage(imageBlock(img))
				u.UserMessageChunk.MessageId = id
				out = append(out, u)
			}
		case llm.RoleAssistant:
			if m.Reasoning != "" {
				u := sdk.UpdateAgentThoughtText(m.Reasoning)
				u.AgentThoughtChunk.MessageId = sdk.Ptr(uuid.NewString())
				out = append(out, u)
			}
			if m.Content != "" {
				u := sdk.UpdateAgentMessageText(m.Content)
				u.AgentMessageChunk.MessageId = id
				out = append(out, u)
			}
			open = append(open, m.ToolCalls...)
		case llm.RoleTool:
			for i, c := range open {
				if c.ID != m.ToolCallID {
					continue
				}
				status := sdk.ToolCallStatusCompleted
				if toolcalls.Failed(m.Content) {
					status = sdk.ToolCallStatusFailed
				}
				out = append(out, replayCall(root, c, status, m.Content))
				open = append(open[:i], open[i+1:]...)
				break
			}
		}
	}
	unanswered()
	return out
}

// replayCall is a saved call as it ended, titled as it was live.
func replayCall(root string, c llm.ToolCall, status sdk.ToolCallStatus, result string) sdk.SessionUpdate {
	title, paths := toolcalls.Title(c.Function.Name, c.Function.Arguments)
	return sdk.SessionUpdate{ToolCall: &sdk.SessionUpdateToolCall{
		ToolCallId: sdk.ToolCallId(c.ID),
		Title:      readableTitle(title),
		Kind:       kindOfTool(c.Function.Name),
		Status:     status,
		Locations:  locations(root, paths),
		RawInput:   rawInput(c.Function.Arguments),
		Content:    textContent(result),
	}}
}
