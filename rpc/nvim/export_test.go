package nvimhost

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
)

// TestExport: /export writes the conversation as Markdown — the user's
// message, the answer, each tool call folded with its arguments or its
// change as a diff and its result — and `coder-nvim export ID` prints the
// same from the saved file.
func TestExport(t *testing.T) {
	e := newEditor(t, editorOpts{config: `{"mode": "auto-edit"}`})
	e.llm.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("w1", "write", map[string]string{"path": "calc.go", "content": "package calc\n\nfunc Add(a, b int) int { return a + b }\n"})}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("b1", "bash", map[string]string{"command": "echo EXPORTED-OUTPUT"})}},
		fakellm.Reply{Content: "Added **Add**."},
	)
	e.start()
	e.run("Coder write calc.go")
	e.run("Coder /export")
	var out string
	e.waitFor("the export notice", 5*time.Second, func() bool {
		out = e.transcript()
		return strings.Contains(out, "exported to ")
	})
	m := regexp.MustCompile(`exported to (\.coder/exports/[^ ]+\.md)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no export path in the transcript:\n%s", out)
	}
	data, err := os.ReadFile(filepath.Join(e.dir, m[1]))
	if err != nil {
		t.Fatal(err)
	}
	md := string(data)
	for _, want := range []string{
		"## User\n\nwrite calc.go",
		"<details><summary>🔧 write: <code>calc.go</code></summary>",
		"+func Add(a, b int) int { return a + b }",
		"<details><summary>🔧 bash: <code>echo EXPORTED-OUTPUT</code></summary>",
		"Result:\n\n```\n",
		"EXPORTED-OUTPUT\n",
		"## Assistant\n\nAdded **Add**.",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the export lacks %q:\n%s", want, md)
		}
	}
	var id string
	e.lua(`return require('coder.host').state.session_id`, &id)
	cli, err := exec.Command(hostBinary, "export", "--cwd", e.dir, id).Output()
	if err != nil {
		t.Fatalf("coder-nvim export: %v", err)
	}
	for _, want := range []string{"EXPORTED-OUTPUT", "+func Add(a, b int) int { return a + b }", "Added **Add**."} {
		if !strings.Contains(string(cli), want) {
			t.Errorf("coder-nvim export lacks %q", want)
		}
	}
}
