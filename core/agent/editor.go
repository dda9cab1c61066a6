package agent

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"github.com/coder-nvim/coder-nvim/core/editor"
	"github.com/coder-nvim/coder-nvim/core/tools"
)

// hasLSPTimeout bounds the front end's answer to "is a server attached?",
// asked before each model request.
const hasLSPTimeout = 2 * time.Second

// lspTool is the lsp tool when the front end is an editor (Options.Editor),
// else nil.
func (s *Session) lspTool() tools.Tool {
	if s.opts.Editor == nil {
		return nil
	}
	return editor.Tool{Editor: s.opts.Editor, Timeout: s.opts.Config.LSPTimeout(), Settle: s.opts.Config.LSPSettle()}
}

// editorTools are the tools the front end answers, offered only while it
// can: the lsp tool when a language server is attached to a workspace
// buffer.
func (s *Session) editorTools() []tools.Tool {
	lt := s.lspTool()
	if lt == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), hasLSPTimeout)
	defer cancel()
	if !s.opts.Editor.HasLSP(ctx) {
		return nil
	}
	return []tools.Tool{lt}
}

// editorFeedback is what a tool call that changed files adds to its
// result: the errors and warnings the editor's language servers report
// for the new text and did not report before. Nothing when no editor,
// no server, settle 0 or no new problem.
func (s *Session) editorFeedback(ctx context.Context, changes []tools.FileChange) string {
	settle := s.opts.Config.LSPSettle()
	if s.opts.Editor == nil || settle <= 0 {
		return ""
	}
	var abs []string
	for _, c := range changes {
		p := c.Path
		if c.MoveTo != "" {
			p = c.MoveTo
		}
		a := filepath.Join(s.root, filepath.FromSlash(p))
		if st, err := os.Stat(a); err != nil || !st.Mode().IsRegular() {
			continue // deleted: nothing to diagnose
		}
		abs = append(abs, a)
	}
	if len(abs) == 0 {
		return ""
	}
	// The servers' own wait is settle; the round trips get a little more.
	ctx, cancel := context.WithTimeout(ctx, settle+2*time.Second)
	defer cancel()
	rep, err := s.opts.Editor.Diagnostics(ctx, abs, settle)
	if err != nil {
		return ""
	}
	return editor.Feedback(rep, s.relPath)
}

// relPath is abs relative to the workspace root when inside it.
func (s *Session) relPath(abs string) string {
	if r, err := filepath.Rel(s.root, abs); err == nil && r != ".." && !filepath.IsAbs(r) && (len(r) < 3 || r[:3] != "../") {
		return filepath.ToSlash(r)
	}
	return abs
}
