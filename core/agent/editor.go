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
	return editor.Tool{Editor: s.opts.Editor, Timeout: s.opts.Config.LSPTimeout()}
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

// feedbackOn says whether edits get the editor's diagnostics.
func (s *Session) feedbackOn() bool {
	return s.opts.Editor != nil && s.opts.Config.LSPSettle() > 0
}

// editorBefore is what the editor's servers say about the files a change
// is about to write, asked just before it is applied.
func (s *Session) editorBefore(ctx context.Context, changes []tools.FileChange) []editor.Diagnostic {
	if !s.feedbackOn() || len(changes) == 0 {
		return nil
	}
	var abs []string
	for _, c := range changes {
		abs = append(abs, filepath.Join(s.root, filepath.FromSlash(c.Path)))
	}
	ctx, cancel := context.WithTimeout(ctx, hasLSPTimeout)
	defer cancel()
	before, _ := s.opts.Editor.Snapshot(ctx, abs)
	return before
}

// editorFeedback is what a tool call that changed files adds to its
// result: the errors and warnings the editor's language servers report
// for the new text and did not report before. Nothing when no editor,
// no server, settle 0 or no new problem.
func (s *Session) editorFeedback(ctx context.Context, changes []tools.FileChange, before []editor.Diagnostic) string {
	if !s.feedbackOn() {
		return ""
	}
	settle := s.opts.Config.LSPSettle()
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
	rep.Before = before
	return editor.Feedback(rep, s.relPath)
}

// relPath is abs relative to the workspace root when inside it.
func (s *Session) relPath(abs string) string {
	if r, err := filepath.Rel(s.root, abs); err == nil && r != ".." && !filepath.IsAbs(r) && (len(r) < 3 || r[:3] != "../") {
		return filepath.ToSlash(r)
	}
	return abs
}
