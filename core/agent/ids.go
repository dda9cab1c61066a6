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
	ErrTimeout             = errors.New("timed out")
	ErrToolConflict        = errors.New("tool conflict")
	ErrNotFound            = errors.New("not found")
	ErrInternal            = errors.New("internal error")
	errConversationClosing = errors.New("conversation closed")
)

// StoragePolicy says what of a conversation is stored: never more than its
// session (store.Narrower).
type StoragePolicy = store.Policy

// StorageFull stores everything (the default).
const StorageFull StoragePolicy = ""
