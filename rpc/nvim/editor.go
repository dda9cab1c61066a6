package nvimhost

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	ed "github.com/coder-nvim/coder-nvim/core/editor"
)

// nvimEditor is the engine's editor.Editor in Neovim: it asks
// lua/coder/lsp.lua. Calls that wait for language servers answer through
// the coder_lua_done notification, so Neovim never blocks on them.
type nvimEditor struct {
	h *host

	mu      sync.Mutex
	next    int
	pending map[int]chan string
}

func newNvimEditor(h *host) *nvimEditor {
	return &nvimEditor{h: h, pending: map[int]chan string{}}
}

// luaDone receives the answer of a call that waited in Lua.
func (e *nvimEditor) luaDone(id int, payload string) {
	e.mu.Lock()
	ch := e.pending[id]
	delete(e.pending, id)
	e.mu.Unlock()
	if ch != nil {
		ch <- payload // buffered
	}
}

// call runs require('coder.lsp').fn(id, args...) and returns its JSON
// answer: at once, or from coder_lua_done. When ctx ends first, the Lua
// side is told to give up.
func (e *nvimEditor) call(ctx context.Context, fn string, out any, args ...any) error {
	e.mu.Lock()
	e.next++
	id := e.next
	ch := make(chan string, 1)
	e.pending[id] = ch
	e.mu.Unlock()
	drop := func() {
		e.mu.Lock()
		delete(e.pending, id)
		e.mu.Unlock()
	}
	type result struct {
		payload *string
		err     error
	}
	res := make(chan result, 1)
	go func() {
		var payload *string
		err := e.h.v.ExecLua("return require('coder.lsp')."+fn+"(...)", &payload, append([]any{id}, args...)...)
		res <- result{payload, err}
	}()
	var payload string
	select {
	case r := <-res:
		if r.err != nil {
			drop()
			return fmt.Errorf("neovim: %w", r.err)
		}
		if r.payload != nil {
			drop()
			payload = *r.payload
			break
		}
		select {
		case payload = <-ch:
		case <-ctx.Done():
			drop()
			go func() { _ = e.h.v.ExecLua("require('coder.lsp').cancel(...)", nil, id) }()
			return ctx.Err()
		}
	case <-ctx.Done():
		drop()
		go func() { _ = e.h.v.ExecLua("require('coder.lsp').cancel(...)", nil, id) }()
		return ctx.Err()
	}
	if err := json.Unmarshal([]byte(payload), out); err != nil {
		return fmt.Errorf("neovim's answer: %w", err)
	}
	return nil
}

// HasLSP asks whether a server is attached to a workspace buffer.
func (e *nvimEditor) HasLSP(ctx context.Context) bool {
	done := make(chan bool, 1)
	go func() {
		var ok bool
		err := e.h.v.ExecLua("return require('coder.lsp').has_lsp(...)", &ok, e.h.workspaceRoot())
		done <- err == nil && ok
	}()
	select {
	case ok := <-done:
		return ok
	case <-ctx.Done():
		return false
	}
}

// Snapshot returns the diagnostics of the files' loaded buffers before a
// change.
func (e *nvimEditor) Snapshot(ctx context.Context, paths []string) ([]ed.Diagnostic, error) {
	var out ed.List[ed.Diagnostic]
	done := make(chan error, 1)
	go func() {
		var payload string
		err := e.h.v.ExecLua("return require('coder.lsp').snapshot(...)", &payload, paths)
		if err == nil {
			err = json.Unmarshal([]byte(payload), &out)
		}
		done <- err
	}()
	select {
	case err := <-done:
		return out, err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Diagnostics reloads the changed files in Neovim and waits for their
// servers, at most settle.
func (e *nvimEditor) Diagnostics(ctx context.Context, paths []string, settle time.Duration) (ed.Report, error) {
	var rep ed.Report
	err := e.call(ctx, "diagnostics", &rep, paths, settle.Milliseconds())
	return rep, err
}

// LSP runs one query through the servers attached to the file (or to
// any workspace buffer, for workspace symbols).
func (e *nvimEditor) LSP(ctx context.Context, q ed.Query) (ed.Answer, error) {
	var ans ed.Answer
	args := map[string]any{"op": q.Op, "path": q.Path, "line": q.Line, "column": q.Column, "symbol": q.Symbol}
	err := e.call(ctx, "query", &ans, e.h.workspaceRoot(), args)
	return ans, err
}
