package agent

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/coder-nvim/coder-nvim/core/agent/command"
	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/prompts"
)

// promptFiles are the user's and the project's prompt files, read anew
// each time: one added mid-session is there at once.
func (s *Session) promptFiles() ([]prompts.Prompt, []prompts.Refused) {
	user := ""
	if f := config.UserFile(); f != "" {
		user = filepath.Join(filepath.Dir(f), "prompts")
	}
	return prompts.Load(user, filepath.Join(s.root, ".coder", "prompts"), command.Names())
}

// promptFileText is the text a `/name args` line of a prompt file sends;
// ok is false when no prompt file has that name, err says why one that
// does was refused.
func (s *Session) promptFileText(ctx context.Context, t *task, line string) (text string, ok bool, err error) {
	if text, ok, err := s.mcpPromptText(ctx, t, line); ok || err != nil {
		return text, ok, err
	}
	list, refused := s.promptFiles()
	if p, args, found := prompts.Find(list, line); found {
		return p.Expand(args), true, nil
	}
	name, _, _ := strings.Cut(strings.TrimPrefix(line, "/"), " ")
	for _, r := range refused {
		if r.Name == name {
			return "", false, fmt.Errorf("prompt file %s refused: %s", r.Path, r.Why)
		}
	}
	return "", false, nil
}

// PromptCommands are the prompt files' commands with their descriptions,
// then the MCP servers' prompts (`server:prompt`), for completion and
// ACP's available commands.
func (s *Session) PromptCommands() []prompts.Prompt {
	list, _ := s.promptFiles()
	return append(list, s.mcpPromptCommands()...)
}
