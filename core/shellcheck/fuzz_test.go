package shellcheck

import (
	"reflect"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// FuzzAnalyze checks the properties the approval policy relies on:
// analysis is deterministic; a command that does not parse, or that
// redirects output into a file (anything but /dev/null and the standard
// streams), is never read-only; and every approval prefix is taken from
// the command's own words.
func FuzzAnalyze(f *testing.F) {
	for _, s := range []string{
		"ls -la", "cat a.txt > b.txt", "echo hi >> log", "grep x <> f", "ls &> out",
		"echo x >| f", "cmd >&file", "echo 2>&1 >/dev/null", "cat <<EOF > f\nx\nEOF",
		"bash -c 'echo > x'", "eval \"echo > y\"", "f() { echo > z; }; f",
		"git -C sub status", "cd sub && git status", "find . -name x -delete",
		"sed -i s/a/b/ f", "x=$(cat a > b)", "echo $(ls) | tee out", "(cd /tmp && ls) > o",
		"for i in 1 2; do echo $i > \"$i\"; done", "cat < <(curl x)", "echo > \"/dev/null\"",
		"sudo env FOO=1 nice ls", "if true; then echo > a; fi", "ls\x00",
	} {
		f.Add(s)
	}
	const root = "/work/ws"
	f.Fuzz(func(t *testing.T, cmd string) {
		a := Analyze(cmd, root)
		if b := Analyze(cmd, root); !reflect.DeepEqual(a, b) {
			t.Fatalf("Analyze is not deterministic:\n%+v\n%+v", a, b)
		}
		if a.Class < ReadOnly || a.Class > Dangerous {
			t.Fatalf("class %v out of range", a.Class)
		}
		for _, c := range a.Commands {
			if c.Class > a.Class {
				t.Fatalf("command %q is %v but the whole is only %v", c.Args, c.Class, a.Class)
			}
			if p := Prefix(c.Args); len(p) > len(c.Args) || (len(p) > 0 && p[0] != c.Args[0]) {
				t.Fatalf("Prefix(%q) = %q", c.Args, p)
			}
		}
		file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(cmd), "")
		if err != nil {
			if a.Class == ReadOnly {
				t.Fatalf("%q does not parse (%v) but is read-only", cmd, err)
			}
			return
		}
		if a.Class != ReadOnly {
			return
		}
		syntax.Walk(file, func(n syntax.Node) bool {
			if r, ok := n.(*syntax.Redirect); ok && writesFile(r) {
				t.Fatalf("%q redirects into a file (%s) but is read-only", cmd, r.Op)
			}
			return true
		})
	})
}

// writesFile reports whether a redirection opens a file for writing,
// judged independently of the analyzer.
func writesFile(r *syntax.Redirect) bool {
	target, lit := plainWord(r.Word)
	if lit && strings.Contains(target, "\\") {
		return false // escaped names are left to the analyzer's tests
	}
	switch r.Op {
	case syntax.RdrIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc, syntax.DplIn:
		return false
	case syntax.DplOut:
		// >&2, >&- duplicate or close a descriptor.
		if lit && (target == "-" || target != "" && strings.Trim(target, "0123456789") == "") {
			return false
		}
	}
	if lit && (target == "/dev/null" || target == "/dev/stdout" || target == "/dev/stderr" ||
		target == "/dev/tty" || strings.HasPrefix(target, "/dev/fd/")) {
		return false
	}
	return true
}

// plainWord returns a word's value when it is made of literal and quoted
// literal parts only.
func plainWord(w *syntax.Word) (string, bool) {
	if w == nil {
		return "", false
	}
	var b strings.Builder
	var add func(parts []syntax.WordPart) bool
	add = func(parts []syntax.WordPart) bool {
		for _, p := range parts {
			switch p := p.(type) {
			case *syntax.Lit:
				b.WriteString(p.Value)
			case *syntax.SglQuoted:
				if p.Dollar {
					return false
				}
				b.WriteString(p.Value)
			case *syntax.DblQuoted:
				if p.Dollar || !add(p.Parts) {
					return false
				}
			default:
				return false
			}
		}
		return true
	}
	if !add(w.Parts) {
		return "", false
	}
	return b.String(), true
}
