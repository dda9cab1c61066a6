package nvimhost

import (
	"errors"
	"fmt"
	"strings"

	"github.com/coder-nvim/coder-nvim/core/llm"
)

// A long answer or tool output is folded: the transcript shows its first
// lines and a notice, and the whole text opens in a scratch buffer on
// request (coder_full_text). Folding keeps the transcript usable and
// bounds what a flood sends to Neovim.
const (
	foldAnswerLines = 5000
	foldAnswerBytes = 256 << 10
	foldOutputLines = 500
	foldOutputBytes = 64 << 10
	// maxFolds is how many folded texts stay available; older ones are
	// forgotten (their notice then says so when asked).
	maxFolds = 32
	// foldPrefix is how much of a folded answer identifies it in the
	// history.
	foldPrefix = 256
)

// folded is a folded text the host can still give whole. A tool's output
// is kept by reference (the same string the engine produced, no copy); an
// answer is found again in the conversation history, which holds it anyway.
type folded struct {
	title  string
	text   string // tool output; "" for an answer
	conv   string // answer: conversation id ("" root)
	field  string // answer: "message" or "reasoning"
	prefix string // answer: its first bytes
	size   int    // answer: its length in bytes
}

// folds keeps the last maxFolds folded texts by id.
type folds struct {
	next  int
	byID  map[int]folded
	order []int
}

func (f *folds) add(x folded) int {
	if f.byID == nil {
		f.byID = map[int]folded{}
	}
	f.next++
	f.byID[f.next] = x
	f.order = append(f.order, f.next)
	if len(f.order) > maxFolds {
		delete(f.byID, f.order[0])
		f.order = f.order[1:]
	}
	return f.next
}

// streamFold tracks the streamed text of the current answer block: how
// much was shown, and what was held back once it was folded.
type streamFold struct {
	conv          string
	prefix        strings.Builder
	size          int // bytes of the block so far
	lines, bytes  int // shown
	folded        bool
	hidden, extra int  // lines and bytes held back
	openLine      bool // the held-back text ends inside a line
}

// streamText writes an answer delta, folding the block once it passes the
// limits: from then on the text is only counted.
func (r *renderer) streamText(hl, text, conv string) {
	f := &r.sf
	if f.size == 0 {
		f.conv = conv
	}
	f.size += len(text)
	if f.prefix.Len() < foldPrefix {
		f.prefix.WriteString(text[:min(len(text), foldPrefix-f.prefix.Len())])
	}
	if !f.folded {
		n := strings.Count(text, "\n")
		if f.bytes+len(text) <= foldAnswerBytes && f.lines+n <= foldAnswerLines {
			f.bytes += len(text)
			f.lines += n
			r.write(hl, text)
			return
		}
		// Shown up to the last whole line in reach; the rest is counted.
		k := cutPoint(text, foldAnswerBytes-f.bytes, foldAnswerLines-f.lines, false)
		r.write(hl, text[:k])
		text = text[k:]
		f.folded = true
	}
	f.hidden += strings.Count(text, "\n")
	f.extra += len(text)
	if text != "" {
		f.openLine = !strings.HasSuffix(text, "\n")
	}
}

// endStream closes the current answer block; a folded one gets its notice.
func (r *renderer) endStream() {
	f := &r.sf
	if f.folded {
		lines := f.hidden
		if f.openLine {
			lines++ // the last line has no newline
		}
		id := r.folds.add(folded{title: "answer", conv: f.conv, field: r.stream, prefix: f.prefix.String(), size: f.size})
		r.foldNotice(id, lines, f.extra, false)
	}
	r.sf = streamFold{}
}

// foldNotice writes the notice under a folded text and marks it for the
// Lua side, which opens the text when asked.
// atLeast: more followed than was counted (streamed output past its
// limit).
func (r *renderer) foldNotice(id, lines, size int, atLeast bool) {
	r.newline()
	how := "folded"
	if r.openKey != "" {
		how = "press " + r.openKey + " to open the whole text"
	}
	more := ""
	if atLeast {
		more = "at least "
	}
	r.write(hlNotice, fmt.Sprintf("    … %s%s more lines (%s) — %s\n", more, thousands(lines), byteSize(size), how))
	r.emitOp(op{"t": "fold", "id": id}, false)
}

// get returns the folded text id.
func (f *folds) get(id int) (folded, error) {
	x, ok := f.byID[id]
	if !ok {
		return folded{}, fmt.Errorf("text %d is no longer kept (only the last %d folded texts are)", id, maxFolds)
	}
	return x, nil
}

// whole is the whole text as lines; an answer is looked up in history.
func (x folded) whole(history func(conv string) []llm.Message) ([]string, error) {
	text := x.text
	if x.size > 0 {
		var found bool
		if text, found = findAnswer(history(x.conv), x); !found {
			return nil, errors.New("that answer is no longer in the conversation (compacted or undone)")
		}
	}
	return strings.Split(strings.TrimRight(text, "\n"), "\n"), nil
}

// findAnswer finds a folded answer in a history, newest first: the
// message (or its reasoning) that starts like it and is at least as long
// (an interrupted answer carries a note after it).
func findAnswer(msgs []llm.Message, x folded) (string, bool) {
	for i := len(msgs) - 1; i >= 0; i-- {
		m := msgs[i]
		if m.Role != llm.RoleAssistant {
			continue
		}
		s := m.Content
		if x.field == "reasoning" {
			s = m.Reasoning
		}
		if len(s) >= x.size && strings.HasPrefix(s, x.prefix) {
			return s[:x.size], true
		}
	}
	return "", false
}

// thousands formats n with comma separators: 12,345.
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// byteSize formats a size for the notice: 812 B, 64 KB, 9.8 MB.
func byteSize(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d KB", n/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
