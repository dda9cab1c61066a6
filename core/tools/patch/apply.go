package patch

import (
	"fmt"
	"slices"
	"strings"
)

// ChunkError reports a chunk that could not be placed in the file.
type ChunkError struct {
	Index  int // 0-based chunk index
	Chunk  Chunk
	Reason string
}

func (e *ChunkError) Error() string {
	return fmt.Sprintf("%s (patch line %d): %s", e.Chunk.Label(e.Index), e.Chunk.Line, e.Reason)
}

// Apply applies the chunks of one Update File section to content and
// returns the new content. Chunks are located in order, each searching after
// the previous one, trying progressively looser matches: exact, ignoring
// trailing whitespace, ignoring surrounding whitespace, and finally with
// Unicode punctuation folded to ASCII. Every line keeps its own ending (LF
// or CRLF, so mixed files stay mixed); a new line takes the ending of the
// line above it. A file without a final newline keeps it that way.
func Apply(content string, chunks []Chunk) (string, error) {
	lines, eols := splitLines(content)
	finalNL := content == "" || strings.HasSuffix(content, "\n")

	m := matcher{lines: lines}
	type replacement struct {
		start, n int
		with     []string
		kept     []int // Chunk.Kept for with, or nil
	}
	var reps []replacement
	pos := 0
	for i, c := range chunks {
		ctxAt := -1
		if c.Context != "" {
			ctxAt = m.seek([]string{c.Context}, pos, false)
			if ctxAt < 0 {
				return "", &ChunkError{i, c, fmt.Sprintf("could not find the context line %q%s", c.Context, after(pos))}
			}
			pos = ctxAt + 1
		}
		if len(c.Old) == 0 {
			at := len(lines)
			if c.Context != "" && !c.EOF {
				at = pos
			}
			reps = append(reps, replacement{at, 0, c.New, nil})
			continue
		}
		old, with, kept := c.Old, c.New, c.Kept
		if len(kept) != len(with) {
			kept = nil // not from the parser: endings by content
		}
		at := m.seek(old, pos, c.EOF)
		if at < 0 && ctxAt >= 0 && m.seek(old, ctxAt, c.EOF) == ctxAt {
			// Models often repeat the @@ line as the chunk's first context
			// line; let the chunk start at the context line itself.
			at = ctxAt
		}
		if at < 0 && len(old) > 1 && old[len(old)-1] == "" {
			// A trailing blank context line often stands for the file's end.
			old = old[:len(old)-1]
			if len(with) > 0 && with[len(with)-1] == "" {
				with = with[:len(with)-1]
				if kept != nil {
					kept = kept[:len(kept)-1]
				}
			} else {
				kept = nil
			}
			at = m.seek(old, pos, c.EOF)
		}
		if at < 0 {
			where := "in the file"
			if c.EOF {
				where = "at the end of the file"
			}
			return "", &ChunkError{i, c, fmt.Sprintf("could not find these lines %s%s:\n%s", where, after(pos), indent(c.Old))}
		}
		reps = append(reps, replacement{at, len(old), keepContext(lines[at:at+len(old)], old, with), kept})
		pos = at + len(old)
	}

	// Insertions at the end of the file may precede later chunks in the list.
	slices.SortStableFunc(reps, func(a, b replacement) int { return a.start - b.start })
	out := make([]outLine, 0, len(lines)+16)
	keep := func(from, to int) {
		for i := from; i < to; i++ {
			out = append(out, outLine{lines[i], eols[i]})
		}
	}
	next := 0
	for _, r := range reps {
		keep(next, r.start)
		if r.kept != nil {
			out = append(out, withEndings(r.with, r.kept, eols[r.start:r.start+r.n])...)
			next = r.start + r.n
			continue
		}
		// A line of the replacement equal to one it replaces (a context
		// line) keeps that line's ending; the others are new.
		j := r.start
		for _, text := range r.with {
			eol := ""
			for k := j; k < r.start+r.n; k++ {
				if lines[k] == text {
					eol, j = eols[k], k+1 // never "": splitLines gives every line one
					break
				}
			}
			out = append(out, outLine{text, eol})
		}
		next = r.start + r.n
	}
	keep(next, len(lines))
	return joinLines(out, eols, finalNL), nil
}

// withEndings ends the replacement lines as codex does: a context line
// keeps its own ending, an added line takes the ending of the removed line
// it stands in for (the n-th added the n-th removed), and "" (its
// neighbour's) when more lines are added than removed.
func withEndings(with []string, kept []int, oldEOLs []string) []outLine {
	used := make([]bool, len(oldEOLs))
	for _, k := range kept {
		if k >= 0 && k < len(used) {
			used[k] = true
		}
	}
	var removed []string
	for k, e := range oldEOLs {
		if !used[k] {
			removed = append(removed, e)
		}
	}
	out := make([]outLine, len(with))
	for i, text := range with {
		eol := ""
		switch k := kept[i]; {
		case k >= 0 && k < len(oldEOLs):
			eol = oldEOLs[k]
		case len(removed) > 0:
			eol, removed = removed[0], removed[1:]
		}
		out[i] = outLine{text, eol}
	}
	return out
}

// noEOL marks the line that ended the file without a newline; "" marks a
// new line whose ending comes from its neighbours.
const noEOL = "\x00"

type outLine struct{ text, eol string }

// splitLines splits content into lines without their endings, and the
// endings: "\r\n", "\n", or noEOL for a last line without one.
func splitLines(content string) (lines, eols []string) {
	n := strings.Count(content, "\n") + 1
	lines, eols = make([]string, 0, n), make([]string, 0, n)
	for content != "" {
		i := strings.IndexByte(content, '\n')
		if i < 0 {
			lines, eols = append(lines, content), append(eols, noEOL)
			break
		}
		line, eol := content[:i], "\n"
		if strings.HasSuffix(line, "\r") {
			line, eol = line[:len(line)-1], "\r\n"
		}
		lines, eols = append(lines, line), append(eols, eol)
		content = content[i+1:]
	}
	return lines, eols
}

// joinLines gives each new line the ending of the line above it (of the
// line below at the top; the file's most common ending when there is
// neither), and ends the last line as the file ended.
func joinLines(out []outLine, eols []string, finalNL bool) string {
	crlf, lf := 0, 0
	for _, e := range eols {
		switch e {
		case "\r\n":
			crlf++
		case "\n":
			lf++
		}
	}
	common := "\n"
	if crlf > lf {
		common = "\r\n"
	}
	real := func(e string) bool { return e != "" && e != noEOL }
	var b strings.Builder
	size := 0
	for _, l := range out {
		size += len(l.text) + 2
	}
	b.Grow(size) // one allocation: a 10,000-line file grew the buffer 20 times
	prev := ""
	for i, l := range out {
		eol := l.eol
		if !real(eol) {
			eol = prev
			if eol == "" {
				eol = common
				for _, n := range out[i+1:] {
					if real(n.eol) {
						eol = n.eol
						break
					}
				}
			}
		}
		if i == len(out)-1 && !finalNL {
			eol = ""
		}
		b.WriteString(l.text)
		b.WriteString(eol)
		prev = eol
	}
	return b.String()
}

// keepContext returns with, its leading and trailing context lines (those
// equal in old and with) replaced by the file's own lines: a loose match
// must not rewrite the whitespace or punctuation of lines the chunk keeps.
func keepContext(file, old, with []string) []string {
	out := slices.Clone(with)
	n := 0
	for n < len(old) && n < len(out) && old[n] == out[n] {
		out[n] = file[n]
		n++
	}
	for k := 1; k <= len(old)-n && k <= len(out)-n && old[len(old)-k] == out[len(out)-k]; k++ {
		out[len(out)-k] = file[len(file)-k]
	}
	return out
}

func after(pos int) string {
	if pos == 0 {
		return ""
	}
	return fmt.Sprintf(" after line %d", pos)
}

func indent(lines []string) string {
	var b strings.Builder
	for i, l := range lines {
		if i == 20 {
			fmt.Fprintf(&b, "  ... (%d more lines)\n", len(lines)-i)
			break
		}
		b.WriteString("  ")
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// matcher finds line sequences in a file, caching the file's lines as
// normalised by each looser pass so repeated searches stay cheap.
type matcher struct {
	lines []string
	norm  [numPasses][]string
}

// Matching passes, strictest first.
const (
	passExact = iota
	passTrimRight
	passTrim
	passPunct
	numPasses
)

func normalize(pass int, s string) string {
	switch pass {
	case passTrimRight:
		return strings.TrimRight(s, " \t\r\f\v")
	case passTrim:
		return strings.TrimSpace(s)
	case passPunct:
		return foldPunct(strings.TrimSpace(s))
	}
	return s
}

// seek returns the index of the first occurrence of pat at or after start,
// or -1. With eof, a match ending at the last line is preferred.
func (m *matcher) seek(pat []string, start int, eof bool) int {
	if len(pat) > len(m.lines) || start < 0 {
		return -1
	}
	last := len(m.lines) - len(pat)
	for p := range numPasses {
		lines := m.lines
		want := pat
		if p != passExact {
			if m.norm[p] == nil {
				m.norm[p] = make([]string, len(m.lines))
				for i, l := range m.lines {
					m.norm[p][i] = normalize(p, l)
				}
			}
			lines = m.norm[p]
			want = make([]string, len(pat))
			for i, l := range pat {
				want[i] = normalize(p, l)
			}
		}
		if eof && last >= start && equalAt(lines, want, last) {
			return last
		}
		for i := start; i <= last; i++ {
			if equalAt(lines, want, i) {
				return i
			}
		}
	}
	return -1
}

func equalAt(lines, pat []string, at int) bool {
	for j, p := range pat {
		if lines[at+j] != p {
			return false
		}
	}
	return true
}

// foldPunct maps typographic punctuation and odd spaces to ASCII, so text a
// model "prettified" still matches the file.
func foldPunct(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return s
	}
	return strings.Map(func(r rune) rune {
		switch r {
		case '\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2015', '\u2212':
			return '-'
		case '\u2018', '\u2019', '\u201A', '\u201B', '\u2032':
			return '\''
		case '\u201C', '\u201D', '\u201E', '\u201F', '\u2033':
			return '"'
		case '\u00A0', '\u2002', '\u2003', '\u2004', '\u2005', '\u2006',
			'\u2007', '\u2008', '\u2009', '\u200A', '\u202F', '\u205F', '\u3000':
			return ' '
		}
		return r
	}, s)
}
