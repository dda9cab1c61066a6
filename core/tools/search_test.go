package tools

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// searchFiles is a tree with ignored files at several levels.
var searchFiles = map[string]string{
	".gitignore":          "build/\n*.log\n/top.tmp\n!keep.log\n",
	"main.go":             "package main\n\nfunc main() { Hello() }\n",
	"lib/hello.go":        "package lib\n\nfunc Hello() {}\n",
	"lib/deep/x.go":       "package deep // Hello\n",
	"lib/top.tmp":         "Hello not anchored, kept\n",
	"top.tmp":             "Hello anchored, ignored\n",
	"build/out.go":        "package out // Hello\n",
	"debug.log":           "Hello log\n",
	"keep.log":            "Hello kept\n",
	"bin.dat":             "Hello\x00binary",
	"docs/readme.md":      "say hello\n",
	"vendor/.git/HEAD":    "Hello\n",
	"lib/deep/build/b.go": "package b // Hello\n",
}

// searchWorkspaces returns the same tree as a git repo and as a plain dir,
// each searched by the built-in search and, when rg is installed, by rg, so
// every listing and search path is tested against the same answers.
func searchWorkspaces(t *testing.T) map[string]*Workspace {
	out := map[string]*Workspace{}
	for kind, ws := range searchRepos(t) {
		builtin, err := NewWorkspace(ws.Root())
		if err != nil {
			t.Fatal(err)
		}
		builtin.noRipgrep = true
		out[kind+"/builtin"] = builtin
		if findRipgrep() == "" {
			t.Log("rg not installed; testing the built-in search only")
			continue
		}
		out[kind+"/rg"] = ws
	}
	return out
}

func searchRepos(t *testing.T) map[string]*Workspace {
	out := map[string]*Workspace{"plain": newWS(t, searchFiles)}
	if _, err := exec.LookPath("git"); err != nil {
		t.Log("git not installed; testing the walk only")
		return out
	}
	ws := newWS(t, searchFiles)
	gitCmd := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = ws.Root()
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t", "GIT_CONFIG_GLOBAL=/dev/null")
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, b)
		}
	}
	gitCmd("init", "-q")
	gitCmd("add", "main.go", ".gitignore")
	gitCmd("commit", "-q", "-m", "init")
	// A committed file deleted from the work tree must not be listed.
	writeFile(t, filepath.Join(ws.Root(), "gone.go"), "package gone // Hello\n")
	gitCmd("add", "gone.go")
	os.Remove(filepath.Join(ws.Root(), "gone.go"))
	out["git"] = ws
	return out
}

func TestGlob(t *testing.T) {
	for kind, ws := range searchWorkspaces(t) {
		tests := []struct {
			args m
			want string
		}{
			{m{"pattern": "**/*.go"}, "lib/deep/x.go\nlib/hello.go\nmain.go"},
			{m{"pattern": "*.go", "path": "lib"}, "lib/hello.go"},
			{m{"pattern": "**/*.go", "path": "lib"}, "lib/deep/x.go\nlib/hello.go"},
			{m{"pattern": "**/*.log"}, "keep.log"},
			{m{"pattern": "**/*.tmp"}, "lib/top.tmp"},
			{m{"pattern": "**/HEAD"}, "no files match"},
			{m{"pattern": ws.Root() + "/lib/*.go"}, "lib/hello.go"},
			{m{"pattern": "*.rs"}, "no files match (the pattern matches names in . only; use **/*.rs to search subdirectories)"},
		}
		for _, tt := range tests {
			r := run(t, ws, "glob", tt.args)
			if r.Output != tt.want {
				t.Errorf("%s: glob %v:\ngot  %q\nwant %q", kind, tt.args, r.Output, tt.want)
			}
		}
	}
}

func TestGrep(t *testing.T) {
	for kind, ws := range searchWorkspaces(t) {
		tests := []struct {
			args m
			want string
		}{
			{m{"pattern": "Hello"}, "keep.log:1:Hello kept\nlib/deep/x.go:1:package deep // Hello\nlib/hello.go:3:func Hello() {}\nlib/top.tmp:1:Hello not anchored, kept\nmain.go:3:func main() { Hello() }"},
			{m{"pattern": "Hello", "glob": "*.go", "path": "lib"}, "lib/deep/x.go:1:package deep // Hello\nlib/hello.go:3:func Hello() {}"},
			{m{"pattern": "Hello", "glob": "lib/*.go"}, "lib/hello.go:3:func Hello() {}"},
			{m{"pattern": `(?i)^say HELLO$`}, "docs/readme.md:1:say hello"},
			{m{"pattern": "Hello", "path": "main.go"}, "main.go:3:func main() { Hello() }"},
			{m{"pattern": "Hello", "path": "bin.dat"}, "no matches"},
			{m{"pattern": "zzz"}, "no matches"},
		}
		for _, tt := range tests {
			r := run(t, ws, "grep", tt.args)
			if r.Output != tt.want {
				t.Errorf("%s: grep %v:\ngot  %q\nwant %q", kind, tt.args, r.Output, tt.want)
			}
		}
	}
}

// bothSearches returns ws and a twin of it that uses the built-in search
// (only the built-in one when rg is not installed).
func bothSearches(t *testing.T, ws *Workspace) map[string]*Workspace {
	builtin, err := NewWorkspace(ws.Root())
	if err != nil {
		t.Fatal(err)
	}
	builtin.noRipgrep = true
	out := map[string]*Workspace{"builtin": builtin}
	if findRipgrep() != "" {
		out["rg"] = ws
	}
	return out
}

func TestGrepCap(t *testing.T) {
	files := map[string]string{"many.txt": strings.Repeat("match\n", 500)}
	for i := range 30 {
		files["more/f"+strconv.Itoa(i)] = "match\n"
	}
	for kind, ws := range bothSearches(t, newWS(t, files)) {
		r := run(t, ws, "grep", m{"pattern": "match"})
		if n := strings.Count(r.Output, "many.txt:"); n != maxGrepMatches {
			t.Errorf("%s: %d matches shown, want %d", kind, n, maxGrepMatches)
		}
		if !strings.Contains(r.Output, "[stopped at 200 matches") || !strings.Contains(r.Output, "many.txt:200:match") {
			t.Errorf("%s: cap not reported: ...%s", kind, r.Output[len(r.Output)-100:])
		}
	}
}

// TestGrepSkipsLargeFiles: a file over maxGrepFileSize is not searched,
// through rg as by the built-in search, and rg is not asked to stat every
// file for it (--max-filesize cost a quarter of its CPU time on 40,000
// files): the size of the files that matched is checked afterwards.
func TestGrepSkipsLargeFiles(t *testing.T) {
	large := strings.Repeat("filler line\n", maxGrepFileSize/12) + "match in the large file\n"
	exact := strings.Repeat("x", maxGrepFileSize-len("match at the limit\n")) + "\nmatch at the limit\n"
	files := map[string]string{"a/large.txt": large, "b/exact.txt": exact[1:], "c/small.txt": "match in the small file\n"}
	for kind, ws := range bothSearches(t, newWS(t, files)) {
		r := run(t, ws, "grep", m{"pattern": "match (in|at)"})
		if want := "b/exact.txt:2:match at the limit\nc/small.txt:1:match in the small file"; r.Output != want {
			t.Errorf("%s: got %q, want %q", kind, r.Output, want)
		}
	}
	for _, a := range rgGrepArgs("x", "") {
		if a == "--max-filesize" {
			t.Errorf("rg is passed --max-filesize: a stat of every file it walks")
		}
	}
}

func TestGlobCap(t *testing.T) {
	files := map[string]string{}
	for i := range maxGlobResults + 10 {
		files["d/f"+strconv.Itoa(i)] = ""
	}
	for kind, ws := range bothSearches(t, newWS(t, files)) {
		r := run(t, ws, "glob", m{"pattern": "d/*"})
		if !strings.Contains(r.Output, "[showing 500 of 510 matches") {
			t.Errorf("%s: cap not reported: %q", kind, r.Output[len(r.Output)-80:])
		}
	}
}

// A listing that stops at its limit says so in every search tool.
func TestListingCapIsStated(t *testing.T) {
	files := map[string]string{}
	for i := range 40 {
		files["d/f"+strconv.Itoa(i)+".txt"] = "needle\n"
	}
	for kind, ws := range bothSearches(t, newWS(t, files)) {
		ws.listed = 25
		want := "[the listing stopped at 25 files"
		if r := run(t, ws, "glob", m{"pattern": "**/*.txt"}); !strings.Contains(r.Output, want) {
			t.Errorf("%s: glob: cap not stated: %q", kind, r.Output)
		}
		if kind == "rg" {
			continue // rg greps without a listing
		}
		if r := run(t, ws, "grep", m{"pattern": "needle"}); !strings.Contains(r.Output, want) {
			t.Errorf("%s: grep: cap not stated: %q", kind, r.Output)
		}
	}
}

// The built-in search rules files out with one pass over the whole file;
// that must never hide a line the line-by-line match finds.
func TestGrepPrefilterKeepsLineMatches(t *testing.T) {
	ws := newWS(t, map[string]string{
		"crlf.txt":  "first\r\nsecond line end\r\n",
		"mid.txt":   "a\nstart here\nb\n",
		"last.txt":  "x\nno newline at end",
		"class.txt": "one\ntwo\n",
	})
	tests := []struct {
		pattern, want string
	}{
		{`line end$`, "crlf.txt:2:second line end"},
		{`^start`, "mid.txt:2:start here"},
		{`\Astart here\z`, "mid.txt:2:start here"},
		{`(?i)^SECOND.*END$`, "crlf.txt:2:second line end"},
		{`(?i)NO NEWLINE at end$`, "last.txt:2:no newline at end"},
		{`^two$`, "class.txt:2:two"},
	}
	for kind, ws := range bothSearches(t, ws) {
		for _, tt := range tests {
			if r := run(t, ws, "grep", m{"pattern": tt.pattern}); r.Output != tt.want {
				t.Errorf("%s: grep %q = %q, want %q", kind, tt.pattern, r.Output, tt.want)
			}
		}
	}
}

// A Go pattern that rg's engine refuses is searched by the built-in search.
func TestGrepFallsBackWhenRgRefusesThePattern(t *testing.T) {
	if findRipgrep() == "" {
		t.Skip("rg not installed")
	}
	ws := newWS(t, map[string]string{"a.txt": "x a.b y\n", "b.txt": "x acb y\n"})
	if r := run(t, ws, "grep", m{"pattern": `\Qa.b\E`}); r.Output != "a.txt:1:x a.b y" {
		t.Errorf("got %q", r.Output)
	}
}

func TestLs(t *testing.T) {
	ws := newWS(t, map[string]string{"b.txt": "", "a/x": "", ".git/HEAD": "", ".hidden": "", "z/y/w": ""})
	if err := os.Symlink(filepath.Join(ws.Root(), "z"), filepath.Join(ws.Root(), "zlink")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args m
		want string
	}{
		{m{}, ".hidden\na/\nb.txt\nz/\nzlink/"},
		{m{"path": "z"}, "y/"},
		{m{"path": "z/y/"}, "w"},
	}
	for _, tt := range tests {
		if r := run(t, ws, "ls", tt.args); r.Output != tt.want {
			t.Errorf("ls %v: %q, want %q", tt.args, r.Output, tt.want)
		}
	}
	os.MkdirAll(filepath.Join(ws.Root(), "empty"), 0o755)
	if r := run(t, ws, "ls", m{"path": "empty"}); r.Output != "(empty directory)" {
		t.Errorf("empty: %q", r.Output)
	}
	for _, p := range []string{".git", "..", "missing"} {
		if _, err := prepare(t, ws, "ls", m{"path": p}); err == nil {
			t.Errorf("ls %s accepted", p)
		}
	}
}

func TestIgnoreRules(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, ".gitignore"), "# comment\n\n*.o\n/dist\nnode_modules/\ndocs/*.tmp\n**/gen/**\n!important.o\n")
	rules := loadIgnore(filepath.Join(dir, ".gitignore"))
	tests := []struct {
		rel   string
		isDir bool
		want  bool
	}{
		{"a.o", false, true},
		{"src/a.o", false, true},
		{"important.o", false, false},
		{"dist", true, true},
		{"src/dist", true, false},
		{"node_modules", true, true},
		{"node_modules", false, false},
		{"docs/a.tmp", false, true},
		{"other/docs/a.tmp", false, false},
		{"x/gen/y.go", false, true},
		{"main.go", false, false},
	}
	for _, tt := range tests {
		if got := rules.ignored(tt.rel, tt.isDir); got != tt.want {
			t.Errorf("ignored(%q, dir=%v) = %v, want %v", tt.rel, tt.isDir, got, tt.want)
		}
	}
}
