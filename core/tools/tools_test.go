package tools

import (
	"context"
	"encoding/json"

	"github.com/coder-nvim/coder-nvim/core/hostpath"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// newWS makes a workspace in a temp dir holding files (path -> content).
func newWS(t *testing.T, files map[string]string) *Workspace {
	t.Helper()
	dir := t.TempDir()
	for p, content := range files {
		writeFile(t, filepath.Join(dir, p), content)
	}
	ws, err := NewWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

func writeFile(t *testing.T, abs, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(abs, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, ws *Workspace, rel string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(ws.Root(), rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func tool(t *testing.T, name string) Tool {
	t.Helper()
	for _, tl := range Builtins(hostpath.Resolve(os.Getenv("PATH"), "")) {
		if tl.Spec().Function.Name == name {
			return tl
		}
	}
	t.Fatalf("no tool %s", name)
	return nil
}

func argsJSON(t *testing.T, args any) json.RawMessage {
	t.Helper()
	if s, ok := args.(string); ok {
		return json.RawMessage(s)
	}
	b, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func prepare(t *testing.T, ws *Workspace, name string, args any) (*Invocation, error) {
	t.Helper()
	return tool(t, name).Prepare(context.Background(), ws, argsJSON(t, args))
}

// run prepares and runs a call that must prepare fine.
func run(t *testing.T, ws *Workspace, name string, args any) Result {
	t.Helper()
	inv, err := prepare(t, ws, name, args)
	if err != nil {
		t.Fatalf("%s %v: prepare: %v", name, args, err)
	}
	return inv.Run(context.Background())
}

type m = map[string]any

func TestSpecs(t *testing.T) {
	specs := Specs(Builtins(hostpath.Resolve(os.Getenv("PATH"), "")))
	var names []string
	valid := regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
	for _, s := range specs {
		names = append(names, s.Function.Name)
		if !valid.MatchString(s.Function.Name) || s.Type != "function" {
			t.Errorf("bad spec %+v", s)
		}
		var schema struct {
			Type       string         `json:"type"`
			Properties map[string]any `json:"properties"`
		}
		if err := json.Unmarshal(s.Function.Parameters, &schema); err != nil || schema.Type != "object" || len(schema.Properties) == 0 {
			t.Errorf("%s: bad schema %s (%v)", s.Function.Name, s.Function.Parameters, err)
		}
	}
	want := []string{"read", "write", "edit", "patch", "bash", "ls", "glob", "grep"}
	if !slices.Equal(names, want) {
		t.Errorf("names %v, want %v", names, want)
	}
	b, err := json.Marshal(specs)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) >= 6000 {
		t.Errorf("tool specs are %d chars of JSON, budget 6000", len(b))
	}
	kinds := map[string]Kind{"read": KindRead, "write": KindEdit, "edit": KindEdit, "patch": KindEdit, "bash": KindExecute, "ls": KindRead, "glob": KindSearch, "grep": KindSearch}
	for _, tl := range Builtins(hostpath.Resolve(os.Getenv("PATH"), "")) {
		if k := kinds[tl.Spec().Function.Name]; tl.Kind() != k {
			t.Errorf("%s kind %s, want %s", tl.Spec().Function.Name, tl.Kind(), k)
		}
	}
}

func TestBadArguments(t *testing.T) {
	ws := newWS(t, map[string]string{"a.txt": "a\n"})
	tests := []struct {
		tool string
		args any
		want string
	}{
		{"read", `{"path": "a.txt"`, "not valid JSON"},
		{"read", `[1,2]`, "must be a JSON object"},
		{"read", m{}, `missing properties: ["path"]`},
		{"read", m{"path": 3}, `argument "path"`},
		{"read", m{"path": "a.txt", "offset": "ten"}, `argument "offset"`},
		{"read", m{"path": "a.txt", "offset": 1.5}, `argument "offset"`},
		{"read", m{"path": "a.txt", "offset": -1}, "must not be negative"},
		{"read", `{"path": "a.txt", "offset": 1e40}`, `argument "offset": JSON number 1e40 is out of range`},
		{"read", m{"path": "a.txt", "bogus": 1}, "bogus"},
		{"write", m{"path": "a.txt"}, `missing properties: ["content"]`},
		{"edit", m{"path": "a.txt", "old_string": "a"}, `missing properties: ["new_string"]`},
		{"edit", m{"path": "a.txt", "old_string": "a", "new_string": "b", "replace_all": "yes"}, `argument "replace_all"`},
		{"patch", m{"patch": 42}, `argument "patch"`},
		{"patch", m{"patch": "hello"}, "invalid patch: the first line"},
		{"bash", m{}, `missing properties: ["command"]`},
		{"bash", m{"command": "  "}, "command is empty"},
		{"bash", m{"command": "true", "timeout_ms": 700000}, "over the maximum"},
		{"bash", m{"command": "true", "timeout_ms": -5}, "must be positive"},
		{"glob", m{}, `missing properties: ["pattern"]`},
		{"glob", m{"pattern": "[a"}, "not a valid glob"},
		{"grep", m{"pattern": "("}, "not a valid Go regular expression"},
		{"grep", m{"pattern": "x", "glob": "[z"}, "not a valid glob"},
		{"ls", m{"path": "a.txt"}, "use read"},
	}
	for _, tt := range tests {
		_, err := prepare(t, ws, tt.tool, tt.args)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s %v: error %v, want it to contain %q", tt.tool, tt.args, err, tt.want)
		}
		if err != nil && (strings.Contains(err.Error(), "Go struct") || strings.Contains(err.Error(), "Go value") || strings.Contains(err.Error(), "of type")) {
			t.Errorf("%s %v: error %q leaks Go internals", tt.tool, tt.args, err)
		}
	}
	// Empty arguments count as {}.
	if _, err := tool(t, "ls").Prepare(context.Background(), ws, nil); err != nil {
		t.Errorf("ls with no arguments: %v", err)
	}
}

func TestResolve(t *testing.T) {
	ws := newWS(t, map[string]string{"src/a.go": "package a\n", ".git/config": "[core]\n"})
	outside := t.TempDir()
	writeFile(t, filepath.Join(outside, "secret"), "s")
	root := ws.Root()
	mustLink := func(target, name string) {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	mustLink(outside, "out")
	mustLink(filepath.Join(root, "src"), "in")
	mustLink(filepath.Join(root, "nowhere"), "dangling")
	mustLink(".git", "gitlink")
	alias := filepath.Join(outside, "alias")
	if err := os.Symlink(root, alias); err != nil {
		t.Fatal(err)
	}

	good := []struct{ path, rel string }{
		{"src/a.go", "src/a.go"},
		{"./src/../src/a.go", "src/a.go"},
		{filepath.Join(root, "src/a.go"), "src/a.go"},
		{"in/a.go", "src/a.go"},
		{"new/dir/file.txt", "new/dir/file.txt"},
		{".", "."},
		{".gitignore", ".gitignore"},
		{filepath.Join(alias, "src/a.go"), "src/a.go"},
	}
	for _, g := range good {
		abs, rel, err := ws.Resolve(g.path)
		if err != nil || rel != g.rel || abs != filepath.Join(root, filepath.FromSlash(g.rel)) {
			t.Errorf("Resolve(%q) = %q, %q, %v; want rel %q", g.path, abs, rel, err, g.rel)
		}
	}
	bad := []struct{ path, want string }{
		{"", "empty"},
		{"../x", "outside the workspace"},
		{"src/../../x", "outside the workspace"},
		{"/etc/passwd", "outside the workspace"},
		{filepath.Join(outside, "secret"), "outside the workspace"},
		{filepath.Join(alias, ".git/config"), "leads into .git"},
		{"out/secret", "through a symlink"},
		{"out/newfile", "through a symlink"},
		{".git/config", "inside .git"},
		{".git", "inside .git"},
		{"sub/.git/HEAD", "inside .git"},
		{"gitlink/config", "leads into .git"},
		{"dangling", "does not exist"},
		{"a\x00b", "NUL"},
	}
	for _, b := range bad {
		_, _, err := ws.Resolve(b.path)
		if err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("Resolve(%q): error %v, want %q", b.path, err, b.want)
		}
	}
	// The tools refuse the same paths.
	for _, name := range []string{"read", "write", "edit"} {
		for _, p := range []string{"../x", "/etc/passwd", "out/secret", ".git/config"} {
			_, err := prepare(t, ws, name, m{"path": p, "content": "x", "old_string": "a", "new_string": "b"})
			if err == nil {
				t.Errorf("%s %s: not refused", name, p)
			}
		}
	}
	if _, err := prepare(t, ws, "patch", m{"patch": "*** Begin Patch\n*** Add File: ../evil\n+x\n*** End Patch"}); err == nil || !strings.Contains(err.Error(), "outside") {
		t.Errorf("patch escaping: %v", err)
	}
	if _, err := prepare(t, ws, "ls", m{"path": "out"}); err == nil {
		t.Errorf("ls through symlink out: not refused")
	}
}

func TestNewWorkspace(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	ws, err := NewWorkspace(link)
	if err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(dir)
	if ws.Root() != real {
		t.Errorf("root %s, want %s", ws.Root(), real)
	}
	writeFile(t, filepath.Join(dir, "f"), "x")
	if _, err := NewWorkspace(filepath.Join(dir, "f")); err == nil {
		t.Error("file as root accepted")
	}
	if _, err := NewWorkspace(filepath.Join(dir, "missing")); err == nil {
		t.Error("missing root accepted")
	}
}

func TestRead(t *testing.T) {
	var big strings.Builder
	for i := 1; i <= 3000; i++ {
		big.WriteString("line\n")
	}
	ws := newWS(t, map[string]string{
		"a.txt":     "alpha\nbeta\ngamma\n",
		"crlf.txt":  "one\r\ntwo\r\n",
		"noeol.txt": "x\ny",
		"empty.txt": "",
		"bin.dat":   "ab\x00cd",
		"big.txt":   big.String(),
		"long.txt":  strings.Repeat("é", 3000) + "\n",
		"wide.txt":  strings.Repeat(strings.Repeat("w", 1000)+"\n", 1000),
		"dir/x":     "x",
	})
	tests := []struct {
		args    m
		want    string // exact output unless contains is set
		has     []string
		isError bool
	}{
		{args: m{"path": "a.txt"}, want: "     1\talpha\n     2\tbeta\n     3\tgamma\n"},
		{args: m{"path": "a.txt", "offset": 2, "limit": 1}, has: []string{"     2\tbeta\n", "showing lines 2-2 of 3", "offset=3"}},
		{args: m{"path": "a.txt", "offset": 3}, want: "     3\tgamma\n"},
		// A huge limit must not overflow into a negative last line.
		{args: m{"path": "a.txt", "offset": 2, "limit": math.MaxInt}, want: "     2\tbeta\n     3\tgamma\n"},
		{args: m{"path": "crlf.txt"}, want: "     1\tone\n     2\ttwo\n"},
		{args: m{"path": "noeol.txt"}, want: "     1\tx\n     2\ty\n"},
		{args: m{"path": "empty.txt"}, want: "(empty file)"},
		{args: m{"path": "a.txt", "offset": 9}, has: []string{"past the end", "3 lines"}, isError: true},
		{args: m{"path": "bin.dat"}, has: []string{"binary file"}, isError: true},
		{args: m{"path": "big.txt"}, has: []string{"  2000\tline\n", "showing lines 1-2000 of 3000", "offset=2001"}},
		{args: m{"path": "long.txt"}, has: []string{"line cut, 6000 chars total", "long line(s) were cut"}},
		// 256 KiB of output at 1008 bytes per numbered line: 260 lines.
		{args: m{"path": "wide.txt"}, has: []string{"   260\tw", "showing lines 1-260 of 1000; call read with offset=261"}},
	}
	for _, tt := range tests {
		r := run(t, ws, "read", tt.args)
		if r.IsError != tt.isError {
			t.Errorf("read %v: IsError %v: %s", tt.args, r.IsError, r.Output)
		}
		if tt.want != "" && r.Output != tt.want {
			t.Errorf("read %v:\ngot  %q\nwant %q", tt.args, r.Output, tt.want)
		}
		for _, h := range tt.has {
			if !strings.Contains(r.Output, h) {
				t.Errorf("read %v: output %q lacks %q", tt.args, clipTest(r.Output), h)
			}
		}
		if strings.Contains(r.Output, "  2001\t") {
			t.Errorf("read %v: showed more than the default limit", tt.args)
		}
	}
	if r := run(t, ws, "read", m{"path": "long.txt"}); !strings.Contains(r.Output, strings.Repeat("é", 1000)) || strings.ContainsRune(r.Output, '\uFFFD') {
		t.Error("long line cut badly")
	}
	if inv, err := prepare(t, ws, "read", m{"path": "a.txt", "offset": 2, "limit": math.MaxInt}); err != nil || strings.Contains(inv.Title, "--") {
		t.Errorf("huge limit: title %q, %v", inv.Title, err)
	}
	for _, p := range []struct{ path, want string }{{"dir", "use ls"}, {"missing.txt", "does not exist"}} {
		if _, err := prepare(t, ws, "read", m{"path": p.path}); err == nil || !strings.Contains(err.Error(), p.want) {
			t.Errorf("read %s: %v, want %q", p.path, err, p.want)
		}
	}
}

func clipTest(s string) string {
	if len(s) > 300 {
		return s[:150] + " ... " + s[len(s)-150:]
	}
	return s
}

func TestWrite(t *testing.T) {
	ws := newWS(t, map[string]string{"exec.sh": "#!/bin/sh\necho hi\n"})
	if err := os.Chmod(filepath.Join(ws.Root(), "exec.sh"), 0o750); err != nil {
		t.Fatal(err)
	}

	// New file, parent directories created.
	r := run(t, ws, "write", m{"path": "deep/new/file.txt", "content": "hello\n"})
	if r.IsError || readFile(t, ws, "deep/new/file.txt") != "hello\n" {
		t.Fatalf("write new: %+v", r)
	}
	if !strings.Contains(r.Display, "+++ b/deep/new/file.txt") || r.Summary != "+1 -0 deep/new/file.txt" {
		t.Errorf("write new: display %q summary %q", r.Display, r.Summary)
	}
	if st, _ := os.Stat(filepath.Join(ws.Root(), "deep/new/file.txt")); st.Mode().Perm() != 0o644 {
		t.Errorf("new file mode %v", st.Mode())
	}

	// Existing file not read: refused.
	if _, err := prepare(t, ws, "write", m{"path": "exec.sh", "content": "x"}); err == nil || !strings.Contains(err.Error(), "read it first") {
		t.Fatalf("write unread existing file: %v", err)
	}
	run(t, ws, "read", m{"path": "exec.sh"})
	r = run(t, ws, "write", m{"path": "exec.sh", "content": "#!/bin/sh\necho bye\n"})
	if r.IsError || readFile(t, ws, "exec.sh") != "#!/bin/sh\necho bye\n" {
		t.Fatalf("write after read: %+v", r)
	}
	if st, _ := os.Stat(filepath.Join(ws.Root(), "exec.sh")); st.Mode().Perm() != 0o750 {
		t.Errorf("mode not kept: %v", st.Mode())
	}
	// Written by the agent counts as seen: it may write again.
	if r := run(t, ws, "write", m{"path": "exec.sh", "content": "v3\n"}); r.IsError {
		t.Fatalf("second write: %s", r.Output)
	}
	// Changed on disk since: refused.
	writeFile(t, filepath.Join(ws.Root(), "exec.sh"), "someone else\n")
	if _, err := prepare(t, ws, "write", m{"path": "exec.sh", "content": "v4\n"}); err == nil || !strings.Contains(err.Error(), "changed on disk") {
		t.Fatalf("stale write: %v", err)
	}
	if _, err := prepare(t, ws, "write", m{"path": "deep", "content": "x"}); err == nil || !strings.Contains(err.Error(), "directory") {
		t.Errorf("write over a directory: %v", err)
	}
}

func TestEdit(t *testing.T) {
	src := "func a() {\n\treturn 1\n}\n\nfunc b() {\n\treturn 1\n}\n"
	tests := []struct {
		name    string
		content string
		args    m
		want    string   // new content on success
		errHas  []string // prepare error otherwise
	}{
		{name: "unique", content: src, args: m{"old_string": "func b() {\n\treturn 1", "new_string": "func b() {\n\treturn 2"},
			want: strings.Replace(src, "b() {\n\treturn 1", "b() {\n\treturn 2", 1)},
		{name: "replace all", content: src, args: m{"old_string": "return 1", "new_string": "return 0", "replace_all": true},
			want: strings.ReplaceAll(src, "return 1", "return 0")},
		{name: "ambiguous", content: src, args: m{"old_string": "\treturn 1\n", "new_string": "\treturn 2\n"},
			errHas: []string{"found 2 times", "lines 2, 6", "replace_all"}},
		{name: "not found shows closest", content: src, args: m{"old_string": "func b() {\n    return 1\n}", "new_string": "x"},
			errHas: []string{"not found", "lines 5-7", "     5\tfunc b() {", "     6\t\treturn 1"}},
		{name: "identical", content: src, args: m{"old_string": "a", "new_string": "a"}, errHas: []string{"identical"}},
		{name: "empty old", content: src, args: m{"old_string": "", "new_string": "a"}, errHas: []string{"old_string is empty"}},
		{name: "crlf file", content: "a\r\nb\r\nc\r\n", args: m{"old_string": "a\nb\n", "new_string": "x\ny\n"}, want: "x\r\ny\r\nc\r\n"},
		{name: "binary", content: "a\x00b", args: m{"old_string": "a", "new_string": "b"}, errHas: []string{"binary"}},
	}
	for _, tt := range tests {
		ws := newWS(t, map[string]string{"f.go": tt.content})
		tt.args["path"] = "f.go"
		inv, err := prepare(t, ws, "edit", tt.args)
		if tt.errHas != nil {
			for _, h := range tt.errHas {
				if err == nil || !strings.Contains(err.Error(), h) {
					t.Errorf("%s: error %v, want %q", tt.name, err, h)
				}
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if r := inv.Run(context.Background()); r.IsError {
			t.Errorf("%s: %s", tt.name, r.Output)
		}
		if got := readFile(t, ws, "f.go"); got != tt.want {
			t.Errorf("%s: got %q want %q", tt.name, got, tt.want)
		}
	}
	ws := newWS(t, nil)
	if _, err := prepare(t, ws, "edit", m{"path": "nope.go", "old_string": "a", "new_string": "b"}); err == nil || !strings.Contains(err.Error(), "use write") {
		t.Errorf("edit missing file: %v", err)
	}
}

func TestStaleEditGuard(t *testing.T) {
	ws := newWS(t, map[string]string{"f.txt": "one\ntwo\n"})
	editArgs := m{"path": "f.txt", "old_string": "two", "new_string": "2"}

	run(t, ws, "read", m{"path": "f.txt"})
	writeFile(t, filepath.Join(ws.Root(), "f.txt"), "one\ntwo\nthree\n")
	for _, call := range []struct {
		tool string
		args m
	}{
		{"edit", editArgs},
		{"write", m{"path": "f.txt", "content": "x"}},
		{"patch", m{"patch": "*** Begin Patch\n*** Update File: f.txt\n-two\n+2\n*** End Patch"}},
		{"patch", m{"patch": "*** Begin Patch\n*** Delete File: f.txt\n*** End Patch"}},
	} {
		if _, err := prepare(t, ws, call.tool, call.args); err == nil || !strings.Contains(err.Error(), "changed on disk since you last read it") {
			t.Errorf("%s after outside change: %v", call.tool, err)
		}
	}
	// Reading again clears it; the agent's own edit keeps it clear.
	run(t, ws, "read", m{"path": "f.txt"})
	if r := run(t, ws, "edit", editArgs); r.IsError {
		t.Fatal(r.Output)
	}
	if r := run(t, ws, "edit", m{"path": "f.txt", "old_string": "three", "new_string": "3"}); r.IsError {
		t.Fatal(r.Output)
	}
	if got := readFile(t, ws, "f.txt"); got != "one\n2\n3\n" {
		t.Fatalf("got %q", got)
	}

	// A change on disk between Prepare and Run (during approval): refused at
	// Apply, nothing written.
	inv, err := prepare(t, ws, "edit", m{"path": "f.txt", "old_string": "one", "new_string": "1"})
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(ws.Root(), "f.txt"), "ONE\n")
	r := inv.Run(context.Background())
	if !r.IsError || !strings.Contains(r.Output, "changed on disk since it was read") {
		t.Fatalf("apply after outside change: %+v", r)
	}
	if got := readFile(t, ws, "f.txt"); got != "ONE\n" {
		t.Fatalf("file changed: %q", got)
	}
}

// The approval pipeline may change the proposed content; what is written and
// what the model is told follow the change.
func TestReviewedChange(t *testing.T) {
	ws := newWS(t, map[string]string{"f.txt": "a\nb\n"})
	inv, err := prepare(t, ws, "edit", m{"path": "f.txt", "old_string": "b", "new_string": "B"})
	if err != nil {
		t.Fatal(err)
	}
	inv.Changes[0].New = "a\nreviewed\n"
	r := inv.Run(context.Background())
	if r.IsError || readFile(t, ws, "f.txt") != "a\nreviewed\n" {
		t.Fatalf("%+v", r)
	}
	if !strings.Contains(r.Output, "The user edited your proposed change") || !strings.Contains(r.Output, "+reviewed") {
		t.Errorf("output %q", r.Output)
	}
	// The agent can keep editing the reviewed content.
	if r := run(t, ws, "edit", m{"path": "f.txt", "old_string": "reviewed", "new_string": "again"}); r.IsError {
		t.Error(r.Output)
	}
}

// memFS stands in for an ACP client's file system.
type memFS struct {
	files  map[string]string
	writes []string
}

func (f *memFS) ReadFile(_ context.Context, abs string) ([]byte, error) {
	c, ok := f.files[abs]
	if !ok {
		return nil, os.ErrNotExist
	}
	return []byte(c), nil
}

func (f *memFS) WriteFile(_ context.Context, abs string, data []byte, _ os.FileMode) error {
	f.files[abs] = string(data)
	f.writes = append(f.writes, abs)
	return nil
}

func TestFSOverride(t *testing.T) {
	ws := newWS(t, map[string]string{"f.txt": "on disk\n"})
	abs := filepath.Join(ws.Root(), "f.txt")
	mem := &memFS{files: map[string]string{abs: "in buffer\n"}}
	ws.SetFS(mem)
	if r := run(t, ws, "read", m{"path": "f.txt"}); r.Output != "     1\tin buffer\n" {
		t.Fatalf("read through FS: %q", r.Output)
	}
	if r := run(t, ws, "edit", m{"path": "f.txt", "old_string": "buffer", "new_string": "editor"}); r.IsError {
		t.Fatal(r.Output)
	}
	if mem.files[abs] != "in editor\n" || readFile(t, ws, "f.txt") != "on disk\n" || len(mem.writes) != 1 {
		t.Fatalf("write went to the wrong place: %+v", mem)
	}
}

func TestDiff(t *testing.T) {
	tests := []struct {
		c    FileChange
		has  []string
		stat [2]int
	}{
		{FileChange{Path: "n", Op: OpAdd, New: "a\nb\n"}, []string{"--- /dev/null\n+++ b/n\n", "+a\n+b\n"}, [2]int{2, 0}},
		{FileChange{Path: "d", Op: OpDelete, Old: "a\n"}, []string{"--- a/d\n+++ /dev/null\n", "-a\n"}, [2]int{0, 1}},
		{FileChange{Path: "u", Op: OpUpdate, Old: "a\nb\n", New: "a\nc\n"}, []string{"--- a/u\n+++ b/u\n", "-b\n+c\n"}, [2]int{1, 1}},
		{FileChange{Path: "m", MoveTo: "n", Op: OpUpdate, Old: "same\n", New: "same\n"}, []string{"--- a/m\n+++ b/n\n"}, [2]int{0, 0}},
		{FileChange{Path: "t", Op: OpUpdate, Old: "x\n", New: "+++ tricky\n--- also\n"}, []string{"++++ tricky\n"}, [2]int{2, 1}},
	}
	for _, tt := range tests {
		d := tt.c.Diff()
		for _, h := range tt.has {
			if !strings.Contains(d, h) {
				t.Errorf("%s diff %q lacks %q", tt.c.Path, d, h)
			}
		}
		if p, mi := diffStat(d); p != tt.stat[0] || mi != tt.stat[1] {
			t.Errorf("%s stat +%d -%d, want %v", tt.c.Path, p, mi, tt.stat)
		}
	}
}

func TestIsText(t *testing.T) {
	straddle := strings.Repeat("a", binarySniff-1) + "é and more"
	tests := []struct {
		name string
		data string
		want bool
	}{
		{"ascii", "hello\n", true},
		{"utf-8", "héllo 世界\n", true},
		{"a character the sniff cuts in two", straddle, true},
		{"NUL", "ab\x00cd", false},
		{"latin-1", "caf\xe9\n", false},
		{"invalid past the sniff", strings.Repeat("a", binarySniff) + "\xe9", true},
	}
	for _, tc := range tests {
		if got := IsText([]byte(tc.data)); got != tc.want {
			t.Errorf("%s: IsText = %v, want %v", tc.name, got, tc.want)
		}
	}
}
