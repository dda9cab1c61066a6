package nvimhost

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/coder-nvim/coder-nvim/core/agent"
	"github.com/coder-nvim/coder-nvim/core/review"
)

// inlineTimeout bounds one inline edit's model call.
const inlineTimeout = 2 * time.Minute

// maxInlineKept bounds the answered inline edits kept for their review.
const maxInlineKept = 8

// inlineArgs is what coder_inline sends (lua/coder/inline.lua).
type inlineArgs struct {
	ID          int      `msgpack:"id"`
	Buf         int      `msgpack:"buf"`
	Tick        int      `msgpack:"tick"`
	Name        string   `msgpack:"name"` // the buffer's file, "" when unnamed
	Filetype    string   `msgpack:"filetype"`
	Instruction string   `msgpack:"instruction"`
	First       int      `msgpack:"first"`
	Before      []string `msgpack:"before"`
	Selection   []string `msgpack:"selection"`
	After       []string `msgpack:"after"`
}

// inlineEdits are the inline edits being asked or reviewed.
type inlineEdits struct {
	mu     sync.Mutex
	cancel context.CancelFunc        // the running model call
	kept   map[int]agent.RewriteEdit // answered, under review
	order  []int
}

// inlineEdit runs one inline edit: the session's Rewrite, then the hunk
// review in the buffer. A new edit stops the one still asking.
func (h *host) inlineEdit(a inlineArgs) {
	sess, err := h.session()
	if err != nil {
		h.inlineFailed(a.ID, err)
		return
	}
	path := a.Name
	if path != "" {
		path = h.rel(path)
		if filepath.IsAbs(path) {
			path = filepath.Base(path) // outside the workspace: its name only
		}
	}
	req := agent.RewriteRequest{Path: path, Filetype: a.Filetype, Instruction: a.Instruction, First: a.First, Before: a.Before, Selection: a.Selection, After: a.After}
	if err := req.Check(); err != nil {
		h.inlineFailed(a.ID, err)
		return
	}
	ctx, cancel := context.WithTimeout(h.ctx, inlineTimeout)
	h.inline.mu.Lock()
	if h.inline.cancel != nil {
		h.inline.cancel()
	}
	h.inline.cancel = cancel
	h.inline.mu.Unlock()
	// The review op of the hunks so far (progress: the answer still
	// streams) or of the whole answer.
	reviewOp := func(hunks []review.Hunk, streaming bool) op {
		list := []any{}
		for _, hk := range hunks {
			list = append(list, map[string]any{"old_start": hk.OldStart, "old_lines": trimNewlines(hk.OldLines), "new_lines": trimNewlines(hk.NewLines)})
		}
		return op{"t": "inline_review", "id": a.ID, "buf": a.Buf, "tick": a.Tick, "first": a.First, "last": a.First + len(a.Selection) - 1,
			"path": path, "instruction": a.Instruction, "hunks": list, "streaming": streaming}
	}
	go func() {
		defer cancel()
		edit, err := sess.Rewrite(ctx, req, func(hunks []review.Hunk) { h.out.add(reviewOp(hunks, true), true) })
		if err != nil {
			if errors.Is(ctx.Err(), context.Canceled) {
				err = errors.New("stopped")
			}
			h.inlineFailed(a.ID, err)
			return
		}
		h.inline.mu.Lock()
		if h.inline.kept == nil {
			h.inline.kept = map[int]agent.RewriteEdit{}
		}
		h.inline.kept[a.ID] = edit
		h.inline.order = append(h.inline.order, a.ID)
		for len(h.inline.order) > maxInlineKept {
			delete(h.inline.kept, h.inline.order[0])
			h.inline.order = h.inline.order[1:]
		}
		h.inline.mu.Unlock()
		h.out.add(reviewOp(edit.Hunks(), false), true)
	}()
}

func (h *host) inlineFailed(id int, err error) {
	h.out.add(op{"t": "inline_failed", "id": id, "msg": "coder edit: " + err.Error()}, true)
}

// inlineCancel stops the inline edit still asking the model.
func (h *host) inlineCancel() {
	h.inline.mu.Lock()
	defer h.inline.mu.Unlock()
	if h.inline.cancel != nil {
		h.inline.cancel()
		h.inline.cancel = nil
	}
}

// inlineResult answers the review of inline edit id: the selection's
// lines with the accepted hunks applied (Lua puts them in the buffer).
// A denial only forgets the edit.
func (h *host) inlineResult(id int, decision string, accepted []bool) ([]string, error) {
	h.inline.mu.Lock()
	k, ok := h.inline.kept[id]
	delete(h.inline.kept, id)
	h.inline.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("inline edit %d is no longer known; run :Coder edit again", id)
	}
	if decision == "deny" {
		return []string{}, nil
	}
	lines, err := k.Apply(accepted)
	if err != nil {
		return nil, fmt.Errorf("inline edit: %s", strings.TrimPrefix(err.Error(), "review: "))
	}
	return lines, nil
}
