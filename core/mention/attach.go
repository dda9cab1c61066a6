package mention

import (
	"fmt"
	"strings"

	"github.com/coder-nvim/coder-nvim/core/llm"
)

// The model sees each item after the user's words as
//
//	[context #buffer main.go · go · 120 lines · unsaved edits included]
//	```go
//	…
//	```
//
// the fence longer than any backtick run in the text. An item not attached
// is its header alone, saying why ("· not attached: …"). Split reads this
// back for transcripts.

const (
	headerOpen  = "[context "
	headerClose = "]"
	sep         = " · "
	notAttached = "not attached: "
)

// AttachmentsStart starts what Attach appends to a message's text: the
// first item's header.
const AttachmentsStart = "\n\n" + headerOpen

// Attach appends the items to text as the model sees them and returns the
// message, its images and the items as attached (cut where the per-item or
// per-message caps applied, each cut said in the item's notes).
func Attach(text string, items []Item, lim Limits) (string, []llm.Image, []Item) {
	if len(items) == 0 {
		return text, nil, nil
	}
	if lim.Item == 0 {
		lim = DefaultLimits
	}
	var b strings.Builder
	b.WriteString(strings.TrimRight(text, "\n"))
	var images []llm.Image
	out := make([]Item, 0, len(items))
	total := 0
	for _, it := range items {
		it = capItem(it, lim, &total)
		if it.Err == "" && it.image != nil {
			images = append(images, *it.image)
			it.Notes = append(it.Notes, fmt.Sprintf("attached as image %d", len(images)))
		}
		b.WriteString("\n\n")
		b.WriteString(header(it))
		if it.Err == "" && it.Text != "" {
			body := it.Text
			if !strings.HasSuffix(body, "\n") {
				body += "\n"
			}
			f := fence(body)
			fmt.Fprintf(&b, "\n%s%s\n%s%s", f, it.Filetype, body, f)
		}
		out = append(out, it)
	}
	return b.String(), images, out
}

// capItem applies the per-item cap and what is left of the per-message
// cap to it.Text, cutting at a line end and saying so.
func capItem(it Item, lim Limits, total *int) Item {
	if it.Err != "" {
		return it
	}
	whole := it.Size
	if whole < len(it.Text) {
		whole = len(it.Text)
	}
	if it.Lines == 0 {
		it.Lines = lineCount(it.Text)
	}
	remaining := lim.Message - *total
	room := min(lim.Item, remaining)
	why := fmt.Sprintf("per-item cap %s", sizeText(lim.Item))
	if remaining < lim.Item {
		why = fmt.Sprintf("per-message cap %s", sizeText(lim.Message))
	}
	if room <= 0 && it.Text != "" {
		it.Err = fmt.Sprintf("the per-message cap of %s was reached", sizeText(lim.Message))
		it.Text = ""
		return it
	}
	cut := len(it.Text) > room
	if cut {
		t := it.Text[:room]
		if i := strings.LastIndexByte(t, '\n'); i > 0 {
			t = t[:i+1]
		}
		it.Text = strings.ToValidUTF8(t, "")
	} else if whole > len(it.Text) {
		why = "the editor sent only this much"
	}
	*total += len(it.Text)
	if whole > len(it.Text) {
		it.Lines = lineCount(it.Text)
		it.Notes = append(it.Notes, fmt.Sprintf("cut: the first %s, %s of %s sent (%s)", plural(it.Lines, "line"), sizeText(len(it.Text)), sizeText(whole), why))
	}
	return it
}

// fence is a backtick fence longer than any backtick run in body.
func fence(body string) string {
	longest, run := 0, 0
	for i := 0; i < len(body); i++ {
		if body[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}

// header is the item's first line.
func header(it Item) string {
	parts := []string{oneLine(it.Label())}
	if it.Err != "" {
		parts = append(parts, notAttached+oneLine(it.Err))
		return headerOpen + strings.Join(parts, sep) + headerClose
	}
	if it.Filetype != "" {
		parts = append(parts, oneLine(it.Filetype))
	}
	if it.Text != "" {
		n := it.Lines
		if n == 0 {
			n = lineCount(it.Text)
		}
		parts = append(parts, plural(n, "line"))
	}
	for _, n := range it.Notes {
		parts = append(parts, oneLine(n))
	}
	return headerOpen + strings.Join(parts, sep) + headerClose
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// oneLine keeps a header on one line and free of the characters that
// close it.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return strings.NewReplacer("]", ")", sep, " - ").Replace(s)
}

// Summary is one attached item as a front end shows it.
type Summary struct {
	Label   string   // "#buffer main.go"
	Details []string // "go", "120 lines", notes
	Err     string   // why it was not attached
	Body    string   // the attached text, for a view of it whole
}

// String is the transcript line: "▸ #buffer main.go (go, 120 lines)" or
// "✗ @x.go — not attached: no such file …".
func (s Summary) String() string {
	if s.Err != "" {
		return "✗ " + s.Label + " — " + notAttached + s.Err
	}
	if len(s.Details) == 0 {
		return "▸ " + s.Label
	}
	return "▸ " + s.Label + " (" + strings.Join(s.Details, ", ") + ")"
}

// Summaries lists items as Split would read them back.
func Summaries(items []Item) []Summary {
	var out []Summary
	for _, it := range items {
		out = append(out, summaryOf(header(it), it.Text))
	}
	return out
}

func summaryOf(head, body string) Summary {
	inner := strings.TrimSuffix(strings.TrimPrefix(head, headerOpen), headerClose)
	parts := strings.Split(inner, sep)
	s := Summary{Label: parts[0], Body: body}
	for _, p := range parts[1:] {
		if r, ok := strings.CutPrefix(p, notAttached); ok {
			s.Err = r
			continue
		}
		s.Details = append(s.Details, p)
	}
	return s
}

// Split separates a user message Attach wrote into the user's words and
// its items. Text that is not a complete run of items at the end (a user
// who typed "[context …]") stays part of the words; what follows the
// items (a per-turn note) is returned as rest.
func Split(content string) (text string, items []Summary, rest string) {
	lines := strings.Split(content, "\n")
	// Attach's items start at the first header after a blank line that is
	// not in the user's words, so only the typed text can hold false
	// starts: a bounded number of them is tried, each a pass to the end,
	// which keeps a hostile message (a file of header lines) linear.
	tries := 0
	for start := 0; start < len(lines) && tries < maxSplitTries; start++ {
		if !isHeader(lines[start]) || start > 0 && lines[start-1] != "" {
			continue
		}
		tries++
		got, end, ok := parseItems(lines[start:])
		if !ok || start+end < len(lines) && lines[start+end] != "" {
			continue
		}
		text = strings.TrimRight(strings.Join(lines[:start], "\n"), "\n")
		rest = strings.TrimLeft(strings.Join(lines[start+end:], "\n"), "\n")
		return text, got, rest
	}
	return content, nil, ""
}

// maxSplitTries bounds the header lines Split tries as the start of the
// items.
const maxSplitTries = 32

func isHeader(l string) bool {
	return strings.HasPrefix(l, headerOpen) && strings.HasSuffix(l, headerClose)
}

// parseItems reads items separated by blank lines; end is the index of the
// first line after them. ok is false when no item parses.
func parseItems(lines []string) (items []Summary, end int, ok bool) {
	i := 0
	for i < len(lines) && isHeader(lines[i]) {
		head := lines[i]
		i++
		body := ""
		if i < len(lines) && strings.HasPrefix(lines[i], "```") {
			f := strings.TrimRight(lines[i], "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_+-.#")
			j := i + 1
			for j < len(lines) && lines[j] != f {
				j++
			}
			if j == len(lines) {
				return nil, 0, false
			}
			body = strings.Join(lines[i+1:j], "\n") + "\n"
			i = j + 1
		}
		items = append(items, summaryOf(head, body))
		end = i
		if i+1 < len(lines) && lines[i] == "" && isHeader(lines[i+1]) {
			i++
		}
	}
	return items, end, len(items) > 0
}
