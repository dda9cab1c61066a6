package nvimhost

// A running bash call's output (core/event ToolOutputDelta) streams under
// its "▸ bash: … …" line as tool output. The Lua side marks that line
// (tool_mark), so the end rewrites it into the summary even with output
// below it (rewrite_mark); the output is then not written again. It is
// folded like any tool output (fold.go): past the limits it is only
// counted, and gO opens the call's result.

import (
	"strings"

	"github.com/coder-nvim/coder-nvim/core/event"
)

// toolStream is the streamed output of the running call.
type toolStream struct {
	callID    string
	writes    int    // r.writes after its last write: more means other text came between
	lineStart bool   // the next text starts a line
	lineHL    string // highlight of the line being written
	lines     int    // whole lines shown
	bytes     int    // bytes shown
	folded    bool
	hidden    int  // lines held back
	extra     int  // bytes held back
	openLine  bool // the held-back text ends inside a line
	limited   bool // the engine stopped streaming at its limit
}

// toolOutput writes a delta of a running call's output.
func (r *renderer) toolOutput(ev event.Event) {
	t := ev.Tool
	if t == nil || t.CallID == "" {
		return
	}
	ts := r.ts
	if ts == nil || ts.callID != t.CallID {
		// The call's line is marked for its end; other text (an approval)
		// may have come after it: the output goes under a line of its own.
		if r.toolLine != t.CallID {
			r.agentSection()
			r.newline()
			r.write(hlToolRunning, "▸ "+toolTitle(t)+" …")
		}
		r.emitOp(op{"t": "tool_mark", "id": t.CallID}, false)
		r.write("", "\n")
		ts = &toolStream{callID: t.CallID, lineStart: true, writes: r.writes}
		r.ts = ts
	}
	r.stream = ""
	if ev.Reason == event.ReasonOutputLimit {
		ts.limited = true
	}
	// Carriage returns (progress bars) would show as ^M.
	text := strings.ReplaceAll(ev.Text, "\r", "")
	if text == "" {
		return
	}
	if ts.writes != r.writes { // other text came between: a fresh line
		r.newline()
		ts.lineStart = true
	}
	if !ts.folded {
		n := strings.Count(text, "\n")
		shown := text
		if ts.bytes+len(text) > foldOutputBytes || ts.lines+n >= foldOutputLines {
			// Shown up to the last whole line in reach; the rest is counted.
			shown = text[:cutPoint(text, foldOutputBytes-ts.bytes, foldOutputLines-ts.lines, false)]
			ts.folded = true
		}
		r.streamLines(ts, shown)
		ts.bytes += len(shown)
		ts.lines += strings.Count(shown, "\n")
		text = text[len(shown):]
	}
	if ts.folded && text != "" {
		ts.hidden += strings.Count(text, "\n")
		ts.extra += len(text)
		ts.openLine = !strings.HasSuffix(text, "\n")
	}
	ts.writes = r.writes
}

// streamLines writes output text indented as tool output, each line
// highlighted like output() does.
func (r *renderer) streamLines(ts *toolStream, text string) {
	for _, part := range strings.SplitAfter(text, "\n") {
		if part == "" {
			continue
		}
		if ts.lineStart {
			ts.lineHL = outputHL(part)
			part = "    " + part
		}
		r.write(ts.lineHL, part)
		ts.lineStart = strings.HasSuffix(part, "\n")
	}
}

// streamedEnd ends a call whose output streamed: its line becomes the
// summary and a folded output gets its notice. It reports false for a
// call that streamed nothing.
func (r *renderer) streamedEnd(t *event.Tool, summary, hl string) bool {
	ts := r.ts
	if ts == nil || ts.callID != t.CallID {
		return false
	}
	r.ts = nil
	r.newline()
	r.emitOp(op{"t": "rewrite_mark", "id": t.CallID, "s": r.prefix() + summary, "hl": hl}, false)
	if ts.folded || ts.limited {
		lines := ts.hidden
		if ts.openLine {
			lines++
		}
		// gO opens the call's result, which is what the model got.
		id := r.folds.add(folded{title: toolTitle(t), text: t.Output})
		r.foldNotice(id, lines, ts.extra, ts.limited)
	}
	return true
}

// outputHL is the highlight of a tool output line: diff lines stand out.
func outputHL(l string) string {
	switch {
	case strings.HasPrefix(l, "+++") || strings.HasPrefix(l, "---"), strings.HasPrefix(l, "@@"):
		return hlDiffHunk
	case strings.HasPrefix(l, "+"):
		return hlDiffAdd
	case strings.HasPrefix(l, "-"):
		return hlDiffDelete
	}
	return hlToolOutput
}
