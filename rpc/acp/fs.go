package acp

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/coder-nvim/coder-nvim/core/tools"
	sdk "github.com/coder/acp-go-sdk"
)

// clientFS reads and writes file contents through the client
// (fs/read_text_file, fs/write_text_file), so the tools see unsaved editor
// buffers and edits land in the editor. Each direction is used only when the
// client advertised it; the other stays on the local disk. Binary files never
// go through the client: its API carries text only.
type clientFS struct {
	conn    *sdk.AgentSideConnection
	session sdk.SessionId
	read    bool
	write   bool
	// The workspace resolves paths under its symlink-free root; the client
	// knows them under the cwd it gave (perhaps through a symlink).
	realRoot, cwd string
	timeout       time.Duration // per request: an editor may never answer
}

// ReadsEditor says whether reads go through the client (what
// tools.Workspace.CheckWritten reads back is then the editor's).
func (c *clientFS) ReadsEditor() bool { return c.read }

// clientPath is abs as the client names it: under the session's cwd.
func (c *clientFS) clientPath(abs string) string {
	rel, err := filepath.Rel(c.realRoot, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return abs
	}
	return filepath.Join(c.cwd, rel)
}

// ReadFile reads abs through the client when it offers reads. A failed
// read fails: the disk copy may be older than the editor's buffer, so it
// is never used in its place unsaid.
func (c *clientFS) ReadFile(ctx context.Context, abs string) ([]byte, error) {
	local, err := os.ReadFile(abs)
	if !c.read || (err == nil && !utf8.Valid(local)) {
		return local, err
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	resp, rerr := c.conn.ReadTextFile(ctx, sdk.ReadTextFileRequest{SessionId: c.session, Path: c.clientPath(abs)})
	if rerr != nil {
		return nil, fmt.Errorf("read %s through the editor: %w (the file on disk was not read in its place: the editor may hold unsaved changes)", abs, c.explain(ctx, rerr))
	}
	return []byte(resp.Content), nil
}

func (c *clientFS) WriteFile(ctx context.Context, abs string, data []byte, _ fs.FileMode) error {
	if !c.write || !utf8.Valid(data) {
		// The workspace writes it beneath its root (never through a
		// directory swapped for a link out of it).
		return tools.ErrWriteLocal
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	if _, err := c.conn.WriteTextFile(ctx, sdk.WriteTextFileRequest{SessionId: c.session, Path: c.clientPath(abs), Content: string(data)}); err != nil {
		return fmt.Errorf("write %s through the editor: %w", abs, c.explain(ctx, err))
	}
	return nil
}

// explain names a request that ran out of time: the editor did not answer.
func (c *clientFS) explain(ctx context.Context, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("the editor did not answer within %s", c.timeout)
	}
	return err
}
