package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/coder-nvim/coder-nvim/core/agent"
	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/store"
	sdk "github.com/coder/acp-go-sdk"
	"github.com/google/uuid"
)

// session/delete, and the initialize that advertises it, reach the agent
// as extension methods (wire.go says why).
const (
	extSessionDelete = "_coder-nvim/session/delete"
	extInitialize    = "_coder-nvim/initialize"
)

var _ sdk.ExtensionMethodHandler = (*server)(nil)

func (a *server) HandleExtensionMethod(ctx context.Context, method string, params json.RawMessage) (any, error) {
	switch method {
	case extInitialize:
		var p sdk.InitializeRequest
		if err := decodeParams(params, &p); err != nil {
			return nil, err
		}
		if err := p.Validate(); err != nil {
			return nil, sdk.NewInvalidParams(map[string]any{"error": err.Error()})
		}
		resp, err := a.Initialize(ctx, p)
		if err != nil {
			return nil, err
		}
		return withDeleteCapability(resp)
	case extSessionDelete:
		var p deleteSessionRequest
		if err := decodeParams(params, &p); err != nil {
			return nil, err
		}
		if err := a.deleteSession(p.SessionID); err != nil {
			return nil, err
		}
		return struct{}{}, nil
	}
	return nil, sdk.NewMethodNotFound(method)
}

func decodeParams(params json.RawMessage, v any) error {
	if err := json.Unmarshal(params, v); err != nil {
		return sdk.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	return nil
}

// deleteSessionRequest is ACP's DeleteSessionRequest.
type deleteSessionRequest struct {
	Meta      map[string]any `json:"_meta,omitempty"`
	SessionID sdk.SessionId  `json:"sessionId"`
}

// withDeleteCapability is resp with agentCapabilities.sessionCapabilities
// .delete set, which the SDK's type has no field for.
func withDeleteCapability(resp sdk.InitializeResponse) (json.RawMessage, error) {
	b, err := json.Marshal(resp)
	if err != nil {
		return nil, err
	}
	return setKey(b, json.RawMessage("{}"), "agentCapabilities", "sessionCapabilities", "delete")
}

// setKey sets the value at path in the JSON object b, creating the
// objects on the way.
func setKey(b []byte, v json.RawMessage, path ...string) (json.RawMessage, error) {
	obj := map[string]json.RawMessage{}
	if len(b) > 0 {
		if err := json.Unmarshal(b, &obj); err != nil {
			return nil, err
		}
	}
	if len(path) > 1 {
		inner, err := setKey(obj[path[0]], v, path[1:]...)
		if err != nil {
			return nil, err
		}
		v = inner
	}
	obj[path[0]] = v
	return json.Marshal(obj)
}

// deleteSession deletes a saved session's files. It is looked for in the
// workspaces this agent has seen (sessions opened, sessions listed with a
// cwd): the request names no workspace. An open session is refused, here
// or in another process; so is an id found nowhere, since success would
// tell the user a session is gone that may be saved in a workspace not
// searched. The spec's "deleting twice succeeds" holds for a session this
// agent deleted.
func (a *server) deleteSession(id sdk.SessionId) error {
	if _, err := uuid.Parse(string(id)); err != nil {
		return sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("%q is not a session id of this agent", id), "sessionId": id})
	}
	a.mu.Lock()
	_, open := a.sessions[id]
	var roots []string
	for r := range a.roots {
		roots = append(roots, r)
	}
	already := a.deleted[id]
	a.mu.Unlock()
	sort.Strings(roots)
	if open {
		msg := fmt.Sprintf("session %s is open in this agent: close it (session/close) before deleting it", id)
		return &sdk.RequestError{Code: -32603, Message: msg, Data: map[string]any{"error": msg, "sessionId": id}}
	}
	stateDir := config.StateDir(a.getenv)
	found := false
	for _, root := range roots {
		err := agent.DeleteSaved(root, stateDir, string(id))
		switch {
		case err == nil:
			found = true
			a.log.Info("session deleted", "session", id, "cwd", root)
		case errors.Is(err, store.ErrNotFound):
		case errors.Is(err, store.ErrLocked):
			return &sdk.RequestError{Code: -32603, Message: err.Error(), Data: map[string]any{"error": err.Error(), "sessionId": id, "inUseBy": store.Holder(store.Dir(root), string(id))}}
		default:
			return failure(err.Error())
		}
	}
	if found {
		a.mu.Lock()
		a.deleted[id] = true
		a.mu.Unlock()
		return nil
	}
	if already {
		return nil
	}
	where := "none yet"
	if len(roots) > 0 {
		where = strings.Join(roots, ", ")
	}
	return notFound(id, fmt.Sprintf("no saved session with this id in the workspaces this agent has seen (%s): list its workspace's sessions (session/list with that cwd) first", where))
}
