package nvimhost

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/coder-nvim/coder-nvim/core/mention"
	"github.com/coder-nvim/coder-nvim/core/tools"
)

// Completion for the chat input. The plugin's omnifunc returns what it
// has at once and asks the host with coder_complete; the host answers
// with a "complete" operation carrying the request id, and the plugin
// shows the candidates if the user is still at that word. Neovim never
// waits for the host.

// maxCandidates bounds the candidates of one answer.
const maxCandidates = 50

// completeTimeout bounds one answer (the first listing of a huge tree,
// the endpoint's model list).
const completeTimeout = 10 * time.Second

// completer holds what completion reuses: the workspace's file listing
// and the endpoint's models.
type completer struct {
	mu     sync.Mutex
	index  *mention.Index
	models []string
}

// complete answers a completion request: kind "path" (query is what
// follows "@") or "model" (what follows "/model ").
func (h *host) complete(id int, kind, query string) {
	sess, err := h.session()
	if err != nil {
		h.out.add(op{"t": "complete", "id": id, "items": []string{}, "error": err.Error()}, true)
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(h.ctx, completeTimeout)
		defer cancel()
		items := []string{}
		var msg string
		switch kind {
		case "path":
			// The MCP resources the chat's view can mention first, as
			// server:uri: a query naming a server finds them.
			items = append(items, mention.Match(sess.MCPResources(""), query, maxCandidates/2)...)
			x := h.fileIndex(sess.Workspace())
			paths, _, err := x.Match(ctx, query, maxCandidates-len(items))
			if err != nil {
				msg = err.Error()
			}
			items = append(items, paths...)
		case "model":
			names, err := h.modelNames(ctx)
			if err != nil {
				msg = err.Error()
			}
			items = append(items, mention.Match(names, query, maxCandidates)...)
		default:
			msg = "unknown completion kind " + kind
		}
		o := op{"t": "complete", "id": id, "items": items}
		if msg != "" {
			o["error"] = msg
		}
		h.out.add(o, true)
	}()
}

// fileIndex returns the listing kept for ws's root, made on first use.
func (h *host) fileIndex(ws *tools.Workspace) *mention.Index {
	h.comp.mu.Lock()
	defer h.comp.mu.Unlock()
	if h.comp.index == nil || h.comp.index.WS.Root() != ws.Root() {
		h.comp.index = &mention.Index{WS: ws}
	}
	return h.comp.index
}

// modelNames lists the endpoint's models once per host.
func (h *host) modelNames(ctx context.Context) ([]string, error) {
	h.comp.mu.Lock()
	names := h.comp.models
	h.comp.mu.Unlock()
	if names != nil {
		return names, nil
	}
	h.mu.Lock()
	be := h.be
	h.mu.Unlock()
	if be == nil || be.Models == nil {
		return nil, errors.New("the endpoint lists no models")
	}
	models, err := be.Models(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing the models: %w", err)
	}
	names = make([]string, 0, len(models))
	for _, m := range models {
		names = append(names, m.ID)
	}
	h.comp.mu.Lock()
	h.comp.models = names
	h.comp.mu.Unlock()
	return names, nil
}
