package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"os"
	"strings"
	"unicode/utf8"
)

const (
	defaultReadLimit = 2000      // lines per read
	maxLineChars     = 2000      // longer lines are cut
	maxReadOutput    = 256 << 10 // bytes of output per read
	maxFileSize      = 32 << 20  // files larger than this are refused by file tools
)

type readArgs struct {
	Path   string `json:"path" jsonschema:"file path"`
	Offset int    `json:"offset,omitempty" jsonschema:"first line, 1-based"`
	Limit  int    `json:"limit,omitempty" jsonschema:"max lines (default 2000)"`
}

type readTool struct{ base[readArgs] }

func newReadTool() *readTool {
	return &readTool{newBase[readArgs]("read", KindRead,
		"Read a text file; lines are numbered like cat -n. Page with offset/limit.")}
}

func (t *readTool) Prepare(ctx context.Context, ws *Workspace, raw json.RawMessage) (*Invocation, error) {
	args, err := t.decode(raw)
	if err != nil {
		return nil, err
	}
	if args.Offset < 0 || args.Limit < 0 {
		return nil, fmt.Errorf("offset and limit must not be negative")
	}
	abs, rel, err := ws.Resolve(args.Path)
	if err != nil {
		return nil, err
	}
	if _, err := StatFile(abs, rel, 0); err != nil {
		return nil, err
	}
	title := "read " + rel
	if args.Offset > 0 || args.Limit > 0 {
		start := max(args.Offset, 1)
		if args.Limit > 0 {
			title += fmt.Sprintf(":%d-%d", start, start+min(args.Limit, math.MaxInt-start+1)-1)
		} else {
			title += fmt.Sprintf(":%d-", start)
		}
	}
	return &Invocation{
		Tool: t.name, Kind: t.kind, Title: title, Paths: []string{rel},
		run: func(ctx context.Context, _ *Invocation) Result {
			return readRun(ctx, ws, abs, rel, args)
		},
	}, nil
}

// StatFile checks abs names an existing regular file (never a FIFO or a
// device, which could hang a reader) of at most limit bytes (0: the file
// tools' limit), with messages for the model.
func StatFile(abs, rel string, limit int64) (fs.FileInfo, error) {
	if limit <= 0 {
		limit = maxFileSize
	}
	st, err := os.Stat(abs)
	switch {
	case err != nil && os.IsNotExist(err):
		return nil, fmt.Errorf("%s does not exist", rel)
	case err != nil:
		return nil, fmt.Errorf("%s: %w", rel, err)
	case st.IsDir():
		return nil, fmt.Errorf("%s is a directory, not a file; use ls to list it", rel)
	case !st.Mode().IsRegular():
		return nil, fmt.Errorf("%s is not a regular file", rel)
	case st.Size() > limit:
		return nil, fmt.Errorf("%s is too large (%d bytes, limit %d); inspect parts of it with bash (head, sed -n, grep)", rel, st.Size(), limit)
	}
	return st, nil
}

func readRun(ctx context.Context, ws *Workspace, abs, rel string, args readArgs) Result {
	data, err := ws.ReadFile(ctx, abs)
	if err != nil {
		return errorResult(fmt.Sprintf("read %s: %v", rel, err))
	}
	if isBinary(data) {
		return errorResult(fmt.Sprintf("%s is a binary file (%d bytes); it cannot be shown as text", rel, len(data)))
	}
	ws.markSeen(abs, data)
	if len(data) == 0 {
		return Result{Output: "(empty file)", Display: "(empty file)", Summary: "read " + rel + ": empty"}
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	start := max(args.Offset, 1)
	if start > len(lines) {
		return errorResult(fmt.Sprintf("offset %d is past the end of %s, which has %d lines", start, rel, len(lines)))
	}
	limit := args.Limit
	if limit <= 0 {
		limit = defaultReadLimit
	}
	end := start - 1 + min(limit, len(lines)-start+1) // last line shown, 1-based; no overflow for huge limits
	var b strings.Builder
	cut := 0
	for n := start; n <= end; n++ {
		line := strings.TrimSuffix(lines[n-1], "\r")
		if len(line) > maxLineChars {
			line = truncateUTF8(line, maxLineChars) + fmt.Sprintf(" [... line cut, %d chars total]", len(line))
			cut++
		}
		entry := fmt.Sprintf("%6d\t%s\n", n, line)
		if b.Len()+len(entry) > maxReadOutput && n > start {
			end = n - 1
			break
		}
		b.WriteString(entry)
	}
	if end < len(lines) {
		fmt.Fprintf(&b, "\n[showing lines %d-%d of %d; call read with offset=%d to continue]\n", start, end, len(lines), end+1)
	}
	if cut > 0 {
		fmt.Fprintf(&b, "[%d long line(s) were cut at %d chars; use bash to see them whole]\n", cut, maxLineChars)
	}
	out := b.String()
	return Result{Output: out, Display: out, Summary: fmt.Sprintf("read %d lines", end-start+1)}
}

// truncateUTF8 cuts s to at most n bytes without splitting a rune.
func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
