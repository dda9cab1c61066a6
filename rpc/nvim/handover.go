package nvimhost

// Hand-overs between conversations (core/event HandOver, HandBack): the
// target's text goes indented under the call that handed over, in a block
// the Lua side folds.

import (
	"encoding/json"
	"strings"

	"github.com/coder-nvim/coder-nvim/core/event"
)

// blockPrefix marks one level of hand-over: the target conversation's
// text is indented under the call that handed over.
const blockPrefix = "  │ "

// depth is the number of hand-overs in progress: the indent of the text
// written now.
func (r *renderer) depth() int { return len(r.running) }

// prefix is the indent of a line written now.
func (r *renderer) prefix() string { return strings.Repeat(blockPrefix, r.depth()) }

// indent puts the hand-over indent at the start of every line s begins.
func (r *renderer) indent(s string) string {
	if r.depth() == 0 {
		return s
	}
	p := r.prefix()
	var b strings.Builder
	start := r.atStart
	for _, part := range strings.SplitAfter(s, "\n") {
		if part == "" {
			continue
		}
		if start {
			b.WriteString(p)
		}
		b.WriteString(part)
		start = strings.HasSuffix(part, "\n")
	}
	return b.String()
}

// handOverEvent renders what a hand-over (core/event) changes and reports
// that the event is done with: the user's turn goes on through
// TurnAborted(Replaced) and the target's own end.
func (r *renderer) handOverEvent(ev event.Event) bool {
	switch {
	case ev.Kind == event.HandOver:
		r.handOver(ev)
	case ev.Kind == event.HandBack:
		r.handBack()
	case ev.Kind == event.TurnAborted && ev.Reason == event.ReasonReplaced:
		r.chain = true // the call's line stays the last line: HandOver rewrites it
	case r.depth() > 0 && (ev.Kind == event.TaskComplete || ev.Kind == event.TurnAborted && ev.Reason != event.ReasonInterrupted):
		r.newline()
		r.stream = ""
	case ev.Kind == event.TaskStarted && r.chain:
	case ev.Kind == event.UserMessage && r.depth() > 0:
		r.line(hlUser, "» "+ev.Text) // the message handed to the target
		r.stream = ""
	default:
		return false
	}
	return true
}

// handOver ends the interrupting call's line with its target and opens
// the indented block the target's output goes into; the Lua side folds
// it (fold_start … fold_end).
func (r *renderer) handOver(ev event.Event) {
	title := "▸ " + handTitle(ev.Tool, ev.Target)
	if ev.Tool != nil && r.toolLine == ev.Tool.CallID && r.toolLine != "" {
		r.toolLine = ""
		r.emitOp(op{"t": "rewrite", "s": r.prefix() + title, "hl": hlToolRunning}, false)
		r.write("", "\n")
	} else {
		r.agentSection()
		r.line(hlToolRunning, title)
	}
	r.emitOp(op{"t": "fold_start"}, false)
	r.running = append(r.running, ev.Target)
	r.section, r.stream = "agent", ""
	if ev.Tool != nil && ev.Tool.Name == "conv_create" {
		var args struct {
			UserInstruction string `json:"user_instruction"`
		}
		if json.Unmarshal([]byte(ev.Tool.Arguments), &args) == nil && strings.TrimSpace(args.UserInstruction) != "" {
			r.line(hlUser, "» "+strings.TrimSpace(args.UserInstruction))
		}
	}
	r.emitOp(r.statusOp(), true)
}

// handBack closes the innermost block; folded, it shows as its first line.
func (r *renderer) handBack() {
	if r.depth() == 0 {
		return
	}
	r.newline()
	r.running = r.running[:len(r.running)-1]
	r.emitOp(op{"t": "fold_end", "closed": true}, true)
	r.section, r.stream = "agent", ""
	r.emitOp(r.statusOp(), true)
}

// handTitle is an interrupting call as users see it: "conv.send →
// conversation 3f2a…".
func handTitle(t *event.Tool, target string) string {
	name := "conv"
	if t != nil {
		name = event.ToolDisplayName(t.Name)
	}
	return name + " → conversation " + event.ShortConversation(target)
}

// handEnd closes an interrupting call, below its folded block. The
// target's answer is in the block: no output.
func (r *renderer) handEnd(t *event.Tool, icon, hl string) {
	summary := icon + " " + toolTitle(t)
	if t.Status == event.ToolCompleted || t.Status == event.ToolFailed {
		summary += ", then back"
	}
	if t.Status != event.ToolCompleted && t.Summary != "" {
		summary += " — " + t.Summary
	}
	r.agentSection()
	r.line(hl, strings.ReplaceAll(summary, "\n", " "))
	r.stream = ""
}
