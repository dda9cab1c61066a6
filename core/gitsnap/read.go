package gitsnap

import (
	"context"
	"fmt"
	"strings"
)

// ReadFile is file path (workspace-relative, slash-separated) as snapshot
// id holds it, through the checkout conversions; ok is false when the
// snapshot has no regular file there.
func (g *Repo) ReadFile(ctx context.Context, id, path string) (data []byte, ok bool, err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	r, err := g.open(ctx)
	if err != nil {
		return nil, false, err
	}
	if err := r.commit(ctx, id); err != nil {
		return nil, false, err
	}
	if strings.HasPrefix(path, "-") || strings.Contains(path, "\x00") {
		return nil, false, fmt.Errorf("invalid path %q", path)
	}
	out, err := r.git(ctx, runOpts{}, "ls-tree", "-z", id, "--", r.prefix+path)
	if err != nil {
		return nil, false, err
	}
	entry := string(out)
	if !strings.HasPrefix(entry, modeFile+" blob ") && !strings.HasPrefix(entry, modeExec+" blob ") {
		return nil, false, nil
	}
	data, err = r.git(ctx, runOpts{}, "cat-file", "--filters", id+":"+r.prefix+path)
	if err != nil {
		return nil, false, fmt.Errorf("read %s from the snapshot: %w", path, err)
	}
	return data, true, nil
}
