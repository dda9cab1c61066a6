package acp

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/coder-nvim/coder-nvim/core/atomicfile"
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
}

// clientPath is abs as the client names it: under the session's cwd.
func (c *clientFS) clientPath(abs string) string {
	rel, err := filepath.Rel(c.realRoot, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return abs
	}
	return filepath.Join(c.cwd, rel)
}

func (c *clientFS) ReadFile(ctx context.Context, abs string) ([]byte, error) {
	local, err := os.ReadFile(abs)
	if !c.read || (err == nil && !utf8.Valid(local)) {
		return local, err
	}
	resp, rerr := c.conn.ReadTextFile(ctx, sdk.ReadTextFileRequest{SessionId: c.session, Path: c.clientPath(abs)})
	if rerr != nil {
		if err == nil {
			return local, nil // the disk copy is the next best
		}
		return nil, fmt.Errorf("read %s through the editor: %w", abs, rerr)
	}
	return []byte(resp.Content), nil
}

func (c *clientFS) WriteFile(ctx context.Context, abs string, data []byte, perm fs.FileMode) error {
	if !c.write || !utf8.Valid(data) {
		return atomicfile.WriteFileMode(abs, data, perm)
	}
	if _, err := c.conn.WriteTextFile(ctx, sdk.WriteTextFileRequest{SessionId: c.session, Path: c.clientPath(abs), Content: string(data)}); err != nil {
		return fmt.Errorf("write %s through the editor: %w", abs, err)
	}
	return nil
}
