// Package mention turns what a user points at while typing — `@path`,
// `@path:10-40`, `#diff`, and the editor's own `#buffer`, `#diagnostics` …
// — into context attached to their message. Editor facts (buffer text with
// unsaved edits, diagnostics, quickfix, selection) are gathered by the front
// end and handed in as Items; workspace facts (`@path`, `#diff`) are
// resolved here with the file tools' path rules. The model sees each item
// as a block after the user's words, its source and path named in a header
// line; front ends show one short line per item (Summary).
//
// An unknown `#word` is plain text: people write #1 and #include.
package mention

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/text"
)

// Item is one piece of attached context.
type Item struct {
	// Source says where it comes from: "@" for a workspace path, or the
	// mention name ("#buffer", "#diff", "#diagnostics" …).
	Source string `msgpack:"source" json:"source"`
	// Path is the file, buffer or directory it is about (workspace
	// relative where it lies inside), "" when it has none (#quickfix).
	Path string `msgpack:"path" json:"path,omitempty"`
	// Range is "10-40" for part of a file.
	Range    string `msgpack:"range" json:"range,omitempty"`
	Filetype string `msgpack:"filetype" json:"filetype,omitempty"`
	Text     string `msgpack:"text" json:"text,omitempty"`
	// Lines is how many lines Text holds; 0: count them.
	Lines int `msgpack:"lines" json:"lines,omitempty"`
	// Size is the whole text's size in bytes when the front end sent
	// only part of it (a 10 MB buffer): the note says how much was sent.
	Size int `msgpack:"size" json:"size,omitempty"`
	// Notes are short facts shown with the header ("unsaved edits
	// included", "3 buffers left out: at most 20").
	Notes []string `msgpack:"notes" json:"notes,omitempty"`
	// Err, when set, says why nothing was attached; the message is sent
	// without it.
	Err string `msgpack:"error" json:"error,omitempty"`

	image *llm.Image
}

// Label names the item the way the user wrote it: "@src/a.go:10-40",
// "#buffer main.go", "#selection main.go:3-9", "#diff".
func (it Item) Label() string {
	if it.Source == "@" {
		s := "@" + it.Path
		if it.Range != "" {
			s += ":" + it.Range
		}
		return s
	}
	s := it.Source
	if it.Path != "" {
		s += " " + it.Path
		if it.Range != "" {
			s += ":" + it.Range
		}
	}
	return s
}

// Ref is one workspace mention found in typed text.
type Ref struct {
	Start, End int    // byte offsets of the token in the text
	Source     string // "@" or "#diff"
	Path       string // for "@"
	From, To   int    // line range for "@"; 0: the whole file
}

// HostNames are the `#` mentions resolved here; every other name is the
// editor's or plain text.
var hostNames = []string{"diff"}

// Parse finds the `@path[:from[-to]]` and `#diff` mentions in text. A
// mention starts the text or follows whitespace or an opening bracket or
// quote; trailing sentence punctuation is not part of it. Fenced code
// blocks (```) are skipped: pasted code holds @decorators and #includes.
func Parse(text string) []Ref {
	var refs []Ref
	fenced := false
	off := 0
	for line := range strings.SplitAfterSeq(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
		} else if !fenced {
			refs = append(refs, parseLine(line, off)...)
		}
		off += len(line)
	}
	return refs
}

func parseLine(line string, off int) []Ref {
	var refs []Ref
	for i := 0; i < len(line); i++ {
		c := line[i]
		if (c != '@' && c != '#') || !boundary(line, i) {
			continue
		}
		end := i + 1
		for end < len(line) {
			r, n := utf8.DecodeRuneInString(line[end:])
			if unicode.IsSpace(r) || strings.ContainsRune("()[]{}<>\"'`,;", r) {
				break
			}
			end += n
		}
		for end > i+1 && strings.ContainsRune(".,;:!?", rune(line[end-1])) {
			end--
		}
		tok := line[i+1 : end]
		if tok == "" {
			continue
		}
		if c == '#' {
			for _, n := range hostNames {
				if tok == n {
					refs = append(refs, Ref{Start: off + i, End: off + end, Source: "#" + n})
				}
			}
			i = end - 1
			continue
		}
		ref := Ref{Start: off + i, End: off + end, Source: "@", Path: tok}
		ref.Path, ref.From, ref.To = splitRange(tok)
		refs = append(refs, ref)
		i = end - 1
	}
	return refs
}

// boundary reports whether a mention may start at line[i].
func boundary(line string, i int) bool {
	if i == 0 {
		return true
	}
	r, _ := utf8.DecodeLastRuneInString(line[:i])
	return unicode.IsSpace(r) || strings.ContainsRune("([{\"'", r)
}

// splitRange splits "a.go:10-40" into the path and the range; "a.go:7" is
// line 7 alone.
func splitRange(tok string) (path string, from, to int) {
	i := strings.LastIndexByte(tok, ':')
	if i <= 0 {
		return tok, 0, 0
	}
	a, b, isRange := strings.Cut(tok[i+1:], "-")
	from, err1 := strconv.Atoi(a)
	if err1 != nil || from < 1 {
		return tok, 0, 0
	}
	to = from
	if isRange {
		n, err := strconv.Atoi(b)
		if err != nil || n < from {
			return tok, 0, 0
		}
		to = n
	}
	return tok[:i], from, to
}

// lineCount counts the lines of s (a last line without "\n" counts).
func lineCount(s string) int {
	if s == "" {
		return 0
	}
	n := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

// sizeText is a byte count for people: "812 B", "64 KiB", "1.5 MiB".
func sizeText(n int) string { return text.Size(int64(n)) }
