package agent

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/coder-nvim/coder-nvim/core/agent/compact"
	"github.com/coder-nvim/coder-nvim/core/agent/conv"
	"github.com/coder-nvim/coder-nvim/core/agent/toolcalls"
	"github.com/coder-nvim/coder-nvim/core/agentsmd"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/policy"
	"github.com/coder-nvim/coder-nvim/core/store"
	"github.com/coder-nvim/coder-nvim/core/text"
)

// ToolPrefs switch a conversation's built-in tools (seed 000
// internal_tools): the todo tool and patch are offered or not; Shell
// chooses whether bash streams its output while it runs (outstream.go) or
// gives it only at the end, bash being offered either way. Web search is
// recorded only; no web tool exists.
type ToolPrefs = store.ToolPrefs

// allTools is the root conversation's preferences: everything on.
var allTools = ToolPrefs{Plan: true, Patch: true, Shell: true, WebSearch: true}

// Conversation is one isolated context inside a session (seed 002, seed
// 004): its own history, instructions, model, tool view and policy. The
// context fields are fixed when it is opened and read without a lock; the
// rest is guarded by mu. The user may change the context fields
// (SetConversationContext) while holding Session.mu and mu: they are read
// under either. Lock order: Session.mu before Conversation.mu.
type Conversation struct {
	ID ConversationID
	// Instructions are the base instructions; empty: the built-in ones.
	Instructions string
	// UserInstructions, when set, is the first user message of its
	// history.
	UserInstructions string
	// Model overrides the session's model; empty: the session's.
	Model string
	// Tools are the built-in tool switches.
	Tools ToolPrefs
	// MCPAllowlist holds fully qualified MCP tool names (server__tool);
	// nil: all. It limits what the conversation is offered and may call
	// (mcp.go).
	MCPAllowlist []string
	// Policy, when set, narrows the session's policy for this
	// conversation; it can never widen it (seed 002, seed 004).
	Policy  *policy.Policy
	Storage StoragePolicy
	created time.Time
	// agents are the project instructions it was given (agentsmd.go);
	// nil: none asked for.
	agents *agentsmd.Set

	mu sync.Mutex // guards the fields below
	// base is how many of its oldest messages are on disk only (in the
	// session's snapshot file): the history holds the messages from base
	// on, and every index into the history (a view's upto) counts from
	// the first message. skipped describes those on disk (counts, the
	// first and the last user messages). Only what a compacted view
	// summarises, and the snapshot durably holds, leaves memory.
	base    int
	skipped store.Skipped
	history []llm.Message
	// times holds when each history message was written (unix ms; 0:
	// unknown), for storage ttl, which ages each message on its own.
	times []int64
	// evicted spans the known times of the messages on disk only (oldest,
	// newest; 0: none): ttl ages them on disk.
	evicted    [2]int64
	view       *compact.View // compacted prompt (compact.go); nil: all of history is sent
	todos      []store.Todo
	commands   []store.Command // its / command results, never sent to the model
	ctxTokens  int
	sentTools  []llm.Tool // the tools of its last request
	sentSystem string     // the system message of its last request
	lastActive time.Time
	task       TaskID // light handle: the running task, "" when none
	closed     bool
	stats      Stats // its metrics (stats.go), never reset
	refreshMCP bool  // the user asked for a fresh MCP view: the next model call takes the servers' current tools
}

// messages returns a copy of the history in memory (from base on).
func (c *Conversation) messages() []llm.Message {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]llm.Message(nil), c.history...)
}

// record appends a message and refreshes last_active_at.
func (c *Conversation) record(m llm.Message, now time.Time) {
	c.mu.Lock()
	c.history = append(c.history, m)
	c.times = append(alignTimes(c.times, len(c.history)-1), now.UnixMilli())
	c.lastActive = now
	c.mu.Unlock()
}

// alignTimes is times made one per message of n: cut, or padded with 0
// (unknown: aged with the session, not on its own).
func alignTimes(times []int64, n int) []int64 {
	if len(times) >= n {
		return times[:n]
	}
	return append(times, make([]int64, n-len(times))...)
}

// touch refreshes last_active_at (TaskComplete).
func (c *Conversation) touch(now time.Time) {
	c.mu.Lock()
	c.lastActive = now
	c.mu.Unlock()
}

// lastAssistant is the text of the newest assistant message.
func (c *Conversation) lastAssistant() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := len(c.history) - 1; i >= 0; i-- {
		if m := c.history[i]; m.Role == llm.RoleAssistant {
			return m.Content
		}
	}
	return ""
}

// saved is the conversation's stored form.
func (c *Conversation) saved() store.Conversation {
	c.mu.Lock()
	defer c.mu.Unlock()
	prefs := c.Tools
	head, headTimes := savedAgents(c)
	return store.Conversation{
		ID:               string(c.ID),
		Instructions:     c.Instructions,
		UserInstructions: c.UserInstructions,
		Model:            c.Model,
		Tools:            &prefs,
		MCPAllowlist:     c.MCPAllowlist,
		Policy:           c.Policy,
		StoragePolicy:    string(c.Storage),
		CreatedAt:        c.created,
		LastActiveAt:     c.lastActive,
		MessageTimes:     append(headTimes, alignTimes(c.times, len(c.history))...),
		Messages:         append(head, c.history...),
		Todos:            append([]store.Todo(nil), c.todos...),
		Commands:         slices.Clone(c.commands),
		System:           c.sentSystem,
		SentTools:        c.sentTools,
		Stats:            new(c.stats.Clone()),
		AgentsMD:         c.agents.Files(),
		NoAgentsMD:       c.agents == nil,
	}
}

// restoreConversation rebuilds a saved conversation.
func restoreConversation(sc store.Conversation, started map[string]bool, skipped map[string]*store.Skipped) *Conversation {
	c := &Conversation{
		ID:               ConversationID(sc.ID),
		Instructions:     sc.Instructions,
		UserInstructions: sc.UserInstructions,
		Model:            sc.Model,
		Tools:            allTools,
		MCPAllowlist:     sc.MCPAllowlist,
		Policy:           sc.Policy,
		Storage:          StoragePolicy(sc.StoragePolicy),
		created:          sc.CreatedAt,
		lastActive:       sc.LastActiveAt,
		history:          toolcalls.Repair(sc.Messages[store.Head(sc.Messages):], started),
		todos:            sc.Todos,
		commands:         sc.Commands,
		sentSystem:       sc.System,
		sentTools:        sc.SentTools,
	}
	if k := skipped[sc.ID]; k != nil {
		c.base, c.skipped = k.N, *k
	}
	if n := store.Head(sc.Messages); len(sc.MessageTimes) == len(sc.Messages) {
		c.times = sc.MessageTimes[n:]
	}
	if sc.Tools != nil {
		c.Tools = *sc.Tools
	}
	if sc.Stats != nil {
		c.stats = sc.Stats.Clone()
	}
	c.ctxTokens = compact.EstimateTokens(c.history)
	return c
}

// ConversationSpec is what a new conversation inherits or overrides. The
// zero value inherits everything from the parent.
type ConversationSpec struct {
	Instructions     *string
	UserInstructions string
	Model            string
	Tools            *ToolPrefs
	MCPAllowlist     []string
	Policy           *policy.Policy
	// Storage narrows what is stored of the conversation ("": as its
	// parent); asking for more than the session stores is clamped.
	Storage StoragePolicy
	// NoAgentsMD leaves the project's AGENTS.md files out; by default a
	// conversation gets them, with its own instructions too.
	NoAgentsMD bool
}

// OpenConversation adds a conversation with its own instructions ("" for
// the built-in ones) and an optional narrower policy, and returns its id.
// A policy wider than the session's is clamped to it, with a Notice.
func (s *Session) OpenConversation(instructions string, pol *policy.Policy) (ConversationID, error) {
	c, clamps, err := s.openConversation(nil, ConversationSpec{Instructions: &instructions, Policy: pol})
	if err != nil {
		return "", err
	}
	s.tellClamps(c.ID, clamps)
	return c.ID, nil
}

// tellClamps tells the user what of a conversation's requested context
// was clamped to what the session allows.
func (s *Session) tellClamps(id ConversationID, clamps []string) {
	if len(clamps) == 0 {
		return
	}
	s.emit(event.Event{Kind: event.Notice, Conversation: string(s.RootConversation()), Text: fmt.Sprintf("conversation %s: clamped (a conversation can only narrow what its session allows): %s", conv.ShortID(string(id)), strings.Join(clamps, "; "))})
}

// openConversation creates a conversation from parent's context (root's
// when nil) overridden by spec. It returns what of spec was clamped: the
// caller tells the user (tellClamps) and, for conv_create, the model.
func (s *Session) openConversation(parent *Conversation, spec ConversationSpec) (*Conversation, []string, error) {
	if spec.Policy != nil {
		if err := spec.Policy.Validate(); err != nil {
			return nil, nil, fmt.Errorf("conversation policy: %w", err)
		}
	}
	allow, _, err := conv.NormalizeAllowlist(spec.MCPAllowlist)
	if err != nil {
		return nil, nil, err
	}
	now := s.opts.Now()
	s.mu.Lock()
	if parent == nil {
		parent = s.rootConv
	}
	sessPol := s.policy
	sessStore := s.storage
	// The parent's context is read under s.mu: the user may change it
	// (SetConversationContext) at any time.
	c := &Conversation{
		ID:               ConversationID(s.newID()),
		Instructions:     parent.Instructions,
		UserInstructions: spec.UserInstructions,
		Model:            parent.Model,
		Tools:            parent.Tools,
		MCPAllowlist:     parent.MCPAllowlist,
		Policy:           parent.Policy,
		Storage:          parent.Storage,
		created:          now,
		lastActive:       now,
	}
	s.mu.Unlock()
	var clamps []string
	if spec.MCPAllowlist != nil {
		kept, outside := conv.NarrowAllowlist(c.MCPAllowlist, allow)
		if len(outside) > 0 {
			clamps = append(clamps, fmt.Sprintf("mcp_allowlist: %s left out (not visible to the parent conversation)", strings.Join(outside, ", ")))
		}
		if err := s.checkMCPAllowlist(nil, kept); err != nil {
			return nil, nil, err
		}
		allow = kept
	}
	if spec.Instructions != nil {
		c.Instructions = *spec.Instructions
	}
	if spec.Model != "" {
		c.Model = spec.Model
	}
	if spec.Tools != nil {
		c.Tools = *spec.Tools
	}
	if spec.MCPAllowlist != nil {
		c.MCPAllowlist = allow
	}
	if spec.Storage != "" {
		want, err := store.ParsePolicy(string(spec.Storage))
		if err != nil {
			return nil, nil, fmt.Errorf("conversation storage_policy: %w: %w", ErrStoragePolicy, err)
		}
		floor := store.Narrower(sessStore, c.Storage)
		c.Storage = store.Narrower(floor, want)
		if c.Storage != want {
			clamps = append(clamps, fmt.Sprintf("storage_policy %s clamped to %s (a conversation may store less than its session, never more)", want, c.Storage))
		}
	}
	if spec.Policy != nil {
		p, notes := conv.ClampPolicy(sessPol, *spec.Policy)
		clamps = append(clamps, notes...)
		c.Policy = &p
	}
	c.agents = s.agentsFor(spec.NoAgentsMD, nil)
	if c.UserInstructions != "" {
		c.history = []llm.Message{{Role: llm.RoleUser, Content: c.UserInstructions}}
		c.times = []int64{now.UnixMilli()}
	}
	s.mu.Lock()
	s.convs[c.ID] = c
	s.order = append(s.order, c)
	sc := c.saved()
	rerr := s.recordLocked(store.Record{Kind: store.KindConv, Conversation: &sc})
	s.mu.Unlock()
	s.reportSave(rerr)
	return c, clamps, nil
}

// conversation looks a conversation up ("" is the root).
func (s *Session) conversation(id ConversationID) (*Conversation, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if id == "" {
		return s.rootConv, nil
	}
	c := s.convs[id]
	if c == nil {
		return nil, fmt.Errorf("conversation %q: %w", id, ErrNotFound)
	}
	return c, nil
}

// Conversations lists the conversations, root first, then in creation
// order.
func (s *Session) Conversations() []ConversationInfo {
	s.mu.Lock()
	list := append([]*Conversation(nil), s.order...)
	s.mu.Unlock()
	out := make([]ConversationInfo, 0, len(list))
	for _, c := range list {
		c.mu.Lock()
		info := ConversationInfo{ID: c.ID, Records: c.base + len(c.history), LastActive: c.lastActive, Running: c.task != "", Stats: c.stats.Clone()}
		info.Messages, info.FirstLine = c.skipped.Messages, text.FirstLine(c.skipped.FirstUser)
		for _, m := range c.history {
			if m.Role == llm.RoleUser && info.FirstLine == "" {
				info.FirstLine = text.FirstLine(m.Content)
			}
			if conv.HistoryMessage(m) {
				info.Messages++
			}
		}
		c.mu.Unlock()
		out = append(out, info)
	}
	return out
}

// ConversationInfo describes one conversation for lists.
type ConversationInfo struct {
	ID        ConversationID
	FirstLine string
	// Messages counts what conv_history returns (user and assistant
	// messages with text); Records every entry, tool calls and results
	// included.
	Messages   int
	Records    int
	LastActive time.Time
	Running    bool
	Stats      Stats
}

// todoList returns a copy of the todo list.
func (c *Conversation) todoList() []store.Todo {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]store.Todo(nil), c.todos...)
}

// tools returns the tools of its last request.
func (c *Conversation) tools() []llm.Tool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sentTools
}
