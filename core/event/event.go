// Package event defines the one typed stream the engine reports through.
// Front ends (Neovim, ACP, exec) render only from these events.
package event

import (
	"time"

	"github.com/coder-nvim/coder-nvim/core/review"
)

// Kind names what happened.
type Kind string

// Event kinds. Every event carries session, conversation and task ids.
const (
	TaskStarted         Kind = "task_started"
	UserMessage         Kind = "user_message" // the input as it entered the conversation (transcript, replay)
	AgentMessageDelta   Kind = "agent_message_delta"
	AgentReasoningDelta Kind = "agent_reasoning_delta"
	ToolCallBegin       Kind = "tool_call_begin"
	ToolCallEnd         Kind = "tool_call_end"
	ApprovalRequested   Kind = "approval_requested"
	ApprovalResolved    Kind = "approval_resolved"
	TokenCount          Kind = "token_count"
	TaskComplete        Kind = "task_complete"
	TurnAborted         Kind = "turn_aborted"
	Error               Kind = "error"
	Notice              Kind = "notice"
	CommandOutput       Kind = "command_output" // result of a `/` or `!` command written into the conversation
	StatusChanged       Kind = "status_changed" // model, mode, preset or context size changed
	TodosUpdated        Kind = "todos_updated"
	FilesChanged        Kind = "files_changed" // files the engine wrote or restored; editors reload them
	Retrying            Kind = "retrying"      // a model request failed before anything was shown and waits to be sent again
	ModelChoices        Kind = "model_choices" // /model without a name: Paths are the endpoint's models, Text the current one; an editor may offer a picker
	UndoOthers          Kind = "undo_others"   // /undo left Paths alone (changed by others); an editor may ask whether to revert them too (/undo others)

	// Hand-overs between conversations (seed 000). An interrupting tool
	// call (conv_create, conv_send) ends the caller's task with
	// TurnAborted(Replaced); HandOver follows, carrying the caller in
	// Conversation, the target in Target and the call in Tool. The
	// target's task then runs (TaskStarted … TaskComplete, every delta
	// carrying the target's conversation id); HandBack (same fields; its
	// Tool's Status failed, with why in Summary, when the target did not
	// answer: destroyed, interrupted, failed) follows its end, and a continuation task on the caller writes the
	// call's result. A front end renders the target's events between
	// HandOver and HandBack as nested under the call, and treats a task
	// end as the end of the user's input only outside a hand-over:
	// TurnAborted(Replaced) and the target's TaskComplete are not. A user
	// interrupt ends the chain: TurnAborted(Interrupted) is then final.
	HandOver Kind = "hand_over"
	HandBack Kind = "hand_back"
	// ConversationClosed reports a conversation closed (conv_destroy or
	// CloseConversation); Text says whether its task had to be abandoned.
	ConversationClosed Kind = "conversation_closed"
)

// CommandsChanged: the `/` commands on offer changed (an MCP server
// started with prompts, or announced prompts/list_changed); a front end
// lists them again (Session.PromptCommands).
const CommandsChanged Kind = "commands_changed"

// ToolOutputDelta is a piece of a running bash call's output as it
// arrives, in conversations whose use_streamable_shell_tool is on (the
// default). Tool names the call (CallID, Name, Kind, Title); Text is the
// chunk, whole UTF-8, coalesced to at most one event per call every
// ~50 ms. A call streams at most its first MiB: the event that reaches
// that carries Reason ReasonOutputLimit and no more follow. ToolCallEnd still carries the
// (capped) output the model gets; a front end that showed the deltas does
// not show it again.
const ToolOutputDelta Kind = "tool_output_delta"

// ReasonOutputLimit marks the last ToolOutputDelta of a call whose output
// went past what is streamed; the rest is only in its ToolCallEnd.
const ReasonOutputLimit = "output_limit"

// Abort reasons carried by TurnAborted.
const (
	ReasonInterrupted = "interrupted"
	ReasonError       = "error"
	ReasonReplaced    = "replaced"
)

// ReasonSessionLocked marks an Error event: the session asked for is open
// in another process (front ends may also notify).
const ReasonSessionLocked = "session_locked"

// Stop reasons carried by TaskComplete.
const (
	StopEndTurn  = "end_turn"
	StopMaxSteps = "max_steps"
	StopCommand  = "command" // a `/` or `!` command ran; the model was not called
	StopRefusal  = "refusal" // the provider's content filter stopped the answer
)

// Event is one entry of the stream. Kind says which of the optional fields
// are set: Text for deltas, notices, errors and command output; Tool for
// tool calls; Approval for approval requests; Tokens for token counts;
// Reason for aborts, completions and a tool output delta at its limit; Status for status changes; Todos for
// todo updates; Paths for changed files; Text and Retry for retries.
type Event struct {
	Kind         Kind   `json:"kind" msgpack:"kind"`
	Session      string `json:"session_id" msgpack:"session_id"`
	Conversation string `json:"conversation_id" msgpack:"conversation_id"`
	Task         string `json:"task_id,omitempty" msgpack:"task_id,omitempty"`
	// Target is the other conversation of a HandOver or HandBack.
	Target string `json:"target_conversation_id,omitempty" msgpack:"target_conversation_id,omitempty"`
	// Trace groups every task one user input caused, its hand-overs and
	// their continuations (the user's task id); Span is the task's span
	// in it (its task id). Set on the events of tasks (seed 004 §9).
	Trace string    `json:"trace_id,omitempty" msgpack:"trace_id,omitempty"`
	Span  string    `json:"span_id,omitempty" msgpack:"span_id,omitempty"`
	Time  time.Time `json:"time" msgpack:"-"`

	Text     string    `json:"text,omitempty" msgpack:"text,omitempty"`
	Detail   string    `json:"detail,omitempty" msgpack:"detail,omitempty"` // expandable detail of command output (the full /diff)
	Reason   string    `json:"reason,omitempty" msgpack:"reason,omitempty"`
	Tool     *Tool     `json:"tool,omitempty" msgpack:"tool,omitempty"`
	Approval *Approval `json:"approval,omitempty" msgpack:"approval,omitempty"`
	Tokens   *Tokens   `json:"tokens,omitempty" msgpack:"tokens,omitempty"`
	Status   *Status   `json:"status,omitempty" msgpack:"status,omitempty"`
	Todos    []Todo    `json:"todos,omitempty" msgpack:"todos,omitempty"`
	Paths    []string  `json:"paths,omitempty" msgpack:"paths,omitempty"`
	Retry    *Retry    `json:"retry,omitempty" msgpack:"retry,omitempty"`
	// Turn is set on the event that ends a user's turn that changed
	// files: what it changed, for a summary line an editor may offer to
	// review.
	Turn *TurnChanges `json:"turn,omitempty" msgpack:"turn,omitempty"`
}

// TurnChanges is what a turn changed: its number among the session's
// turns (/rewind N, review N) and the files its own calls wrote, sorted.
type TurnChanges struct {
	N     int      `json:"n" msgpack:"n"`
	Paths []string `json:"paths" msgpack:"paths"`
}

// Retry is one wait before a model request is sent again. The event's Text
// says it in one line ("rate limited; retrying in 20 s (attempt 2 of 4)").
type Retry struct {
	Reason      string `json:"reason" msgpack:"reason"` // rate_limited, server_error, idle_timeout, connection
	StatusCode  int    `json:"status_code,omitempty" msgpack:"status_code,omitempty"`
	WaitMS      int64  `json:"wait_ms" msgpack:"wait_ms"`
	Attempt     int    `json:"attempt" msgpack:"attempt"` // the attempt that failed, from 1
	MaxAttempts int    `json:"max_attempts" msgpack:"max_attempts"`
	Message     string `json:"message" msgpack:"message"` // the provider's full message
}

// Tool describes one tool call, at its beginning and at its end.
type Tool struct {
	CallID string `json:"call_id" msgpack:"call_id"`
	Name   string `json:"name" msgpack:"name"`
	Kind   string `json:"kind" msgpack:"kind"` // read, edit, execute, search, other, mcp
	Title  string `json:"title" msgpack:"title"`
	// Server names the MCP server of an mcp tool.
	Server    string   `json:"server,omitempty" msgpack:"server,omitempty"`
	Arguments string   `json:"arguments,omitempty" msgpack:"arguments,omitempty"`
	Paths     []string `json:"paths,omitempty" msgpack:"paths,omitempty"`
	// Asks, on ToolCallBegin: the call waits for the user's approval
	// (an ApprovalRequested follows, unless a remembered answer settles
	// it) before it runs.
	Asks bool `json:"asks,omitempty" msgpack:"asks,omitempty"`
	// Set on ToolCallEnd.
	Status string `json:"status,omitempty" msgpack:"status,omitempty"` // completed, failed, denied, aborted
	// Error is the kind of a call that did not complete, when one
	// applies (seed 004 §3.1): cancelled, approval_denied,
	// sandbox_error, mcp_error.
	Error      string `json:"error,omitempty" msgpack:"error,omitempty"`
	Summary    string `json:"summary,omitempty" msgpack:"summary,omitempty"`
	Output     string `json:"output,omitempty" msgpack:"output,omitempty"` // full output for the user (diff, command output)
	DurationMS int64  `json:"duration_ms,omitempty" msgpack:"duration_ms,omitempty"`
	Diffs      []Diff `json:"diffs,omitempty" msgpack:"diffs,omitempty"`
	// ExitCode is a command's exit status, when it ran to one.
	ExitCode *int `json:"exit_code,omitempty" msgpack:"exit_code,omitempty"`
}

// Tool call end statuses.
const (
	ToolCompleted = "completed"
	ToolFailed    = "failed"
	ToolDenied    = "denied"
	ToolAborted   = "aborted"
)

// Diff is one file change with whole old and new texts, for diff views.
type Diff struct {
	Path   string `json:"path" msgpack:"path"`
	MoveTo string `json:"move_to,omitempty" msgpack:"move_to,omitempty"`
	Op     string `json:"op" msgpack:"op"` // add, update, delete
	Old    string `json:"old" msgpack:"old"`
	New    string `json:"new" msgpack:"new"`
	// Hunks are the changed regions in order; an approval answer accepts
	// or rejects each by index.
	Hunks []review.Hunk `json:"hunks,omitempty" msgpack:"hunks,omitempty"`
}

// Approval is a request for the user's decision on one tool call.
type Approval struct {
	ID      string   `json:"id" msgpack:"id"`
	CallID  string   `json:"call_id" msgpack:"call_id"`
	Tool    string   `json:"tool" msgpack:"tool"`
	Kind    string   `json:"kind" msgpack:"kind"`
	Title   string   `json:"title" msgpack:"title"`
	Command string   `json:"command,omitempty" msgpack:"command,omitempty"`
	Paths   []string `json:"paths,omitempty" msgpack:"paths,omitempty"`
	Reason  string   `json:"reason" msgpack:"reason"` // why approval is needed
	Scope   string   `json:"scope" msgpack:"scope"`   // what "always" would cover
	Danger  bool     `json:"danger,omitempty" msgpack:"danger,omitempty"`
	Diffs   []Diff   `json:"diffs,omitempty" msgpack:"diffs,omitempty"` // proposed file changes, for review
	// Sandbox is where a command runs if allowed: SandboxIn, SandboxOutside
	// (the model asked to leave it), or "" (no sandbox here).
	Sandbox string `json:"sandbox,omitempty" msgpack:"sandbox,omitempty"`
	// Plan, when set, makes this the plan hand-off of plan mode
	// (propose_plan): the user approves the plan (possibly edited), keeps
	// planning with a comment or cancels; see agent.PlanApprove.
	Plan *Plan `json:"plan,omitempty" msgpack:"plan,omitempty"`
	// Always says "always" may be offered: the answer would be
	// remembered, and nothing about the call makes remembering unsafe
	// (policy.OffersAlways). An "always" answer to a request without it
	// counts as once.
	Always bool `json:"always,omitempty" msgpack:"always,omitempty"`
	// Elicitation, when set, makes this an MCP server's question to the
	// user (elicit.go), not a tool call's approval.
	Elicitation *Elicitation `json:"elicitation,omitempty" msgpack:"elicitation,omitempty"`
}

// Plan is a plan put to the user.
type Plan struct {
	Text    string `json:"text" msgpack:"text"` // Markdown
	Summary string `json:"summary,omitempty" msgpack:"summary,omitempty"`
	// Previous is the proposal this one revises (the user asked to keep
	// planning); "" for a first proposal. Front ends show the difference.
	Previous string `json:"previous,omitempty" msgpack:"previous,omitempty"`
}

// Approval.Sandbox values.
const (
	SandboxIn      = "in"
	SandboxOutside = "outside"
)

// Tokens is the token accounting after a model call.
type Tokens struct {
	Prompt     int `json:"prompt" msgpack:"prompt"`
	Completion int `json:"completion" msgpack:"completion"`
	Total      int `json:"total" msgpack:"total"`
	Context    int `json:"context" msgpack:"context"` // estimated size of the context now
	Window     int `json:"window,omitempty" msgpack:"window,omitempty"`
	// Cached is the part of Prompt the provider served from its cache;
	// Cost is what the call cost in US dollars: what the provider says
	// (OpenRouter), else the tokens at the model's known prices, else 0.
	Cached int     `json:"cached,omitempty" msgpack:"cached,omitempty"`
	Cost   float64 `json:"cost,omitempty" msgpack:"cost,omitempty"`
	// Turn sums the calls of the turn so far.
	Turn *TurnUsage `json:"turn,omitempty" msgpack:"turn,omitempty"`
}

// TurnUsage is the token accounting of one turn (every model call of it):
// tokens in (prompt) and out (completion), the cached part of the prompt
// and the cost (Tokens.Cost).
type TurnUsage struct {
	In     int     `json:"in" msgpack:"in"`
	Out    int     `json:"out" msgpack:"out"`
	Cached int     `json:"cached" msgpack:"cached"`
	Cost   float64 `json:"cost,omitempty" msgpack:"cost,omitempty"`
	Calls  int     `json:"calls" msgpack:"calls"`
}

// CacheShare is the cached part of the prompt tokens, 0 to 1.
func (u TurnUsage) CacheShare() float64 {
	if u.In == 0 {
		return 0
	}
	return float64(u.Cached) / float64(u.In)
}

// Status is what a front end shows next to the input: model, mode, preset,
// context size and the workspace.
type Status struct {
	Model         string `json:"model" msgpack:"model"`
	Mode          string `json:"mode" msgpack:"mode"`
	Preset        string `json:"preset" msgpack:"preset"`
	ContextTokens int    `json:"context_tokens" msgpack:"context_tokens"`
	// ContextWindow is the model's window in tokens (0: unknown).
	ContextWindow int    `json:"context_window,omitempty" msgpack:"context_window,omitempty"`
	Cwd           string `json:"cwd" msgpack:"cwd"`
	Demo          bool   `json:"demo,omitempty" msgpack:"demo,omitempty"`
	Busy          bool   `json:"busy" msgpack:"busy"`
	// Turn is the token accounting of the current or last turn; nil
	// before the first model call.
	Turn *TurnUsage `json:"turn,omitempty" msgpack:"turn,omitempty"`
}

// Todo is one entry of the task list.
type Todo struct {
	Content string `json:"content" msgpack:"content"`
	Status  string `json:"status" msgpack:"status"` // pending, in_progress, completed
}
