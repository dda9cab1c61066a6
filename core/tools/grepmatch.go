package tools

import (
	"bytes"
	"encoding/binary"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"
)

// grepMatcher finds the lines of a file that a grep pattern matches, as
// the plain line-by-line match would (each line without its trailing \r
// and \n), but without running the regex on lines that cannot match: a
// literal that every match contains (case-folded when the pattern says
// (?i)) is looked up with bytes.Index, and only lines holding it are
// matched. A pattern that is that literal needs no regex at all.
type grepMatcher struct {
	re    *regexp.Regexp
	pre   *regexp.Regexp // whole-file prefilter when there is no literal
	lit   []byte         // required literal (ASCII lower-case when fold)
	fold  bool           // lit is searched ignoring ASCII case
	exact bool           // a line holding lit matches: the pattern is lit
}

func newGrepMatcher(re *regexp.Regexp) *grepMatcher {
	m := &grepMatcher{re: re}
	if parsed, err := syntax.Parse(re.String(), syntax.Perl); err == nil {
		parsed = parsed.Simplify()
		m.lit, m.fold, m.exact = requiredLiteral(parsed)
	}
	if m.lit == nil {
		m.pre = grepPrefilter(re)
	}
	return m
}

// requiredLiteral returns the longest literal that every match of re
// contains, searchable with bytes.Index (on ASCII-lowered text when fold),
// and whether re matches exactly the lines that contain it.
func requiredLiteral(re *syntax.Regexp) (lit []byte, fold, exact bool) {
	whole := re
	for whole.Op == syntax.OpCapture {
		whole = whole.Sub[0]
	}
	for _, l := range literalNodes(re, nil) {
		cand, f, all := searchableLiteral(l)
		if len(cand) == 0 {
			continue
		}
		if len(cand) > len(lit) || (len(cand) == len(lit) && fold && !f) {
			lit, fold, exact = cand, f, all && l == whole
		}
	}
	return lit, fold, exact
}

// literalNodes collects the literal nodes that every match of re must
// contain: re itself, the parts of a concatenation, what a repetition of
// at least one repeats, what a group captures.
func literalNodes(re *syntax.Regexp, out []*syntax.Regexp) []*syntax.Regexp {
	switch re.Op {
	case syntax.OpLiteral:
		out = append(out, re)
	case syntax.OpCapture, syntax.OpPlus:
		out = literalNodes(re.Sub[0], out)
	case syntax.OpRepeat:
		if re.Min >= 1 {
			out = literalNodes(re.Sub[0], out)
		}
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			out = literalNodes(sub, out)
		}
	}
	return out
}

// searchableLiteral returns the longest part of a literal node that
// bytes.Index finds exactly where the regex would: no line ends (lines are
// matched without them), no U+FFFD (the regex matches it on invalid
// UTF-8), and when case is folded only ASCII letters whose every case
// variant is ASCII (not k or s: the Kelvin and long s signs fold to them).
// all reports that the part is the whole literal.
func searchableLiteral(re *syntax.Regexp) (lit []byte, fold, all bool) {
	fold = re.Flags&syntax.FoldCase != 0
	ok := func(r rune) bool {
		if r == '\n' || r == '\r' || r == utf8.RuneError {
			return false
		}
		if !fold {
			return true
		}
		if r >= utf8.RuneSelf {
			return false
		}
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			if f >= utf8.RuneSelf {
				return false
			}
		}
		return true
	}
	var best, cur []rune
	for _, r := range re.Rune {
		if !ok(r) {
			cur = nil
			continue
		}
		cur = append(cur, r)
		if len(cur) > len(best) {
			best = cur
		}
	}
	s := string(best)
	if fold {
		s = strings.ToLower(s)
	}
	return []byte(s), fold, len(best) == len(re.Rune)
}

// lines calls emit with the number and text of every matching line of
// data until emit returns false. lower is scratch space for folding.
func (m *grepMatcher) lines(data []byte, lower *[]byte, emit func(n int, line []byte) bool) {
	if m.lit == nil {
		// One pass of the regex over the whole file rules most files
		// out far faster than matching line by line. It must not rule
		// out a file the line loop would match: lines are matched with
		// their \r removed, which a multi-line $ does not see, so such
		// files skip the prefilter.
		if m.pre != nil && bytes.IndexByte(data, '\r') < 0 && !m.pre.Match(data) {
			return
		}
		n := 0
		for len(data) > 0 {
			n++
			end := bytes.IndexByte(data, '\n')
			line := data
			if end >= 0 {
				line, data = data[:end], data[end+1:]
			} else {
				data = nil
			}
			line = bytes.TrimRight(line, "\r\n")
			if m.re.Match(line) && !emit(n, line) {
				return
			}
		}
		return
	}
	hay := data
	if m.fold {
		*lower = asciiLower((*lower)[:0], data)
		hay = *lower
	}
	pos, counted, n := 0, 0, 1
	for pos < len(hay) {
		i := bytes.Index(hay[pos:], m.lit)
		if i < 0 {
			return
		}
		i += pos
		start := pos + bytes.LastIndexByte(hay[pos:i], '\n') + 1
		end := len(hay)
		if j := bytes.IndexByte(hay[i:], '\n'); j >= 0 {
			end = i + j
		}
		n += bytes.Count(data[counted:start], []byte{'\n'})
		counted = start
		line := bytes.TrimRight(data[start:end], "\r")
		if (m.exact || m.re.Match(line)) && !emit(n, line) {
			return
		}
		pos = end + 1
	}
}

// asciiLower appends data to dst with ASCII upper-case letters lowered;
// other bytes, UTF-8 sequences included, are kept, so offsets match. It
// works on eight bytes at a time: every byte of a (?i) search's files
// passes through it.
func asciiLower(dst, data []byte) []byte {
	n := len(dst)
	dst = append(dst, data...)
	b := dst[n:]
	const (
		ones = 0x0101010101010101
		high = 0x8080808080808080
	)
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		low := x &^ high                // each byte's low seven bits
		geA := low + ones*(0x80-'A')    // high bit set where low >= 'A'
		gtZ := low + ones*(0x80-'Z'-1)  // high bit set where low > 'Z'
		upper := geA &^ gtZ &^ x & high // ASCII (high bit clear) and in A..Z
		binary.LittleEndian.PutUint64(b[i:], x|upper>>2)
	}
	for ; i < len(b); i++ {
		if c := b[i]; 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return dst
}
