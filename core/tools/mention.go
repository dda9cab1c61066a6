package tools

import (
	"context"
	"fmt"
)

// Helpers for context the user attaches to a message (core/mention): the
// same path rules as the file tools, exported.

// ListFiles lists the regular files under the workspace directory dir
// (absolute, inside the root) as slash paths relative to dir, as the glob
// tool does: rg --files when rg is on PATH, else git, else a walk, honouring
// .gitignore, never inside .git. capped reports the listing stopped at its
// limit (200,000 files).
func (w *Workspace) ListFiles(ctx context.Context, dir string) (files []string, capped bool, err error) {
	return w.listFiles(ctx, dir)
}

// ResolveRead is Resolve for a path whose contents are about to be shown
// to the model on the user's behalf: it also refuses the agent's own
// files (.coder/: configuration, sessions, skills), by name and by
// identity, whatever link leads there.
func (w *Workspace) ResolveRead(path string) (abs, rel string, err error) {
	abs, rel, lexRel, err := w.resolve(path)
	if err != nil {
		return "", "", err
	}
	if max(protectionOf(lexRel), protectionOf(rel), w.protectionAt(abs)) != unprotected {
		return "", "", fmt.Errorf("%s is the agent's own configuration or session data (.coder/); it is never attached", path)
	}
	return abs, rel, nil
}

// Contains reports whether path names something in the workspace, by its
// name or where its symlinks lead; a path it does not contain is no
// workspace path at all, rather than one refused.
func (w *Workspace) Contains(path string) bool {
	p, lexRel, err := w.clean(path)
	if err != nil {
		return false
	}
	if lexRel != "" || p == w.root {
		return true
	}
	real, err := evalExisting(p)
	if err != nil {
		return false
	}
	_, ok := w.relative(real)
	return ok
}
