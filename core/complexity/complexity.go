// Package complexity decides whether a user input is a complex task (seed 001
// §7), which makes the agent start the turn by writing a todo list.
//
// The input is trimmed and measured in Unicode characters (runes). Rules, in
// priority order; the first that matches names the Result:
//
//  1. "enumeration": an explicit multi-target enumeration, either
//     - numbered items 1, 2 and 3 in that order (markers "1." "1)" "1、"
//     "(1)" "1．" "1）", circled ①②③, or Chinese numerals 一、二、三、). A
//     marker must start the input or follow whitespace or punctuation and
//     must not be followed by a digit, so "3.14", "v1.2" and "file1.go" are
//     not markers; or
//     - a slash list of at least 3 words of any case such as "A/B/C",
//     "add/edit/delete" or "登录/注册/退出". Chains that look like paths,
//     URLs or dates do not count: a leading or trailing slash ("/usr/bin",
//     "./a/b/c" and "~/a/b" start with one or hold . or ~), an empty item
//     ("//"), an item containing one of . : ~ @ \ = ? % & (extensions,
//     schemes, home dirs, queries), all-digit items (2024/01/05), or a chain
//     that names an existing path when the caller can tell (DetectIn).
//  2. "length": at least 40 characters.
//  3. "keywords": at least 3 multi-step keyword occurrences (see Keywords).
//  4. "segments": at least 3 non-empty segments when split on the characters
//     "，。；、,\n" (exactly that set).
package complexity

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Thresholds of seed 001 §7.
const (
	MinChars    = 40
	MinKeywords = 3
	MinSegments = 3
)

// Result is the decision and the measurements behind it. Chars, Keywords
// and Segments are always filled, whichever rule decided.
type Result struct {
	Complex  bool
	Rule     string // "enumeration", "length", "keywords", "segments", or "" when not complex
	Chars    int
	Keywords int
	Segments int
}

// Detect applies the rules of seed 001 §7 to input.
func Detect(input string) Result { return DetectIn(input, nil) }

// DetectIn is Detect where isPath reports whether a slash chain names an
// existing file or directory (in the workspace): such a chain is a path,
// not a list.
func DetectIn(input string, isPath func(string) bool) Result {
	s := strings.TrimSpace(input)
	r := Result{
		Chars:    utf8.RuneCountInString(s),
		Keywords: CountKeywords(s),
		Segments: CountSegments(s),
	}
	switch {
	case s == "":
	case HasEnumeration(s, isPath):
		r.Rule = "enumeration"
	case r.Chars >= MinChars:
		r.Rule = "length"
	case r.Keywords >= MinKeywords:
		r.Rule = "keywords"
	case r.Segments >= MinSegments:
		r.Rule = "segments"
	}
	r.Complex = r.Rule != ""
	return r
}

// segmentSeps is exactly the separator set of seed 001 §7.
const segmentSeps = "，。；、,\n"

// CountSegments counts the non-empty (after trimming) pieces of s split on
// "，。；、,\n".
func CountSegments(s string) int {
	n := 0
	for _, part := range strings.FieldsFunc(s, func(r rune) bool { return strings.ContainsRune(segmentSeps, r) }) {
		if strings.TrimSpace(part) != "" {
			n++
		}
	}
	return n
}

// Chinese multi-step keywords: the seed's examples plus 然后/接着/此外, the
// equivalents of the English "then" and "additionally". Counted as
// non-overlapping substrings (Chinese has no word boundaries).
var zhKeywords = []string{"并且", "同时", "另外", "分别", "步骤", "重构", "迁移", "优化", "然后", "接着", "此外"}

// English multi-word keywords, matched on whole words before single words so
// that "and then" counts once.
var enPhrases = [][]string{{"and", "then"}, {"after", "that"}}

// enWord reports whether a lower-case word is a multi-step keyword: then,
// also, additionally, respectively, step(s), and the inflections of refactor,
// migrate and optimize/optimise.
func enWord(w string) bool {
	switch w {
	case "then", "also", "additionally", "respectively", "step", "steps":
		return true
	}
	for _, stem := range []string{"refactor", "migrat", "optimi"} {
		if strings.HasPrefix(w, stem) {
			return true
		}
	}
	return false
}

// CountKeywords counts multi-step keyword occurrences in s: Chinese keywords
// as substrings, English ones as whole words, case-insensitively.
func CountKeywords(s string) int {
	n := 0
	for _, k := range zhKeywords {
		n += strings.Count(s, k)
	}
	words := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return r > unicode.MaxASCII || !unicode.IsLetter(r) })
	for i := 0; i < len(words); i++ {
		if p := matchPhrase(words[i:]); p > 0 {
			n++
			i += p - 1
			continue
		}
		if enWord(words[i]) {
			n++
		}
	}
	return n
}

func matchPhrase(words []string) int {
	for _, p := range enPhrases {
		if len(words) < len(p) {
			continue
		}
		ok := true
		for j := range p {
			if words[j] != p[j] {
				ok = false
				break
			}
		}
		if ok {
			return len(p)
		}
	}
	return 0
}
