package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/mcp"
	"github.com/coder-nvim/coder-nvim/core/policy"
	"github.com/coder-nvim/coder-nvim/core/text"
	"github.com/coder-nvim/coder-nvim/core/tools"
)

// KindMCP is the tool kind of MCP tools.
const KindMCP tools.Kind = policy.KindMCP

// mcpState is the session's MCP pool and the conversations' views.
type mcpState struct {
	pool *mcp.Pool

	// Guarded by Session.mu.
	waited bool                         // the first turn waited for starting servers
	views  map[ConversationID]*mcp.View // per conversation: allowlist and limits
	// failed are the servers' failures not told yet, said once in the
	// next turn (issue 48); its own lock: the pool may call OnNotice
	// under Session.mu.
	failed mcp.Failures
	forms  mcp.OpenForms // open elicitations (mcpelicit.go)
}

// openMCP starts the configured servers in the background; nothing waits
// for them here.
func (s *Session) openMCP(log io.Writer) {
	servers := s.opts.Config.MCPServers
	if len(servers) == 0 {
		return
	}
	s.mcp = &mcpState{views: map[ConversationID]*mcp.View{}}
	s.mcp.pool = mcp.New(mcp.Options{
		Servers:       servers,
		Root:          s.root,
		Dir:           filepath.Dir(config.UserFile()),
		Programs:      s.ws.Programs(),
		StartTimeout:  s.opts.Config.MCPStartTimeout(),
		CallTimeout:   s.opts.Config.MCPCallTimeout(),
		IdleTimeout:   s.opts.Config.MCPIdleTimeout(),
		Limits:        s.opts.Config.MCP.Limits,
		Log:           log,
		ClientName:    "coder-nvim",
		ClientVersion: s.opts.Version,
		Elicit:        s.elicit,
		Auth:          s.mcpAuth(),
		OnNotice: func(n mcp.Notice) {
			s.mcpLoginNotice(n)
			s.mcp.failed.Note(n)
			switch n.Kind {
			case mcp.NoticeCloseFailed: // at close too, when no turn follows
				s.emit(event.Event{Kind: event.Notice, Text: fmt.Sprintf("MCP server %s: %s", n.Server, n.Text)})
			case mcp.NoticeStarted:
				s.emit(event.Event{Kind: event.CommandsChanged}) // its prompts are /server:prompt commands
			case mcp.NoticePromptsChanged:
				s.emit(event.Event{Kind: event.CommandsChanged})
			}
		},
	})
}

func (s *Session) closeMCP() {
	if s.mcp == nil {
		return
	}
	if err := s.mcp.pool.Close(); err != nil {
		s.emit(event.Event{Kind: event.Notice, Text: err.Error()})
	}
}

// MCPStatus describes the configured MCP servers (nil: none).
func (s *Session) MCPStatus() []mcp.ServerStatus {
	if s.mcp == nil {
		return nil
	}
	return s.mcp.pool.Status()
}

// mcpBoundary is the turn boundary: the pool's news (servers that
// started, tools/list_changed) are folded in, and the task keeps the
// resulting snapshot for all of its model calls. The session's first
// turn waits up to mcp.first_turn_wait for servers still starting.
func (s *Session) mcpBoundary(t *task) *mcp.Catalog {
	if s.mcp == nil {
		return nil
	}
	s.mu.Lock()
	first := !s.mcp.waited
	s.mcp.waited = true
	s.mu.Unlock()
	if first {
		s.mcp.pool.WaitStarted(context.Background(), s.opts.Config.MCPFirstTurnWait())
	}
	s.tellMCPFailures(t)
	cat, changed := s.mcp.pool.Advance()
	if changed {
		text := fmt.Sprintf("MCP tools: %d available", len(cat.Tools))
		for _, c := range cat.Conflicts {
			text += "; conflict: " + c.String()
		}
		t.emit(event.Event{Kind: event.Notice, Text: text})
	}
	return cat
}

// tellMCPFailures puts the servers' failures since the last turn into
// this one, one notice per server.
func (s *Session) tellMCPFailures(t *task) {
	for _, line := range s.mcp.failed.Take() {
		t.emit(event.Event{Kind: event.Notice, Text: line})
	}
}

// mcpView is a conversation's view; created on first use.
func (s *Session) mcpView(c *Conversation) (*mcp.View, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if v := s.mcp.views[c.ID]; v != nil {
		return v, nil
	}
	v, err := s.mcp.pool.View(c.MCPAllowlist)
	if err != nil {
		return nil, err
	}
	s.mcp.views[c.ID] = v
	return v, nil
}

// checkMCPAllowlist is the hook conv_create calls: names no server
// defines, or that the parent conversation cannot see, are an error that
// names them.
func (s *Session) checkMCPAllowlist(parent *Conversation, allow []string) error {
	if allow == nil {
		return nil
	}
	var outside []string
	if parent != nil && parent.MCPAllowlist != nil {
		for _, n := range allow {
			if !slices.Contains(parent.MCPAllowlist, n) {
				outside = append(outside, n)
			}
		}
	}
	if len(outside) > 0 {
		return fmt.Errorf("mcp_allowlist: %s not visible to the calling conversation (a conversation can only narrow its parent's view)", strings.Join(outside, ", "))
	}
	if s.mcp == nil {
		if len(allow) == 0 {
			return nil
		}
		return fmt.Errorf("unknown MCP tools in mcp_allowlist: %s (no MCP servers are configured)", strings.Join(allow, ", "))
	}
	return s.mcp.pool.Check(allow)
}

// releaseMCPView gives a closed conversation's view back to the pool: a
// server no conversation uses can idle out (mcp.idle_timeout).
func (s *Session) releaseMCPView(id ConversationID) {
	if s.mcp == nil {
		return
	}
	s.mu.Lock()
	v := s.mcp.views[id]
	delete(s.mcp.views, id)
	s.mu.Unlock()
	if v != nil {
		v.Release()
	}
}

// mcpTools are the MCP tools a task offers: the turn's snapshot, narrowed
// to the conversation's view, and in plan mode to tools annotated
// readOnlyHint, in FQN order — or, past mcp.tool_budget_tokens,
// mcp_tool_search and the tools found so far, last (core/mcp Offer).
func (s *Session) mcpTools(t *task, mode policy.Mode) []tools.Tool {
	out, _ := s.mcpOffer(t, mode)
	return out
}

func (s *Session) mcpOffer(t *task, mode policy.Mode) (offered []tools.Tool, visible []mcp.Tool) {
	if s.mcp == nil || t.mcpCat == nil {
		return nil, nil
	}
	v, err := s.mcpView(t.conv)
	if err != nil {
		return nil, nil
	}
	visible = v.Visible(t.mcpCat, mode == policy.ModePlan)
	head, found := v.Offer(visible, s.opts.Config.MCP.ToolBudgetTokens, func() []json.RawMessage { return pastSearches(t.conv) })
	add := func(mt mcp.Tool) {
		offered = append(offered, mcpTool{s: s, t: mt, view: v, cat: t.mcpCat, visible: visible})
	}
	for _, mt := range head {
		add(mt)
	}
	if rt, ok := v.ResourceReadSpec(); ok { // read-only: plan mode too
		add(rt)
	}
	for _, mt := range found {
		add(mt)
	}
	return offered, visible
}

// pastSearches are the arguments of c's mcp_tool_search calls, oldest
// first (the part of the history in memory).
func pastSearches(c *Conversation) []json.RawMessage {
	var out []json.RawMessage
	for _, m := range c.messages() {
		for _, tc := range m.ToolCalls {
			if tc.Function.Name == mcp.ToolSearchTool {
				out = append(out, json.RawMessage(tc.Function.Arguments))
			}
		}
	}
	return out
}

// lookupMCP finds an MCP tool the task offers in mode; behind
// mcp_tool_search, a tool of the names list not yet found is callable
// too (the model knows its name).
func (s *Session) lookupMCP(t *task, name string, mode policy.Mode) (mcpTool, bool) {
	offered, visible := s.mcpOffer(t, mode)
	for _, tl := range offered {
		if mt := tl.(mcpTool); mt.t.FQN == name {
			return mt, true
		}
	}
	if len(offered) > 0 {
		if first := offered[0].(mcpTool); first.t.FQN == mcp.ToolSearchTool {
			for _, vt := range visible {
				if vt.FQN == name {
					first.t = vt
					return first, true
				}
			}
		}
	}
	return mcpTool{}, false
}

// mcpTool adapts one MCP tool to the tool pipeline.
type mcpTool struct {
	s    *Session
	t    mcp.Tool
	view *mcp.View
	cat  *mcp.Catalog
	// visible: what mcp_tool_search searches
	visible []mcp.Tool
}

func (m mcpTool) Spec() llm.Tool   { return m.t.Spec() }
func (m mcpTool) Kind() tools.Kind { return KindMCP }

func (m mcpTool) Prepare(_ context.Context, _ *tools.Workspace, args json.RawMessage) (*tools.Invocation, error) {
	title := fmt.Sprintf("%s: %s %s", m.t.Server, m.t.Name, text.Truncate(compactJSON(args), 300))
	if m.t.Server == "" {
		title = fmt.Sprintf("%s %s", m.t.Name, text.Truncate(compactJSON(args), 300))
	}
	inv := tools.NewInvocation(m.t.FQN, KindMCP, title, func(ctx context.Context) tools.Result {
		res := m.view.Run(ctx, m.cat, m.visible, m.t.FQN, args)
		if t := taskFrom(ctx); t != nil && len(res.Images) > 0 {
			t.mcpImages = append(t.mcpImages, res.Images...)
		}
		out := tools.Result{Output: res.Text, Summary: res.Summary, IsError: res.IsError}
		if res.Failed {
			out.Err = fmt.Errorf("%w: %s", ErrMCP, res.Summary)
		}
		return out
	})
	// The approval float shows the arguments whole.
	inv.Command = compactJSON(args)
	return inv, nil
}

func compactJSON(raw json.RawMessage) string {
	var b strings.Builder
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	data, _ := json.Marshal(v)
	b.Write(data)
	return b.String()
}

// mcpImagesMessage carries the pictures MCP tools returned in one step to
// the model, as a user message after the tool messages.
func (s *Session) flushMCPImages(t *task) {
	if len(t.mcpImages) == 0 {
		return
	}
	imgs := t.mcpImages
	t.mcpImages = nil
	if !s.opts.Config.AcceptsImages() {
		// The tool results already name each image; say why none follows.
		s.appendMessage(t.conv, llm.Message{Role: llm.RoleUser, Content: fmt.Sprintf("[%d image(s) returned by MCP tools above were not sent: this model takes no images]", len(imgs))})
		return
	}
	s.appendMessage(t.conv, llm.Message{Role: llm.RoleUser, Content: fmt.Sprintf("[%d image(s) returned by MCP tools above]", len(imgs)), Images: imgs})
}

// mcpReport is the MCP part of /tools: each server with its state, then
// the tools the conversation sees (as of the last turn boundary).
func (s *Session) mcpReport(c *Conversation, mode policy.Mode) string {
	if s.mcp == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString("MCP servers:\n")
	for _, st := range s.mcp.pool.Status() {
		fmt.Fprintf(&b, "  %-12s %-6s %-10s %d tools", st.Name, st.Transport, st.State, st.Tools)
		if st.Prompts > 0 || st.Resources > 0 {
			fmt.Fprintf(&b, ", %d prompts, %d resources", st.Prompts, st.Resources)
		}
		if st.Trusted {
			b.WriteString(", trusted")
		}
		if st.LastError != "" {
			b.WriteString("; last error: " + text.FirstLine(st.LastError))
		}
		b.WriteString("\n")
	}
	// What the next turn will offer: /tools runs between turns (one task
	// at a time), so the servers that came up since are folded in now.
	cat, _ := s.mcp.pool.Advance()
	v, err := s.mcpView(c)
	if err != nil {
		fmt.Fprintf(&b, "MCP tools: %v\n", err)
		return b.String()
	}
	b.WriteString("MCP tools:\n")
	for _, mt := range v.Tools(cat) {
		state := "offered"
		if mode == policy.ModePlan && !mt.ReadOnly {
			state = "not in plan mode"
		}
		ro := ""
		if mt.ReadOnly {
			ro = " (read-only)"
		}
		fmt.Fprintf(&b, "  %-30s %-10s %s%s: %s\n", mt.FQN, mt.Server, state, ro, text.FirstLine(mt.Description))
	}
	for _, cf := range cat.Conflicts {
		fmt.Fprintf(&b, "  conflict: %s\n", cf)
	}
	visible := v.Visible(cat, mode == policy.ModePlan)
	if budget := s.opts.Config.MCP.ToolBudgetTokens; budget > 0 {
		if n := mcp.SchemaTokens(visible); n > budget {
			_, found := v.Offer(visible, budget, func() []json.RawMessage { return pastSearches(c) })
			fmt.Fprintf(&b, "MCP tool search: on (~%d tokens of schemas, over mcp.tool_budget_tokens %d); %d tool(s) found so far\n", n, budget, len(found))
		}
	}
	return b.String()
}
