package nvimhost

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
)

// TestStreamedBashOutputInTranscript: while a bash call runs, its first
// line is in the transcript under the running call (the command waits for
// a file the test creates only then); at the end the call's line is its
// summary and the output is there once.
func TestStreamedBashOutputInTranscript(t *testing.T) {
	e := newEditor(t, editorOpts{config: `{"mode": "yolo"}`})
	writeFile(t, filepath.Join(e.dir, "s.sh"), "printf 'first line\\n'; while [ ! -e gate ]; do sleep 0.02; done; printf 'second line\\n'\n")
	e.llm.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("c1", "bash", map[string]any{"command": "bash s.sh", "timeout_ms": 60000})}},
		fakellm.Reply{Content: "all done"},
	)
	e.start()
	e.cmd("Coder run the script")
	e.waitFor("the first line while the command runs", 10*time.Second, func() bool {
		return strings.Contains(e.transcript(), "▸ bash: bash s.sh …\n    first line\n")
	})
	if tr := e.transcript(); strings.Contains(tr, "second line") || strings.Contains(tr, "✓ bash") {
		t.Fatalf("the command ended before its gate was opened:\n%s", tr)
	}
	writeFile(t, filepath.Join(e.dir, "gate"), "")
	e.waitIdle(10 * time.Second)
	tr := e.transcript()
	if !strings.Contains(tr, "✓ bash: bash s.sh — exit 0 (") || !strings.Contains(tr, ")\n    first line\n    second line\n") ||
		strings.Contains(tr, "▸ bash") || !strings.Contains(tr, "all done") {
		t.Errorf("transcript at the end:\n%s", tr)
	}
	for _, line := range []string{"first line", "second line"} {
		if n := strings.Count(tr, line); n != 1 {
			t.Errorf("%q shown %d times, want once:\n%s", line, n, tr)
		}
	}
}
