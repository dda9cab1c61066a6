package complexity

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestDetect(t *testing.T) {
	zh39 := strings.Repeat("修复登录页面的按钮样式问题", 3)        // 13 runes ×3 = 39
	en39 := "Please fix the flaky test in parser now" // 39 runes
	tests := []struct {
		name  string
		in    string
		rule  string
		chars int // checked when > 0, guards the fixture itself
	}{
		{"empty", "", "", 0},
		{"blank", " \t\n　", "", 0},
		{"short zh", "修复登录按钮", "", 6},
		{"short en", "fix the login button", "", 20},

		// length boundary, multi-byte runes count as one
		{"zh 39", zh39, "", 39},
		{"zh 40", zh39 + "吧", "length", 40},
		{"en 39", en39, "", 39},
		{"en 40", en39 + "!", "length", 40},
		{"mixed 40", strings.Repeat("é", 20) + strings.Repeat("中", 20), "length", 40},
		{"trimmed to 39", "  \n" + en39 + " \t\n", "", 39},
		{"trimmed full-width space", "　" + zh39 + "　", "", 39},

		// keywords boundary
		{"zh 2 keywords", "重构并且改名", "", 0},
		{"zh 3 keywords", "重构并且优化接口", "keywords", 0},
		{"zh repeated keyword", "优化优化优化", "keywords", 0},
		{"en 2 keywords", "refactor it and then stop", "", 0},
		{"en 3 keywords", "refactor it and then also stop", "keywords", 0},
		{"en inflections", "Refactoring, migration", "", 0},
		{"en 3 inflections", "Refactoring migration optimise", "keywords", 0},
		{"en then inside word", "authenticate then authenticate", "", 0},
		{"en after that", "step one after that step two", "keywords", 0},

		// segments boundary, exactly the set ，。；、,\n
		{"zh 2 segments", "修复按钮，改文案", "", 0},
		{"zh 3 segments", "修复按钮，改文案；加测试", "segments", 0},
		{"enum comma 3", "改名、删除、新增", "segments", 0},
		{"en 2 segments", "fix a, fix b", "", 0},
		{"en 3 segments", "fix a, fix b\nfix c", "segments", 0},
		{"empty segments ignored", "fix a,, ,\n\nfix b。", "", 0},
		{"ascii semicolon is no separator", "fix a; fix b; fix c", "", 0},
		{"ascii period is no separator", "fix a. fix b. fix c", "", 0},

		// enumerations win before everything else
		{"seed numbered", "1. 登录 2. 注册 3. 退出", "enumeration", 0},
		{"numbered dot, two items", "1. a 2. b", "", 0},
		{"numbered dot", "1. a 2. b 3. c", "enumeration", 0},
		{"numbered restart", "1. a 1. b 2. c 3. d", "enumeration", 0},
		{"numbered out of order", "1. a 3. b 2. c", "", 0},
		{"numbered lines", "1.修复\n2.测试\n3.发布", "enumeration", 0},
		{"numbered paren", "do 1) x 2) y 3) z", "enumeration", 0},
		{"numbered zh comma", "1、登录 2、注册 3、退出", "enumeration", 0},
		{"numbered brackets", "(1)登录（2）注册(3)退出", "enumeration", 0},
		{"circled", "修复①登录②注册③退出", "enumeration", 0},
		{"circled two", "修复①登录②注册", "", 0},
		{"zh numerals", "一、登录 二、注册 三、退出", "enumeration", 0},
		{"numbered after colon", "fix:1. a 2. b 3. c", "enumeration", 0},
		{"only marker 1", "1. fix the button", "", 0},
		{"2 before 1", "2. a 1. b", "", 0},
		{"decimals", "set pi to 3.14 or 1.2", "", 0},
		{"versions", "bump v1. to v2.", "", 0},
		{"file names", "see 1.go and 2.go", "", 0},
		{"zh numeral inside word", "统一、规范二、", "", 0},
		{"slash list", "A/B/C", "enumeration", 0},
		{"slash list zh", "支持登录/注册/退出", "enumeration", 0},
		{"slash list full-width", "登录／注册／退出", "enumeration", 0},
		{"slash list mixed case", "test on Linux/macOS/Windows.", "enumeration", 0},
		{"slash list spaced", "add / edit / delete", "enumeration", 0},
		{"slash list lowercase", "add/edit/delete", "enumeration", 0},
		{"seed slash list", "A/B/C", "enumeration", 0},
		{"two items", "TCP/IP", "", 0},
		{"path with extension", "open src/a/b.go", "", 0},
		{"dotted path", "look in ./src/Core/Util", "", 0},
		{"path with dotted item", "edit pkg/v1.2/Util", "", 0},
		{"absolute path", "run /usr/bin/Env", "", 0},
		{"relative path", "run ./Scripts/Build/All", "", 0},
		{"home path", "edit ~/Config/Nvim/Init", "", 0},
		{"trailing slash", "list Src/Core/Util/", "", 0},
		{"url", "read https://x.io/A/B/C", "", 0},
		{"date", "due 2024/01/05", "", 0},
		{"windows path", `C:\A/B/C`, "", 0},
		{"enumeration beats length", "1. " + zh39 + " 2. x 3. y", "enumeration", 0},
		{"length beats keywords", zh39 + "重构迁移优化", "length", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.chars > 0 {
				if n := utf8.RuneCountInString(strings.TrimSpace(tc.in)); n != tc.chars {
					t.Fatalf("fixture has %d runes, want %d", n, tc.chars)
				}
			}
			got := Detect(tc.in)
			if got.Rule != tc.rule || got.Complex != (tc.rule != "") {
				t.Errorf("Detect(%q) = %+v, want rule %q", tc.in, got, tc.rule)
			}
			if tc.chars > 0 && got.Chars != tc.chars {
				t.Errorf("Chars = %d, want %d", got.Chars, tc.chars)
			}
		})
	}
}

func TestCounts(t *testing.T) {
	tests := []struct {
		in                 string
		keywords, segments int
	}{
		{"", 0, 0},
		{"并且同时另外分别步骤重构迁移优化", 8, 1},
		{"And then THEN also", 3, 1},
		{"a，b。c；d、e,f\ng", 0, 7},
		{"首先重构，然后迁移。", 3, 2},
	}
	for _, tc := range tests {
		got := Detect(tc.in)
		if got.Keywords != tc.keywords || got.Segments != tc.segments {
			t.Errorf("Detect(%q): keywords %d segments %d, want %d %d", tc.in, got.Keywords, got.Segments, tc.keywords, tc.segments)
		}
	}
}

func BenchmarkDetect(b *testing.B) {
	in := strings.Repeat("请重构 core/agent 并且迁移配置，然后优化 src/a/b.go 的性能。", 20)
	for b.Loop() {
		Detect(in)
	}
}

func TestSlashSpacing(t *testing.T) {
	for in, want := range map[string]bool{
		"run /usr/bin/Env":     false,
		"A / B / C":            true,
		"a / b / c":            true,
		"a /b/c":               false,
		"cd src/Core/Util now": true,
		"A//B/C":               false,
	} {
		if got := HasEnumeration(in, nil); got != want {
			t.Errorf("HasEnumeration(%q) = %v, want %v", in, got, want)
		}
	}
}

// TestExistingPathIsNoList: a chain that names a directory of the
// workspace is a path, whatever its case; the same words that name nothing
// there are a list.
func TestExistingPathIsNoList(t *testing.T) {
	isPath := func(p string) bool { return p == "src/Core/Util" || p == "src/core/util" }
	for in, want := range map[string]bool{
		"cd src/Core/Util now":       false,
		"look in src/core/util":      false,
		"add/edit/delete":            true,
		"cd src/Core/Util and A/B/C": true,
	} {
		if got := DetectIn(in, isPath).Rule == "enumeration"; got != want {
			t.Errorf("DetectIn(%q) enumeration = %v, want %v", in, got, want)
		}
	}
}
