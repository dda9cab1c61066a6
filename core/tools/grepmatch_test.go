package tools

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// naiveLines is the plain line-by-line match grepMatcher must agree with.
func naiveLines(re *regexp.Regexp, data string) []string {
	var out []string
	n := 0
	for line := range strings.Lines(data) {
		n++
		line = strings.TrimRight(line, "\r\n")
		if re.MatchString(line) {
			out = append(out, strconv.Itoa(n)+":"+line)
		}
	}
	return out
}

// grepMatcher's literal shortcuts must find exactly the lines the regex
// finds line by line, on the cases where a shortcut could go wrong:
// case folding beyond ASCII, line ends, invalid UTF-8, anchors.
func TestGrepMatcherAgreesWithLineMatch(t *testing.T) {
	texts := []string{
		"alpha\nBeta gamma\r\nNEEDLE x = 1\nneedle\n",
		"needle\r\n\r\nneedleneedle\nx needle y\nno newline needle",
		"\u212Aelvin kelvin KELVIN\n\u017Fun sun SUN\n",
		"bad \xff\xfe bytes \uFFFD needle\n\xe4needle\n",
		"Straße STRASSE strasse\nÉcole école\n",
		"a.b acb a\\.b\n\n\n(x) [y]\n",
		"",
		"\n\n\n",
		"needle\r\r\n  needle  \r",
	}
	patterns := []string{
		"needle", "(?i)needle", "(?i)NEEDLE", `(?i)NEEDLE\w+ =`, `(?i)needle\s*x`,
		"^needle$", "needle$", "(?i)^NEEDLE", "(needle)+", "x (needle) y", "(?:ne)+edle",
		"(?i)kelvin", "(?i)KELVIN", "(?i)sun", "(?i)SUN", "(?i)straße", "(?i)école",
		"\uFFFD", "\uFFFD needle", `a\.b`, `\(x\)`, "bytes", `needle|alpha`, `x*`, `^$`, "(?i)x{2,}",
		`\Aneedle\z`, "e\r", "(?m)needle$", "(?s)needle.x", `[Nn]eedle`, `needle{2}`,
	}
	for _, p := range patterns {
		re := regexp.MustCompile(p)
		m := newGrepMatcher(re)
		for _, text := range texts {
			var got []string
			var lower []byte
			m.lines([]byte(text), &lower, func(n int, line []byte) bool {
				got = append(got, strconv.Itoa(n)+":"+string(line))
				return true
			})
			if want := naiveLines(re, text); !slices.Equal(got, want) {
				t.Errorf("%q on %q (literal %q fold %v exact %v):\ngot  %q\nwant %q", p, text, m.lit, m.fold, m.exact, got, want)
			}
		}
	}
}

// The literal found for common patterns: a test that the fast paths are
// taken at all.
func TestGrepMatcherLiteral(t *testing.T) {
	tests := []struct {
		pattern, lit string
		fold, exact  bool
	}{
		{"needleLiteral", "needleLiteral", false, true},
		{"(?i)NEEDLE", "needle", true, true},
		{`(?i)NEEDLE\w+ =`, "needle", true, false},
		{`func \w+\(ctx`, "func ", false, false},
		{`(?i)kelvin`, "elvin", true, false},
		{`a|b`, "", false, false},
	}
	for _, tt := range tests {
		m := newGrepMatcher(regexp.MustCompile(tt.pattern))
		if string(m.lit) != tt.lit || m.fold != tt.fold || m.exact != tt.exact {
			t.Errorf("%q: literal %q fold %v exact %v, want %q %v %v", tt.pattern, m.lit, m.fold, m.exact, tt.lit, tt.fold, tt.exact)
		}
	}
}

// On a generated tree (nested and ignored directories, hidden files, CRLF
// and mixed-case lines, binary files, matches past the cap), grep through
// rg and the built-in grep print the same thing for the same query.
func TestGrepBuiltinMatchesRg(t *testing.T) {
	if findRipgrep() == "" {
		t.Skip("rg not installed")
	}
	rnd := rand.New(rand.NewPCG(24, 25))
	words := []string{"needle", "NEEDLE", "Needle", "needles", "func", "return", "x", "=", "\t", "hay", "straw", "été", "\u212Aelvin"}
	files := map[string]string{".gitignore": "ignored/\n*.tmp\n"}
	for i := range 400 {
		dir := fmt.Sprintf("d%d/s%d", i%9, i%4)
		switch i % 50 {
		case 7:
			dir = "ignored"
		case 11:
			dir = ".hidden"
		}
		name := fmt.Sprintf("%s/f%03d.txt", dir, i)
		if i%37 == 0 {
			name = fmt.Sprintf("%s/f%03d.tmp", dir, i)
		}
		var b strings.Builder
		if i%61 == 0 {
			b.WriteString("\x00binary ")
		}
		for l := range rnd.IntN(40) {
			for range rnd.IntN(8) {
				b.WriteString(words[rnd.IntN(len(words))])
				b.WriteByte(' ')
			}
			if l%5 == 0 {
				b.WriteString("\r")
			}
			b.WriteString("\n")
		}
		files[name] = b.String()
	}
	files["many.txt"] = strings.Repeat("needle\n", 300)
	rgWS := newWS(t, files)
	builtin := bothSearches(t, rgWS)["builtin"]
	queries := []m{
		{"pattern": "needle"},
		{"pattern": "needle", "path": "d1"},
		{"pattern": "(?i)needle"},
		{"pattern": `(?i)NEEDLE\w* =`},
		{"pattern": `(?i)kelvin`},
		{"pattern": `^func\s+[a-z]+`}, // \w is Unicode in rg, ASCII in Go
		{"pattern": `hay $`},
		{"pattern": `straw|été`, "glob": "*.txt"},
		{"pattern": `return x`, "glob": "d2/**"},
		{"pattern": `zzz`},
	}
	for _, q := range queries {
		want := run(t, rgWS, "grep", q)
		got := run(t, builtin, "grep", q)
		// The cap notes differ in wording: rg knows the total.
		g, w := matchLines(got.Output), matchLines(want.Output)
		if !slices.Equal(g, w) || got.Summary != want.Summary {
			i := 0
			for i < min(len(g), len(w)) && g[i] == w[i] {
				i++
			}
			t.Errorf("grep %v: built-in (%s) and rg (%s) differ at line %d:\nbuilt-in %q\nrg       %q", q, got.Summary, want.Summary, i+1, g[i:min(len(g), i+3)], w[i:min(len(w), i+3)])
		}
		if q["pattern"] != "zzz" && strings.HasPrefix(want.Output, "no matches") {
			t.Errorf("grep %v: no matches; the tree does not test it", q)
		}
	}
}

// matchLines returns a grep output's lines without its notes.
func matchLines(out string) []string {
	var lines []string
	for l := range strings.SplitSeq(out, "\n") {
		if !strings.HasPrefix(l, "[") {
			lines = append(lines, l)
		}
	}
	return lines
}

// asciiLower's eight-bytes-at-a-time loop lowers exactly A to Z, every
// byte value at every position.
func TestASCIILower(t *testing.T) {
	data := make([]byte, 0, 3*256)
	for i := range 3 * 256 {
		data = append(data, byte(i*7+i/256))
	}
	for off := range 9 {
		in := data[off:]
		got := asciiLower([]byte("x"), in)
		want := append([]byte("x"), in...)
		for i, c := range want {
			if 'A' <= c && c <= 'Z' {
				want[i] = c + 32
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("offset %d: asciiLower differs from the byte loop", off)
		}
	}
}
