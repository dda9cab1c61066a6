package complexity

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzDetect checks Detect against its documented rules: the measurements
// are those of the trimmed input, the rule named is the first that holds
// (and none holds when the input is not complex), surrounding whitespace
// changes nothing, and adding text never makes a complex input simple
// through the length rule.
func FuzzDetect(f *testing.F) {
	for _, s := range []string{
		"", " \t\n　", "修复登录按钮", "fix the login button",
		"1. add login 2. add logout", "①登录②注册", "一、登录 二、注册", "(1) a (2) b", "v1.2 and 3.14",
		"add / edit / delete", "登录/注册/退出", "src/core/util", "2024/01/05", "a/b/c",
		"refactor it and then also stop", "重构并且优化接口", "a, b, c", "one，two。three",
		strings.Repeat("x", 39), strings.Repeat("中", 40), "\xff\xfe1.\xff2.",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		r := Detect(in)
		s := strings.TrimSpace(in)
		if r.Chars != utf8.RuneCountInString(s) || r.Keywords != CountKeywords(s) || r.Segments != CountSegments(s) {
			t.Fatalf("measurements %+v are not those of the trimmed input", r)
		}
		if r.Complex != (r.Rule != "") {
			t.Fatalf("Complex and Rule disagree: %+v", r)
		}
		enum := s != "" && HasEnumeration(s, nil)
		var want string
		switch {
		case s == "":
		case enum:
			want = "enumeration"
		case r.Chars >= MinChars:
			want = "length"
		case r.Keywords >= MinKeywords:
			want = "keywords"
		case r.Segments >= MinSegments:
			want = "segments"
		}
		if r.Rule != want {
			t.Fatalf("rule %q, want %q for %+v", r.Rule, want, r)
		}
		if again := Detect(" \n" + in + "\t "); again != r {
			t.Fatalf("surrounding whitespace changed the result: %+v vs %+v", again, r)
		}
		if long := Detect(in + " " + strings.Repeat("x", MinChars)); !long.Complex {
			t.Fatalf("%d more characters did not make it complex: %+v", MinChars, long)
		}
		if r.Segments > 0 && r.Segments > r.Chars {
			t.Fatalf("%d segments in %d characters", r.Segments, r.Chars)
		}
	})
}
