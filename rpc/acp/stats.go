package acp

import (
	"github.com/coder-nvim/coder-nvim/core/agentsmd"
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
		Meta: map[string]any{"coder-nvim": map[string]any{"conversations": convs, "agents_md": agentsFiles(s.eng.AgentsMD(""))}},
	}})
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
