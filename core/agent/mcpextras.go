package agent

import (
	"context"

	"github.com/coder-nvim/coder-nvim/core/prompts"
)

// Glue for the MCP servers' prompts (`/server:prompt` commands) and
// resources (`@server:uri` mentions, mcp.ResourceMentions in
// resolver); the logic is core/mcp's.

// mcpPromptCommands are the servers' prompts as commands.
func (s *Session) mcpPromptCommands() []prompts.Prompt {
	if s.mcp == nil {
		return nil
	}
	var out []prompts.Prompt
	for _, p := range s.mcp.pool.Prompts() {
		out = append(out, prompts.Prompt{Name: p.Command(), Description: p.Description, Arguments: p.Hint()})
	}
	return out
}

// mcpPromptText fetches the prompt a `/server:prompt a=1 …` line names;
// its images join the turn's. ok is false when no server prompt has that
// name.
func (s *Session) mcpPromptText(ctx context.Context, t *task, line string) (string, bool, error) {
	if s.mcp == nil {
		return "", false, nil
	}
	msg, ok, err := s.mcp.pool.PromptCommand(ctx, line, s.opts.Config.MCPFirstTurnWait())
	t.images = append(t.images, msg.Images...)
	return msg.Text, ok, err
}

// MCPResources are the resources and templates conv can mention, as
// "server:uri" (completion).
func (s *Session) MCPResources(conv ConversationID) []string {
	if s.mcp == nil {
		return nil
	}
	c, err := s.conversation(conv)
	if err != nil {
		return nil
	}
	v, err := s.mcpView(c)
	if err != nil {
		return nil
	}
	var out []string
	for _, r := range v.Resources() {
		out = append(out, r.Mention())
	}
	return out
}
