package agent

import (
	"context"

	"github.com/coder-nvim/coder-nvim/core/agent/command"
	"github.com/coder-nvim/coder-nvim/core/prompts"
)

// promptFileText is the text a `/name args` line sends: an MCP server's
// prompt or a prompt file (core/prompts); ok is false when none has that
// name, err says why one that does was refused.
func (s *Session) promptFileText(ctx context.Context, t *task, line string) (text string, ok bool, err error) {
	if text, ok, err := s.mcpPromptText(ctx, t, line); ok || err != nil {
		return text, ok, err
	}
	return prompts.ForWorkspace(s.root, command.Names()).Text(line)
}

// PromptCommands are the prompt files' commands with their descriptions,
// then the MCP servers' prompts (`server:prompt`), for completion and
// ACP's available commands.
func (s *Session) PromptCommands() []prompts.Prompt {
	return append(prompts.ForWorkspace(s.root, command.Names()).List, s.mcpPromptCommands()...)
}
