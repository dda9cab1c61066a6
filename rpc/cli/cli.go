// Package cli is the headless front end of `coder-nvim exec`: the answer
// streams to stdout, one line per tool call, hand-over and return and every
// notice to stderr. A sub-conversation's answer reaches stdout only through
// its caller; its tool calls are indented under the hand-over.
package cli

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/mention"
	"github.com/coder-nvim/coder-nvim/core/policy"
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
	depth     int // nested hand-overs in progress
}

// Handle renders one event.
func (p *Printer) Handle(ev event.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	// The demo label comes with the first thing the (demo) model says:
	// a /command alone never reaches it.
	if p.Demo && !p.demoSaid && fromModel(ev) {
		p.demoSaid = true
		fmt.Fprintln(p.Err, "[demo] no provider configured: this is the offline demo model (set a provider, see :help coder-providers, or one of OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY, OPENROUTER_API_KEY, DEEPSEEK_API_KEY, or sign in to Copilot or run Ollama, for a real one)")
	}
	switch ev.Kind {
	case event.UserMessage:
		// Context attached to the prompt (@path, #diff): one line each.
		_, items, _ := mention.Split(ev.Text)
		for _, it := range items[:len(items)*btoi(p.depth == 0)] {
			fmt.Fprintln(p.Err, it.String())
		}
	case event.HandOver:
		p.endReasoning()
		p.newline()
		fmt.Fprintf(p.Err, "%s→ %s: handed to conversation %s\n", p.indent(), handName(ev.Tool), event.ShortConversation(ev.Target))
		p.depth++
	case event.HandBack:
		p.endReasoning()
		p.newline()
		p.depth = max(0, p.depth-1)
		how := "answered"
		if ev.Tool != nil && ev.Tool.Status == event.ToolFailed {
			how = "did not answer (" + ev.Tool.Summary + ")"
		}
		fmt.Fprintf(p.Err, "%s← conversation %s %s; back to conversation %s\n", p.indent(), event.ShortConversation(ev.Target), how, event.ShortConversation(ev.Conversation))
	case event.AgentMessageDelta:
		p.endReasoning()
		if p.depth > 0 {
			return // the caller gets it as the call's result
		}
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
		text := t.Summary
		if t.Status == event.ToolDenied && t.Output != "" {
			// A refusal's summary is cut; the whole text says how to allow it.
			text = strings.Join(strings.Fields(t.Output), " ")
		}
		summary, d, ok := event.SplitDuration(strings.TrimPrefix(text, t.Status+": "))
		if !ok {
			d = time.Duration(t.DurationMS) * time.Millisecond
		}
		fmt.Fprintf(p.Err, "%s● %s — %s: %s (%s)\n", p.indent(), title, t.Status, summary, event.FormatDuration(d))
		if t.Name == policy.PlanTool && t.Status == event.ToolCompleted && p.depth == 0 {
			p.plan(ev.Session, t.Output)
		}
	case event.CommandOutput:
		p.newline()
		fmt.Fprintln(p.Out, strings.TrimRight(ev.Text, "\n"))
	case event.OpenURL:
		p.endReasoning()
		p.newline()
		fmt.Fprintf(p.Err, "open this address to %s: %s\n", ev.Detail, ev.Text)
	case event.Notice, event.Retrying:
		p.endReasoning()
		p.newline()
		fmt.Fprintln(p.Err, "note:", ev.Text)
	case event.Error:
		p.endReasoning()
		p.newline()
		fmt.Fprintln(p.Err, p.indent()+"error:", ev.Text)
		if p.depth == 0 {
			p.failure = ev.Text // a sub-conversation's failure is its caller's result
		}
	case event.TurnAborted:
		p.endReasoning()
		p.newline()
		if ev.Reason == event.ReasonInterrupted && (p.depth == 0 || ev.Text == "") {
			p.failure = "interrupted"
		}
	case event.TaskComplete:
		p.endReasoning()
		p.newline()
	}
}

// plan prints a proposed plan as the turn's answer: nobody approves it
// here (exec --yes neither), so it says how to carry it out.
func (p *Printer) plan(session, text string) {
	fmt.Fprintln(p.Out, strings.TrimRight(text, "\n"))
	fmt.Fprintf(p.Err, "note: plan mode: the plan was not carried out and nothing was written (exec never approves a plan). To carry it out: coder-nvim exec --resume %s --mode auto-edit \"carry out the plan\"\n", session)
}

// fromModel reports whether an event comes from the model: its text or a
// tool call it made (a user's `!command` is titled "!…").
func fromModel(ev event.Event) bool {
	switch ev.Kind {
	case event.AgentMessageDelta, event.AgentReasoningDelta:
		return true
	case event.ToolCallBegin:
		return ev.Tool != nil && !strings.HasPrefix(ev.Tool.Title, "!")
	}
	return false
}

// Failure is the reason the last turn failed, or "".
func (p *Printer) Failure() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.failure
}

func (p *Printer) indent() string { return strings.Repeat("  ", p.depth) }

func handName(t *event.Tool) string {
	if t == nil {
		return "conv"
	}
	return event.ToolDisplayName(t.Name)
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

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
