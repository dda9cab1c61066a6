package agent

import (
	"context"
	"strings"

	"github.com/coder-nvim/coder-nvim/core/mcp"
	"github.com/coder-nvim/coder-nvim/core/mention"
	"github.com/coder-nvim/coder-nvim/core/prompts"
)

// Glue for the MCP servers' prompts (`/server:prompt` commands) and
// resources (`@server:uri` mentions); the logic is core/mcp's.

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
	name, args, _ := strings.Cut(strings.TrimPrefix(line, "/"), " ")
	server, _, isServer := strings.Cut(name, ":")
	if !isServer || !s.mcp.pool.Has(server) {
		return "", false, nil
	}
	s.waitMCPStarted(ctx)
	for _, p := range s.mcp.pool.Prompts() {
		if p.Command() != name {
			continue
		}
		parsed, err := mcp.ParsePromptArgs(args)
		if err != nil {
			return "", false, err
		}
		msg, err := s.mcp.pool.GetPrompt(ctx, p, parsed)
		if err != nil {
			return "", false, err
		}
		t.images = append(t.images, msg.Images...)
		return msg.Text, true, nil
	}
	return "", false, nil
}

// waitMCPStarted waits, as the first turn does for its tools, for
// servers still starting: a prompt or resource typed as the session's
// first line names a server that may not be up yet.
func (s *Session) waitMCPStarted(ctx context.Context) {
	wctx, cancel := context.WithTimeout(ctx, s.opts.Config.MCPFirstTurnWait())
	s.mcp.pool.WaitStarted(wctx)
	cancel()
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

// mcpResourceReader resolves `@server:uri` mentions through conv's view.
type mcpResourceReader struct {
	s *Session
	c *Conversation
}

func (r mcpResourceReader) Resource(ctx context.Context, tok string) (mention.Item, bool) {
	server, uri, ok := r.s.mcp.pool.SplitMention(tok)
	if !ok {
		return mention.Item{}, false
	}
	r.s.waitMCPStarted(ctx)
	it := mention.Item{Source: "@", Path: tok}
	v, err := r.s.mcpView(r.c)
	if err == nil {
		var rt mcp.ResourceText
		if rt, err = v.ReadResource(ctx, server, uri); err == nil {
			it.Text, it.Filetype = rt.Text, filetypeOf(rt.MIME)
			return it, true
		}
	}
	it.Err = err.Error()
	return it, true
}

func filetypeOf(mime string) string {
	switch mime {
	case "text/markdown":
		return "markdown"
	case "application/json":
		return "json"
	}
	return ""
}
