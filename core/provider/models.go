package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/coder-nvim/coder-nvim/core/llm"
)

// modelEntry is one entry of GET /models as the endpoints write it: the
// id, and the context window under whichever name the endpoint uses.
type modelEntry struct {
	ID            string `json:"id"`
	ContextLength int    `json:"context_length"` // OpenRouter, LM Studio's native API
	ContextWindow int    `json:"context_window"` // Groq
	TopProvider   struct {
		ContextLength int `json:"context_length"`
	} `json:"top_provider"` // OpenRouter, when the entry has no context_length
	Capabilities struct {
		Limits struct {
			MaxContextWindowTokens int `json:"max_context_window_tokens"`
		} `json:"limits"`
	} `json:"capabilities"` // GitHub Copilot
}

func (m modelEntry) window() int {
	for _, w := range []int{m.ContextLength, m.ContextWindow, m.TopProvider.ContextLength, m.Capabilities.Limits.MaxContextWindowTokens} {
		if w > 0 {
			return w
		}
	}
	return 0
}

// Models lists the endpoint's models (GET /models), sorted by id, with the
// context window each entry gives. An endpoint without that route (many
// servers) is an *Error with StatusCode 404, which callers treat as "no
// list"; a 401/403 is an *Error naming the provider and its variable.
func (p *OpenAI) Models(ctx context.Context) ([]llm.Model, error) {
	u := p.baseURL + "/models"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, &Error{Message: fmt.Sprintf("provider: bad base URL %q: %v", p.baseURL, err), Err: err}
	}
	req.Header.Set("Accept", "application/json")
	if p.opts.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+p.opts.APIKey)
	}
	resp, err := p.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("provider: list models: %w", ctx.Err())
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, &Error{Message: fmt.Sprintf("provider: cannot reach %s: %v", p.baseURL, err), Err: err}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return nil, &Error{Message: fmt.Sprintf("provider: GET %s: %v", u, err), Err: err}
	}
	if resp.StatusCode != http.StatusOK {
		e := p.statusError(resp.StatusCode, bodyMessage(data))
		e.Message = fmt.Sprintf("%s (GET %s)", e.Message, u)
		return nil, e
	}
	var list struct {
		Data []modelEntry `json:"data"`
	}
	if err := json.Unmarshal(data, &list); err != nil {
		return nil, &Error{Message: fmt.Sprintf("provider: GET %s answered no model list: %v", u, err), Err: err}
	}
	out := make([]llm.Model, 0, len(list.Data))
	for _, m := range list.Data {
		if id := strings.TrimSpace(m.ID); id != "" {
			out = append(out, llm.Model{ID: id, ContextWindow: m.window()})
		}
	}
	slices.SortFunc(out, func(a, b llm.Model) int { return strings.Compare(a.ID, b.ID) })
	return slices.CompactFunc(out, func(a, b llm.Model) bool { return a.ID == b.ID }), nil
}

// ModelIDs are the ids of models, in order.
func ModelIDs(models []llm.Model) []string {
	out := make([]string, len(models))
	for i, m := range models {
		out[i] = m.ID
	}
	return out
}
