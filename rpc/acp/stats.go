package acp

import (
	sdk "github.com/coder/acp-go-sdk"
)

// sendStats ends each prompt turn with a session_info_update whose _meta
// carries every conversation's metrics (core/store.Stats), root first:
// ACP has no field for them, and _meta is where extensions go.
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
		Meta: map[string]any{"coder-nvim": map[string]any{"conversations": convs}},
	}})
}
