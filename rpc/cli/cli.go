// Package cli is the headless front end of `coder-nvim exec`: the answer
// streams to stdout, one line per tool call and every notice to stderr.
package cli

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/coder-nvim/coder-nvim/core/event"
)

// Printer renders events as text.
type Printer struct {
	Out, Err io.Writer
	Demo     bool

	mu        sync.Mutex
	midLine   bool // stdout has a partial line
	reasoning bool
	failure   string
	demoSaid  bool
}

// Handle renders one event.
func (p *Printer) Handle(ev event.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.Demo && !p.demoSaid {
		p.demoSaid = true
		fmt.Fprintln(p.Err, "[demo] no provider configured: this is the offline demo model (set OPENAI_API_KEY or OPENAI_BASE_URL for a real one)")
	}
	switch ev.Kind {
	case event.AgentMessageDelta:
		p.endReasoning()
		io.WriteString(p.Out, ev.Text)
		p.midLine = !strings.HasSuffix(ev.Text, "\n")
	case event.AgentReasoningDelta:
		if !p.reasoning {
			io.WriteString(p.Err, "thinking: ")
			p.reasoning = true
		}
		io.WriteString(p.Err, ev.Text)
	case event.ToolCallEnd:
		p.endReasoning()
		p.newline()
		t := ev.Tool
		title := t.Title
		if title == "" {
			title = t.Name
		}
		summary, d, ok := event.SplitDuration(strings.TrimPrefix(t.Summary, t.Status+": "))
		if !ok {
			d = time.Duration(t.DurationMS) * time.Millisecond
		}
		fmt.Fprintf(p.Err, "● %s — %s: %s (%s)\n", title, t.Status, summary, event.FormatDuration(d))
	case event.CommandOutput:
		p.newline()
		fmt.Fprintln(p.Out, strings.TrimRight(ev.Text, "\n"))
	case event.Notice:
		p.newline()
		fmt.Fprintln(p.Err, "note:", ev.Text)
	case event.Error:
		p.endReasoning()
		p.newline()
		fmt.Fprintln(p.Err, "error:", ev.Text)
		p.failure = ev.Text
	case event.TurnAborted:
		p.endReasoning()
		p.newline()
		if ev.Reason == event.ReasonInterrupted {
			p.failure = "interrupted"
		}
	case event.TaskComplete:
		p.endReasoning()
		p.newline()
	}
}

// Failure is the reason the last turn failed, or "".
func (p *Printer) Failure() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.failure
}

func (p *Printer) endReasoning() {
	if p.reasoning {
		io.WriteString(p.Err, "\n")
		p.reasoning = false
	}
}

func (p *Printer) newline() {
	if p.midLine {
		io.WriteString(p.Out, "\n")
		p.midLine = false
	}
}
