package agent

import (
	"errors"

	"github.com/coder-nvim/coder-nvim/core/store"
)

// Typed ids keep a conversation id from being passed where a task id is
// expected (seed 004 §3.1). Events carry them as plain strings.
type (
	// SessionID names a session (its file in .coder/sessions).
	SessionID string
	// ConversationID names a conversation inside a session.
	ConversationID string
	// TaskID names one task (user input, hand-over target or
	// continuation).
	TaskID string
)

// The engine's small error vocabulary (seed 004 §3.1). Errors returned by
// Session methods wrap one of these where it applies, so callers can test
// with errors.Is.
var (
	ErrCancelled           = errors.New("cancelled")
	ErrTimeout             = errors.New("timed out")
	ErrApprovalDenied      = errors.New("approval denied")
	ErrSandbox             = errors.New("sandbox error")
	ErrMCP                 = errors.New("MCP error")
	ErrToolConflict        = errors.New("tool conflict")
	ErrStoragePolicy       = errors.New("storage policy violation")
	ErrNotFound            = errors.New("not found")
	ErrInternal            = errors.New("internal error")
	errConversationClosing = errors.New("conversation closed")
)

// errorKinds name the kinds on the wire (event.Tool.Error).
var errorKinds = []struct {
	err  error
	name string
}{
	{ErrCancelled, "cancelled"}, {ErrTimeout, "timeout"}, {ErrApprovalDenied, "approval_denied"},
	{ErrSandbox, "sandbox_error"}, {ErrMCP, "mcp_error"}, {ErrToolConflict, "tool_conflict"},
	{ErrStoragePolicy, "storage_policy_violation"}, {ErrNotFound, "not_found"}, {ErrInternal, "internal"},
}

// ErrorKind is the name of the kind err wraps; "" for none.
func ErrorKind(err error) string {
	for _, k := range errorKinds {
		if errors.Is(err, k.err) {
			return k.name
		}
	}
	return ""
}

// StoragePolicy says what of a conversation is stored: never more than its
// session (store.Narrower).
type StoragePolicy = store.Policy

// StorageFull stores everything (the default).
const StorageFull StoragePolicy = ""
