package nvimhost

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
)

// lines returns n numbered lines, each ending in a newline.
func lines(prefix string, n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%s %05d\n", prefix, i)
	}
	return b.String()
}

// A long answer or tool output shows its first lines and a notice naming
// the key; the whole text comes back from the host by the notice's id.
func TestRenderFoldsLongText(t *testing.T) {
	answer := lines("answer", foldAnswerLines+1234)
	output := lines("out", foldOutputLines+77)
	wide := strings.Repeat("w", 3*foldAnswerBytes) // one line, too many bytes
	tests := []struct {
		name    string
		events  []event.Event
		shown   string // last line shown
		hidden  string // first line not shown
		notice  string
		whole   string
		history []llm.Message
	}{
		{
			name:    "answer by lines",
			events:  deltaEvents(event.AgentMessageDelta, answer, 37),
			shown:   fmt.Sprintf("answer %05d\n", foldAnswerLines),
			hidden:  fmt.Sprintf("answer %05d\n", foldAnswerLines+1),
			notice:  "    … 1,234 more lines (15 KB) — press gO to open the whole text\n",
			whole:   answer,
			history: []llm.Message{{Role: llm.RoleAssistant, Content: "older"}, {Role: llm.RoleAssistant, Content: answer}, {Role: llm.RoleUser, Content: "next"}},
		},
		{
			name:    "reasoning by bytes",
			events:  deltaEvents(event.AgentReasoningDelta, wide, 4096),
			notice:  "    … 1 more lines (512 KB) — press gO to open the whole text\n",
			whole:   wide,
			history: []llm.Message{{Role: llm.RoleAssistant, Reasoning: wide, Content: "ok"}},
		},
		{
			name: "tool output",
			events: []event.Event{{Kind: event.ToolCallEnd, Tool: &event.Tool{CallID: "c1", Name: "bash", Title: "seq",
				Status: event.ToolCompleted, Output: output}}},
			shown:  fmt.Sprintf("    out %05d\n", foldOutputLines),
			hidden: fmt.Sprintf("out %05d\n", foldOutputLines+1),
			notice: "    … 77 more lines (769 B) — press gO to open the whole text\n",
			whole:  output,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var f fakeBuffer
			r := f.renderer()
			r.openKey = "gO"
			for _, ev := range tc.events {
				r.event(ev)
			}
			r.event(event.Event{Kind: event.TaskComplete, Reason: event.StopEndTurn})
			if tc.shown != "" && !strings.Contains(f.text, tc.shown) {
				t.Errorf("the transcript lacks %q", tc.shown)
			}
			if tc.hidden != "" && strings.Contains(f.text, tc.hidden) {
				t.Errorf("the transcript shows %q, which should be folded", tc.hidden)
			}
			if len(f.text) > 2*foldAnswerBytes {
				t.Errorf("the transcript holds %d bytes", len(f.text))
			}
			if !strings.Contains(f.text, tc.notice) {
				t.Fatalf("no notice %q; transcript ends:\n%s", tc.notice, f.text[max(0, len(f.text)-300):])
			}
			var id int
			for _, o := range f.ops {
				if o["t"] == "fold" {
					id = o["id"].(int)
				}
			}
			x, err := r.folds.get(id)
			if err != nil {
				t.Fatal(err)
			}
			got, err := x.whole(func(string) []llm.Message { return tc.history })
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, "\n") != strings.TrimRight(tc.whole, "\n") {
				t.Errorf("the whole text differs: %d lines, want %d", len(got), strings.Count(tc.whole, "\n"))
			}
		})
	}
}

// Only the last maxFolds folded texts are kept.
func TestFoldsAreBounded(t *testing.T) {
	var f folds
	for i := 0; i < maxFolds+5; i++ {
		f.add(folded{text: fmt.Sprint(i)})
	}
	if len(f.byID) != maxFolds {
		t.Fatalf("%d folded texts kept, want %d", len(f.byID), maxFolds)
	}
	if _, err := f.get(1); err == nil || !strings.Contains(err.Error(), "no longer kept") {
		t.Fatalf("the oldest text: err %v", err)
	}
	if x, err := f.get(maxFolds + 5); err != nil || x.text != fmt.Sprint(maxFolds+4) {
		t.Fatalf("the newest text: %q %v", x.text, err)
	}
}

func deltaEvents(kind event.Kind, text string, size int) []event.Event {
	var out []event.Event
	for len(text) > 0 {
		k := min(size, len(text))
		out = append(out, event.Event{Kind: kind, Text: text[:k]})
		text = text[k:]
	}
	return out
}

// In Neovim: a long answer is folded in the transcript, and gO on the
// notice opens the whole answer in a scratch buffer.
func TestFoldedAnswerOpensWhole(t *testing.T) {
	e := newEditor(t, editorOpts{})
	answer := lines("answer", foldAnswerLines+2500)
	e.llm.Enqueue(fakellm.Reply{Content: answer, Chunk: 512})
	e.start()
	e.run("Coder long please")
	tr := e.transcript()
	if !strings.Contains(tr, fmt.Sprintf("answer %05d\n", foldAnswerLines)) || strings.Contains(tr, fmt.Sprintf("answer %05d", foldAnswerLines+1)) {
		t.Fatalf("the answer is not folded after %d lines", foldAnswerLines)
	}
	if !strings.Contains(tr, "… 2,500 more lines (31 KB) — press gO to open the whole text") {
		t.Fatalf("no fold notice; transcript ends:\n%s", tr[max(0, len(tr)-400):])
	}
	// From the top of the transcript, gO opens the first folded text below.
	e.lua(`vim.api.nvim_set_current_win(require('coder.ui').state.twin)
		vim.api.nvim_win_set_cursor(0, {1, 0})`, nil)
	e.input("gO")
	e.waitFor("the whole answer in a scratch buffer", 10*time.Second, func() bool {
		return e.boolLua(`return vim.api.nvim_buf_get_name(0):find('coder://full/', 1, true) ~= nil`)
	})
	var got string
	e.lua(`return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')`, &got)
	if got != strings.TrimRight(answer, "\n") {
		t.Fatalf("the scratch buffer holds %d bytes, want the %d of the answer", len(got), len(answer)-1)
	}
	if e.boolLua(`return vim.bo.modifiable`) {
		t.Error("the scratch buffer is modifiable")
	}
	e.input("q")
	e.waitFor("q to close the scratch tab", 10*time.Second, func() bool {
		return e.boolLua(`return vim.api.nvim_buf_get_name(0):find('coder://full/', 1, true) == nil`)
	})
}

// A long tool output is folded the same way; gO below the last notice
// opens the last folded text.
func TestFoldedToolOutputOpensWhole(t *testing.T) {
	e := newEditor(t, editorOpts{})
	out := lines("row", foldOutputLines+300)
	writeFile(t, e.dir+"/rows.txt", out)
	e.llm.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("c1", "bash", map[string]string{"command": "cat rows.txt"})}},
		fakellm.Reply{Content: "done"},
	)
	e.start()
	e.run("Coder cat it")
	tr := e.transcript()
	if !strings.Contains(tr, " more lines (") || strings.Contains(tr, fmt.Sprintf("row %05d", foldOutputLines+1)) {
		t.Fatalf("the output is not folded; transcript:\n%s", tr[len(tr)-3000:])
	}
	e.lua(`vim.api.nvim_set_current_win(require('coder.ui').state.twin)
		vim.api.nvim_win_set_cursor(0, {vim.api.nvim_buf_line_count(0), 0})`, nil)
	e.input("gO")
	e.waitFor("the whole output in a scratch buffer", 10*time.Second, func() bool {
		return e.boolLua(`return vim.api.nvim_buf_get_name(0):find('coder://full/', 1, true) ~= nil`)
	})
	var got string
	e.lua(`return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')`, &got)
	// The command's output as the bash tool reports it: all of rows.txt,
	// then what the tool adds.
	if !strings.HasPrefix(got, out) {
		t.Fatalf("the scratch buffer holds %d bytes, not the %d of the output:\n%s", len(got), len(out), got[:min(len(got), 500)])
	}
}
