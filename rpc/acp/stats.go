package acp

import (
	"strings"
	"time"

	"github.com/coder-nvim/coder-nvim/core/agentsmd"
	"github.com/coder-nvim/coder-nvim/core/llm"
	sdk "github.com/coder/acp-go-sdk"
)

// sendStats ends each prompt turn with a session_info_update whose _meta
// carries every conversation's metrics (core/store.Stats), root first, and
// the root's AGENTS.md files: ACP has no field for them, and _meta is
// where extensions go.
func (s *session) sendStats() {
	if s.eng == nil {
		return
	}
	root := s.eng.RootConversation()
	var convs []map[string]any
	for _, c := range s.eng.Conversations() {
		convs = append(convs, map[string]any{
			"id":            string(c.ID),
			"root":          c.ID == root,
			"message_count": c.Messages,
			"stats":         c.Stats,
		})
	}
	s.send(sdk.SessionUpdate{SessionInfoUpdate: &sdk.SessionSessionInfoUpdate{
		Title:     s.title(),
		UpdatedAt: sdk.Ptr(time.Now().UTC().Format(time.RFC3339)),
		Meta:      map[string]any{"coder-nvim": map[string]any{"conversations": convs, "agents_md": agentsFiles(s.eng.AgentsMD(""))}},
	}})
	s.sendUsage()
}

// sendUsage says how full the context window is (usage_update) and, when
// it is known (reported by the endpoint or at known prices), what the
// session's model calls cost so far in every conversation.
func (s *session) sendUsage() {
	st := s.eng.Status()
	u := &sdk.SessionUsageUpdate{Size: s.eng.ContextWindow(), Used: st.ContextTokens}
	cost := 0.0
	for _, c := range s.eng.Conversations() {
		cost += c.Stats.Cost
		if c.ID == s.eng.RootConversation() {
			u.Meta = map[string]any{"coder-nvim": map[string]any{"tokens_in": c.Stats.TokensIn, "tokens_out": c.Stats.TokensOut}}
		}
	}
	if cost > 0 {
		u.Cost = &sdk.Cost{Amount: cost, Currency: "USD"}
	}
	s.send(sdk.SessionUpdate{UsageUpdate: u})
}

// title names the session as session/list does: its first prompt, cut.
// Found once (pump only); nil before the first prompt.
func (s *session) title() *string {
	if s.name == "" {
		for _, m := range s.eng.History("") {
			if m.Role == llm.RoleUser && strings.TrimSpace(m.Content) != "" {
				s.name = sessionTitle(m.Content)
				break
			}
		}
	}
	if s.name == "" {
		return nil
	}
	return sdk.Ptr(s.name)
}

// sendAgentsMD lists, once a session opens, the AGENTS.md files its root
// conversation was given (path, size, bytes sent), when there are any.
func (s *session) sendAgentsMD() {
	if s.eng == nil {
		return
	}
	if files := s.eng.AgentsMD(""); len(files) > 0 {
		s.send(sdk.SessionUpdate{SessionInfoUpdate: &sdk.SessionSessionInfoUpdate{
			Meta: map[string]any{"coder-nvim": map[string]any{"agents_md": agentsFiles(files)}},
		}})
	}
}

// agentsFiles is never null on the wire: a client reads a list.
func agentsFiles(files []agentsmd.File) []agentsmd.File {
	if files == nil {
		return []agentsmd.File{}
	}
	return files
}
