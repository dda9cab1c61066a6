package event

import "strings"

// ToolDisplayName is a tool's name as users see it: the conversation
// tools are conv.create etc. (OpenAI tool names allow no dots).
func ToolDisplayName(name string) string {
	if rest, ok := strings.CutPrefix(name, "conv_"); ok {
		return "conv." + rest
	}
	return name
}

// IsHandOverTool reports the conversation tools that hand the turn over
// to another conversation (seed 000's interrupting tools).
func IsHandOverTool(name string) bool { return name == "conv_create" || name == "conv_send" }

// ShortConversation is a conversation id as front ends show it: its first
// 8 characters and "…".
func ShortConversation(id string) string {
	if len(id) > 8 {
		return id[:8] + "…"
	}
	return id
}
