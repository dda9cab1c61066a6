package export

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/atomicfile"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/store"
)

func snapshot() *store.Snapshot {
	return &store.Snapshot{
		ID: "s1", Model: "m", Mode: "auto-edit", CreatedAt: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC),
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: "you are a coding agent"},
			{Role: llm.RoleUser, Content: "run it"},
			{Role: llm.RoleAssistant, Content: "Running.", ToolCalls: []llm.ToolCall{{ID: "b1", Type: "function", Function: llm.FunctionCall{Name: "bash", Arguments: `{"command":"echo <hi>"}`}}}},
			{Role: llm.RoleTool, ToolCallID: "b1", Content: "<hi>\n"},
			{Role: llm.RoleAssistant, Content: "Done."},
		},
		Todos: []store.Todo{{Content: "first", Status: "completed"}, {Content: "second", Status: "pending"}},
	}
}

func TestMarkdown(t *testing.T) {
	md := Markdown(snapshot())
	for _, want := range []string{
		"# coder-nvim session s1",
		"- model: m\n- mode: auto-edit",
		"<details><summary>System prompt</summary>",
		"## User\n\nrun it",
		"## Assistant\n\nRunning.",
		"🔧 bash: <code>echo &lt;hi&gt;</code>",
		"<hi>\n",
		"## Assistant\n\nDone.",
		"- [x] first\n- [ ] second",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the Markdown lacks %q:\n%s", want, md)
		}
	}
}

func TestWrite(t *testing.T) {
	now := time.Date(2026, 12, 1, 10, 30, 0, 0, time.UTC)
	for _, c := range []struct {
		name, arg, file, says string
	}{
		{"default", "", ".coder/exports/s1-2026-12-01-103000.md", "exported to .coder/exports/s1-2026-12-01-103000.md"},
		{"json", "json", ".coder/exports/s1-2026-12-01-103000.json", "exported to .coder/exports/s1-2026-12-01-103000.json"},
		{"relative path", "notes/chat.md", "notes/chat.md", "exported to notes/chat.md"},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			msg, err := Write(root, snapshot(), c.arg, now, func() ([]byte, error) { return []byte(`{"id":"s1"}`), nil })
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(msg, c.says) {
				t.Errorf("says %q, want %q", msg, c.says)
			}
			data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(c.file)))
			if err != nil {
				t.Fatal(err)
			}
			if c.arg == "json" && string(data) != `{"id":"s1"}` || c.arg != "json" && !strings.HasPrefix(string(data), "# coder-nvim session s1") {
				t.Errorf("%s holds %q", c.file, data)
			}
		})
	}
}

// TestWriteNeverFollowsALinkOut: a confined command may leave
// .coder/exports a link to a directory outside the workspace; /export
// refuses it and writes nothing there.
func TestWriteNeverFollowsALinkOut(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	root, outside := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".coder"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, ".coder", "exports")); err != nil {
		t.Fatal(err)
	}
	for _, arg := range []string{"", "json", ".coder/exports/x.md"} {
		_, err := Write(root, snapshot(), arg, time.Now(), func() ([]byte, error) { return []byte("{}"), nil })
		if !errors.Is(err, atomicfile.ErrLeavesRoot) {
			t.Errorf("/export %q through a link out: err = %v, want ErrLeavesRoot", arg, err)
		}
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Errorf("written outside the workspace: %v", ents)
	}
}
