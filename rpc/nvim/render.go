package nvimhost

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/mention"
	"github.com/coder-nvim/coder-nvim/core/store"
)

// Highlight groups the transcript uses; the Lua side defines them with
// default=true so colorschemes can override them.
const (
	hlHeader        = "CoderHeader"
	hlDemo          = "CoderDemo"
	hlUser          = "CoderUser"
	hlAgent         = "CoderAgent"
	hlReasoning     = "CoderReasoning"
	hlToolRunning   = "CoderToolRunning"
	hlToolOK        = "CoderToolOk"
	hlToolFailed    = "CoderToolFailed"
	hlToolOutput    = "CoderToolOutput"
	hlDiffAdd       = "CoderDiffAdd"
	hlDiffDelete    = "CoderDiffDelete"
	hlDiffHunk      = "CoderDiffHunk"
	hlApprovalLine  = "CoderApprovalLine"
	hlError         = "CoderError"
	hlNotice        = "CoderNotice"
	hlCommandOutput = "CoderCommandOutput"
	hlTodo          = "CoderTodo"
)

// op is one instruction for the Lua side (lua/coder/bridge.lua), in order.
type op = map[string]any

// chunk is a piece of transcript text with its highlight group ("" none).
type chunk struct {
	hl string
	b  strings.Builder
}

// renderer turns engine events into transcript text and UI operations. It
// owns all presentation decisions so the Lua side only appends text and
// opens windows. It is not safe for concurrent use.
type renderer struct {
	root      string
	atStart   bool   // the transcript ends at the start of a line
	section   string // "you", "agent" or ""
	stream    string // kind of the last streamed text: "reasoning", "message" or ""
	toolLine  string // call id whose begin line is the transcript's last line
	blankLine bool   // the transcript ends with an empty line
	status    event.Status
	session   string
	chain     bool       // a hand-over chain runs: one turn for the user
	running   []string   // the targets of the hand-overs in progress, innermost last
	target    string     // the conversation input goes to ("" the root); set by the host
	turnConv  string     // short id of the conversation the current turn went to ("" the root)
	sf        streamFold // the answer block being streamed (fold.go)
	folds     folds      // folded texts the user can open whole
	openKey   string     // the key that opens them, named in the notices
	held      []string   // queued-input notes waiting for the streamed block to end
	queuedN   int        // inputs queued for after the turn (the status line counts them)

	ts     *toolStream // the running call's streamed output (toolstream.go)
	writes int         // texts written so far

	emitText func(hl, s string)
	emitOp   func(o op, urgent bool)
	// history returns the root conversation and its / command results
	// (nil: unknown); a /resume shows them in the transcript.
	history func() ([]llm.Message, []store.Command)
}

func newRenderer(root string, emitText func(hl, s string), emitOp func(o op, urgent bool)) *renderer {
	return &renderer{root: root, atStart: true, blankLine: true, emitText: emitText, emitOp: emitOp}
}

func (r *renderer) write(hl, s string) {
	if s == "" {
		return
	}
	r.toolLine = ""
	r.writes++
	r.emitText(hl, r.indent(s))
	r.blankLine = strings.HasSuffix(s, "\n\n") || (r.atStart && s == "\n")
	r.atStart = strings.HasSuffix(s, "\n")
}

// queued writes a note about queued input. While an answer, its
// reasoning or a call's output streams, the note is held and written
// under that block once it ends (writeHeld): written at once it split the
// streamed text mid-word for good. The status line counts the queue
// meanwhile.
func (r *renderer) queued(s string) {
	if r.streaming() {
		r.held = append(r.held, s)
		return
	}
	r.line(hlNotice, s)
}

// streaming reports that streamed text is the transcript's open block.
func (r *renderer) streaming() bool { return r.stream != "" || r.ts != nil }

// writeHeld writes the held notes unless an event of kind goes on with
// the streamed block or writes nothing.
func (r *renderer) writeHeld(kind event.Kind) {
	if len(r.held) == 0 || r.continuesStream(kind) || kind == event.StatusChanged ||
		kind == event.ToolOutputDelta && r.ts != nil {
		return
	}
	for _, s := range r.held { // event() has ended the block
		r.line(hlNotice, s)
	}
	r.held = nil
	r.stream = ""
}

// line writes s as whole lines, starting on a fresh line.
func (r *renderer) line(hl, s string) {
	r.newline()
	r.write(hl, strings.TrimRight(s, "\n")+"\n")
}

func (r *renderer) newline() {
	if !r.atStart {
		r.write("", "\n")
	}
}

// paragraph starts a new block after an empty line.
func (r *renderer) paragraph() {
	r.newline()
	if !r.blankLine {
		r.write("", "\n")
	}
}

// header is the transcript header written when a host (re)connects.
func (r *renderer) header(version string, st event.Status, sessionID string, resumed bool) {
	r.status, r.session = st, sessionID
	r.paragraph()
	// The project by its name ("~/…/proj"): a full path broke the line in
	// a chat beside an 80-column editor; the input's prompt has the rest.
	r.line(hlHeader, fmt.Sprintf("# coder %s · %s · %s", version, st.Model, shortPath(tildePath(st.Cwd))))
	if st.Demo {
		r.line(hlDemo, "DEMO: no provider is configured, so the offline demo answers (no model is called). "+
			"Set a provider (:help coder-providers) or an API key variable (OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY, OPENROUTER_API_KEY, DEEPSEEK_API_KEY), sign in to Copilot or run Ollama for a real model.")
	}
	if resumed {
		r.line(hlNotice, "session "+sessionID+" resumed")
	}
	r.section, r.stream = "", ""
}

// statusOp is the status the Lua side shows above the input.
func (r *renderer) statusOp() op {
	st := r.status
	return op{
		"t": "status",
		"status": map[string]any{
			"model":          st.Model,
			"mode":           st.Mode,
			"preset":         st.Preset,
			"context_tokens": st.ContextTokens,
			"context_window": st.ContextWindow,
			"cwd":            st.Cwd,
			"demo":           st.Demo,
			"busy":           st.Busy,
			"session_id":     r.session,
			"turn":           turnOp(st.Turn),
			// conversation: the sub-conversation running now; target: the
			// one input goes to ("" the root).
			"conversation": r.runningConv(),
			"target":       event.ShortConversation(r.target),
			"queued":       r.queuedN,
		},
	}
}

// turnOp is the last turn's usage for the status line; nil before any.
func turnOp(u *event.TurnUsage) any {
	if u == nil || u.In == 0 && u.Out == 0 {
		return nil
	}
	return map[string]any{"in": u.In, "out": u.Out, "cached": u.Cached, "cache_share": u.CacheShare(), "cost": u.Cost, "calls": u.Calls}
}

// runningConv is the short id of the innermost running hand-over target.
func (r *renderer) runningConv() string {
	if n := len(r.running); n > 0 {
		return event.ShortConversation(r.running[n-1])
	}
	return ""
}

func (r *renderer) agentSection() {
	if r.section == "agent" || r.depth() > 0 {
		return
	}
	r.paragraph()
	r.line(hlAgent, "## Agent"+r.turnMark())
	r.section, r.stream = "agent", ""
}

// turnMark names the conversation of the turn when it is not the root.
func (r *renderer) turnMark() string {
	if r.turnConv == "" {
		return ""
	}
	return " → conversation " + r.turnConv
}

// continuesStream reports that an event of kind leaves the streamed
// answer block open: more of the same text, or nothing written.
func (r *renderer) continuesStream(kind event.Kind) bool {
	switch kind {
	case event.AgentMessageDelta:
		return r.stream == "message"
	case event.AgentReasoningDelta:
		return r.stream == "reasoning"
	case event.TokenCount, event.FilesChanged:
		return true
	}
	return false
}

func (r *renderer) agentText(kind, hl, text, conv string) {
	if text == "" {
		return
	}
	r.agentSection()
	if r.stream != kind {
		r.endStream()
		if r.stream != "" {
			r.paragraph() // reasoning and answer are separate paragraphs
		} else {
			r.newline()
		}
		if kind == "reasoning" {
			// Set apart from the answer by more than its highlight.
			r.line(hl, "Reasoning:")
		}
		r.stream = kind
	}
	r.streamText(hl, text, conv)
}

func (r *renderer) toolEnd(t *event.Tool) {
	if t == nil {
		return
	}
	icon, hl := "✓", hlToolOK
	switch t.Status {
	case event.ToolFailed:
		icon, hl = "✗", hlToolFailed
	case event.ToolDenied:
		icon, hl = "⊘", hlToolFailed
	case event.ToolAborted:
		icon, hl = "⏹", hlToolFailed
	}
	if event.IsHandOverTool(t.Name) {
		r.handEnd(t, icon, hl)
		return
	}
	summary := icon + " " + toolTitle(t)
	// Some summaries carry their own duration ("exit 0 (1.2s)"): it is
	// shown like every other duration.
	text, d, ok := event.SplitDuration(t.Summary)
	if !ok {
		d, ok = time.Duration(t.DurationMS)*time.Millisecond, t.DurationMS > 0 || t.Status == event.ToolCompleted
	}
	if text != "" && text != t.Title {
		summary += " — " + text
	}
	if ok {
		summary += " (" + event.FormatDuration(d) + ")"
	}
	summary = strings.ReplaceAll(summary, "\n", " ")
	if r.streamedEnd(t, summary, hl) {
		r.stream = "" // its output is on screen already
		return
	}
	if r.toolLine == t.CallID && t.CallID != "" {
		r.toolLine = ""
		r.emitOp(op{"t": "rewrite", "s": r.prefix() + summary, "hl": hl}, false)
		r.write("", "\n")
	} else {
		r.agentSection()
		r.line(hl, summary)
	}
	// A read's output is the file itself: the summary line says enough.
	if t.Name != "read" {
		out := t.Output
		if t.Status != event.ToolCompleted {
			// A failure's message is its summary: not printed twice.
			if first, rest, _ := strings.Cut(strings.TrimSpace(out), "\n"); strings.TrimSpace(first) == strings.TrimSpace(text) {
				out = rest
			}
		}
		r.output(toolTitle(t), out)
	}
	r.stream = ""
}

// output writes a tool's output indented under its summary, with diff
// lines highlighted; a long one is folded (fold.go).
func (r *renderer) output(title, out string) {
	full := strings.TrimRight(out, "\n")
	if strings.TrimSpace(full) == "" {
		return
	}
	shown := full
	if len(full) > foldOutputBytes || strings.Count(full, "\n") >= foldOutputLines {
		shown = full[:cutPoint(full, foldOutputBytes, foldOutputLines, true)]
	}
	lines := strings.Split(strings.TrimRight(shown, "\n"), "\n")
	for _, l := range lines {
		r.write(outputHL(l), "    "+strings.TrimRight(l, "\r")+"\n")
	}
	if rest := full[len(shown):]; rest != "" {
		id := r.folds.add(folded{title: title, text: out})
		r.foldNotice(id, strings.Count(rest, "\n")+1, len(rest), false)
	}
}

func (r *renderer) abs(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(r.root, filepath.FromSlash(p))
}

// approvalOp is the approval request as the Lua float and diff review use
// it: hunk lines without their newlines, and absolute paths to open.
func approvalOp(root string, a *event.Approval) map[string]any {
	diffs := make([]any, 0, len(a.Diffs))
	for _, d := range a.Diffs {
		hunks := make([]any, 0, len(d.Hunks))
		for _, h := range d.Hunks {
			hunks = append(hunks, map[string]any{
				"old_start": h.OldStart,
				"old_lines": trimNewlines(h.OldLines),
				"new_lines": trimNewlines(h.NewLines),
			})
		}
		abs := d.Path
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(root, filepath.FromSlash(d.Path))
		}
		diffs = append(diffs, map[string]any{"path": d.Path, "abs": abs, "op": d.Op, "move_to": d.MoveTo, "hunks": hunks})
	}
	paths := a.Paths
	if paths == nil {
		paths = []string{}
	}
	op := map[string]any{
		"id":      a.ID,
		"tool":    a.Tool,
		"kind":    a.Kind,
		"title":   a.Title,
		"command": a.Command,
		"paths":   paths,
		"reason":  a.Reason,
		"scope":   a.Scope,
		"danger":  a.Danger,
		"diffs":   diffs,
		"sandbox": a.Sandbox,
		"always":  a.Always,
	}
	if a.Plan != nil {
		op["plan"] = planOp(a.Plan)
	}
	if a.Elicitation != nil {
		op["elicitation"] = elicitOp(a.Elicitation)
	}
	return op
}

func trimNewlines(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.TrimRight(l, "\r\n")
	}
	return out
}

// toolTitle is the tool name and its key arguments on one line.
func toolTitle(t *event.Tool) string {
	title := t.Title
	if title == "" {
		title = t.Name
	}
	name := event.ToolDisplayName(t.Name)
	if name != "" && !strings.HasPrefix(title, t.Name) && !strings.HasPrefix(title, name) && !strings.HasPrefix(title, "!") {
		title = name + ": " + title
	}
	return strings.ReplaceAll(title, "\n", " ")
}

// tildePath shortens a path under $HOME for display.
// shortPath is p as "~/…/proj" (or "…/proj"): its last element with its
// place; a path of one element stays whole.
func shortPath(p string) string {
	dir, name := filepath.Split(strings.TrimRight(p, "/"))
	switch dir {
	case "", "/", "~/":
		return p
	}
	if strings.HasPrefix(p, "~/") {
		return "~/…/" + name
	}
	return "…/" + name
}

func tildePath(p string) string {
	home := homeDir()
	if home != "" && (p == home || strings.HasPrefix(p, home+string(filepath.Separator))) {
		return "~" + p[len(home):]
	}
	return p
}

// contextLine writes one attached item as a line ("▸ #buffer main.go (go,
// 120 lines)"); the key that opens folded texts opens what was attached.
func (r *renderer) contextLine(it mention.Summary) {
	if it.Err != "" {
		r.line(hlToolFailed, it.String())
		return
	}
	r.line(hlNotice, it.String())
	if it.Body != "" {
		r.emitOp(op{"t": "fold", "id": r.folds.add(folded{title: it.Label, text: it.Body})}, false)
	}
}
