package nvimhost

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
)

// TestContextReport: /context breaks the next request down by part, and
// its total is the request's real size (the fake endpoint counts the
// body at four bytes a token, as the report does) within 5%; the status
// line shows the context as a share of the window.
func TestContextReport(t *testing.T) {
	e := newEditor(t, editorOpts{config: `{"mode": "auto-edit", "context_window": 64000}`})
	writeFile(t, filepath.Join(e.dir, "notes.txt"), strings.Repeat("a line of notes to attach\n", 200))
	e.llm.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("b1", "bash", map[string]string{"command": "seq 1 2000"})}},
		fakellm.Reply{Content: "counted"},
	)
	e.start()
	e.run("Coder count with @notes.txt")
	e.run("Coder /context")
	var report string
	e.waitFor("the report", 5*time.Second, func() bool {
		report = e.transcript()
		return strings.Contains(report, "/compact would")
	})
	for _, want := range []string{"instructions", "tool schemas (built-in)", "user messages", "attachments", "assistant messages", "tool results", "biggest:", "result of bash", "of a 64,000-token window"} {
		if !strings.Contains(report, want) {
			t.Errorf("the report lacks %q:\n%s", want, report)
		}
	}
	t.Logf("%s", report)
	m := regexp.MustCompile(`context: ([0-9,]+) tokens`).FindStringSubmatch(report)
	if m == nil {
		t.Fatalf("no total in:\n%s", report)
	}
	total, _ := strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))
	// The next request is the one reported plus a two-letter message.
	e.llm.Enqueue(fakellm.Reply{Content: "fine"})
	e.run("Coder ok")
	reqs := e.llm.Requests()
	real := len(reqs[len(reqs)-1].Raw) / 4
	if diff := float64(total-real) / float64(real); diff > 0.05 || diff < -0.05 {
		t.Errorf("/context says %d tokens, the request was %d (%.1f%% off)", total, real, 100*diff)
	}
	var status string
	e.waitFor("the share in the status", 5*time.Second, func() bool {
		e.lua(`return require('coder.statusline').status_text(200)`, &status)
		return regexp.MustCompile(`ctx [0-9.]+k? [0-9]+%`).MatchString(status)
	})
}
