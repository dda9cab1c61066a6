package text

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MoreChars marks a cut: "… (N more characters)".
func MoreChars(n int) string { return "… (" + strconv.Itoa(n) + " more characters)" }

// CutRuns shortens s for a one-line listing where every part must stay in
// view: each run longer than run characters — of whitespace, or of
// characters between delimiters (quotes, brackets, commas, colons,
// spaces) — keeps its first keep characters and ends with MoreChars, so
// that one long value (a 1,200-space model name, a long argument) cannot
// push what follows it (an env, a cwd) out of sight; the result is then
// cut to at most max characters the same way.
func CutRuns(s string, run, keep, max int) string {
	var b strings.Builder
	rs := []rune(s)
	for i := 0; i < len(rs); {
		j := i + 1
		if delim(rs[i]) {
			b.WriteRune(rs[i])
			i = j
			continue
		}
		space := unicode.IsSpace(rs[i])
		for j < len(rs) && !delim(rs[j]) && unicode.IsSpace(rs[j]) == space {
			j++
		}
		if j-i > run {
			b.WriteString(string(rs[i : i+keep]))
			b.WriteString(MoreChars(j - i - keep))
		} else {
			b.WriteString(string(rs[i:j]))
		}
		i = j
	}
	out := b.String()
	if n := utf8.RuneCountInString(out); n > max {
		cut := []rune(out)[:max]
		out = string(cut) + MoreChars(n-max)
	}
	return out
}

// delim ends a run; a single space does too, a longer whitespace run is a
// run of its own.
func delim(r rune) bool {
	return strings.ContainsRune(`"',:;{}[]()=`, r)
}
