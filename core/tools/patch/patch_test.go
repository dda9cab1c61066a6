package patch

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestParseForms(t *testing.T) {
	text := `*** Begin Patch
*** Add File: new.txt
+hello
+world
*** Delete File: old.txt
*** Update File: a.go
*** Move to: b.go
@@ func main() {
 context
-old
+new
@@
-x
+y
*** End of File
*** Update File: c.go
 first chunk without header
-a
+b
*** End Patch
`
	p, err := Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	want := []File{
		{Op: OpAdd, Path: "new.txt", Add: "hello\nworld\n", Line: 2},
		{Op: OpDelete, Path: "old.txt", Line: 5},
		{Op: OpUpdate, Path: "a.go", MoveTo: "b.go", Line: 6, Chunks: []Chunk{
			{Context: "func main() {", Old: []string{"context", "old"}, New: []string{"context", "new"}, Kept: []int{0, -1}, Line: 8},
			{Old: []string{"x"}, New: []string{"y"}, Kept: []int{-1}, EOF: true, Line: 12},
		}},
		{Op: OpUpdate, Path: "c.go", Line: 16, Chunks: []Chunk{
			{Old: []string{"first chunk without header", "a"}, New: []string{"first chunk without header", "b"}, Kept: []int{0, -1}, Line: 17},
		}},
	}
	if !reflect.DeepEqual(p.Files, want) {
		t.Fatalf("got  %+v\nwant %+v", p.Files, want)
	}
}

func TestParseLenient(t *testing.T) {
	for name, text := range map[string]string{
		"crlf":      "*** Begin Patch\r\n*** Add File: x\r\n+a\r\n*** End Patch\r\n",
		"heredoc":   "<<'EOF'\n*** Begin Patch\n*** Add File: x\n+a\n*** End Patch\nEOF",
		"spaces":    "\n\n  *** Begin Patch\n*** Add File: x\n+a\n*** End Patch  \n\n",
		"empty add": "*** Begin Patch\n*** Add File: x\n+a\n\n*** End Patch",
	} {
		p, err := Parse(text)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if len(p.Files) != 1 || p.Files[0].Add != "a\n" {
			t.Errorf("%s: got %+v", name, p.Files)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"no begin", "*** Add File: x\n+a\n*** End Patch", "first line"},
		{"no end", "*** Begin Patch\n*** Add File: x\n+a", "last line"},
		{"empty", "*** Begin Patch\n*** End Patch", "changes no files"},
		{"bad header", "*** Begin Patch\n*** Frob File: x\n*** End Patch", `line 2: expected`},
		{"no path", "*** Begin Patch\n*** Delete File: \n*** End Patch", "needs a file path"},
		{"bad chunk line", "*** Begin Patch\n*** Update File: x\n@@\n-a\n?b\n*** End Patch", "line 5: chunk lines must start"},
		{"empty update", "*** Begin Patch\n*** Update File: x\n*** End Patch", "has no changes"},
		{"empty chunk", "*** Begin Patch\n*** Update File: x\n@@ foo\n*** End Patch", "has no lines"},
		{"duplicate", "*** Begin Patch\n*** Delete File: x\n*** Delete File: x\n*** End Patch", "more than once"},
		{"eof first", "*** Begin Patch\n*** Update File: x\n*** End of File\n*** End Patch", "must follow"},
	}
	for _, tt := range tests {
		_, err := Parse(tt.text)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want it to contain %q", tt.name, err, tt.want)
		}
	}
}

func TestApply(t *testing.T) {
	const src = "package main\n\nfunc a() {\n\treturn 1\n}\n\nfunc b() {\n\treturn 1\n}\n"
	tests := []struct {
		name    string
		content string
		chunks  []Chunk
		want    string
		wantErr string
	}{
		{
			name:    "exact",
			content: src,
			chunks:  []Chunk{{Old: []string{"func b() {", "\treturn 1"}, New: []string{"func b() {", "\treturn 2"}}},
			want:    strings.Replace(src, "b() {\n\treturn 1", "b() {\n\treturn 2", 1),
		},
		{
			name:    "context selects second occurrence",
			content: src,
			chunks:  []Chunk{{Context: "func b() {", Old: []string{"\treturn 1"}, New: []string{"\treturn 3"}}},
			want:    strings.Replace(src, "b() {\n\treturn 1", "b() {\n\treturn 3", 1),
		},
		{
			name:    "context repeated as first line",
			content: src,
			chunks:  []Chunk{{Context: "func b() {", Old: []string{"func b() {", "\treturn 1"}, New: []string{"func c() {", "\treturn 1"}}},
			want:    strings.Replace(src, "func b()", "func c()", 1),
		},
		{
			name:    "chunks in order",
			content: src,
			chunks: []Chunk{
				{Old: []string{"\treturn 1"}, New: []string{"\treturn 10"}},
				{Old: []string{"\treturn 1"}, New: []string{"\treturn 20"}},
			},
			want: "package main\n\nfunc a() {\n\treturn 10\n}\n\nfunc b() {\n\treturn 20\n}\n",
		},
		{
			name:    "trailing whitespace pass",
			content: "a  \nb\t\nc\n",
			chunks:  []Chunk{{Old: []string{"a", "b"}, New: []string{"A", "B"}}},
			want:    "A\nB\nc\n",
		},
		{
			name:    "surrounding whitespace pass",
			content: "if x {\n\t\tfoo()\n}\n",
			chunks:  []Chunk{{Old: []string{"  foo()"}, New: []string{"\t\tbar()"}}},
			want:    "if x {\n\t\tbar()\n}\n",
		},
		{
			name:    "unicode punctuation pass",
			content: "s := \"it’s – ok\"\u00a0\nx\n",
			chunks:  []Chunk{{Old: []string{`s := "it's - ok"`}, New: []string{`s := "fine"`}}},
			want:    "s := \"fine\"\nx\n",
		},
		{
			name:    "reverse: ascii file, curly patch",
			content: "say(\"hi\")\n",
			chunks:  []Chunk{{Old: []string{"say(“hi”)"}, New: []string{"say(\"bye\")"}}},
			want:    "say(\"bye\")\n",
		},
		{
			name:    "end of file prefers last occurrence",
			content: "x\ny\nx\n",
			chunks:  []Chunk{{Old: []string{"x"}, New: []string{"z"}, EOF: true}},
			want:    "x\ny\nz\n",
		},
		{
			name:    "pure addition without context appends",
			content: "a\nb\n",
			chunks:  []Chunk{{New: []string{"c"}}},
			want:    "a\nb\nc\n",
		},
		{
			name:    "pure addition after context line",
			content: "a\nb\n",
			chunks:  []Chunk{{Context: "a", New: []string{"a2"}}},
			want:    "a\na2\nb\n",
		},
		{
			name:    "trailing blank context line stands for end",
			content: "a\nb",
			chunks:  []Chunk{{Old: []string{"b", ""}, New: []string{"c", ""}}},
			want:    "a\nc",
		},
		{
			name:    "crlf kept",
			content: "a\r\nb\r\nc\r\n",
			chunks:  []Chunk{{Old: []string{"b"}, New: []string{"B", "B2"}}},
			want:    "a\r\nB\r\nB2\r\nc\r\n",
		},
		{
			name:    "delete lines",
			content: "a\nb\nc\n",
			chunks:  []Chunk{{Old: []string{"a", "b"}, New: []string{"a"}}},
			want:    "a\nc\n",
		},
		{
			name:    "empty file gets content",
			content: "",
			chunks:  []Chunk{{New: []string{"hello"}}},
			want:    "hello\n",
		},
		{
			name:    "not found",
			content: src,
			chunks:  []Chunk{{Old: []string{"func a() {"}, New: []string{"x"}}, {Context: "func b() {", Old: []string{"nope"}, New: []string{"x"}, Line: 9}},
			wantErr: "chunk 2 (@@ func b() {) (patch line 9): could not find these lines in the file after line 7:\n  nope",
		},
		{
			name:    "context not found",
			content: src,
			chunks:  []Chunk{{Context: "func zzz()", Old: []string{"x"}}},
			wantErr: `chunk 1 (@@ func zzz()) (patch line 0): could not find the context line "func zzz()"`,
		},
		{
			name:    "chunks out of order fail",
			content: "a\nb\n",
			chunks:  []Chunk{{Old: []string{"b"}, New: []string{"B"}}, {Old: []string{"a"}, New: []string{"A"}}},
			wantErr: "chunk 2",
		},
		{
			name:    "eof not at end",
			content: "a\nb\n",
			chunks:  []Chunk{{Old: []string{"a"}, New: []string{"A"}, EOF: true}},
			want:    "A\nb\n", // falls back to a normal search, like codex
		},
	}
	for _, tt := range tests {
		got, err := Apply(tt.content, tt.chunks)
		if tt.wantErr != "" {
			var ce *ChunkError
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.As(err, &ce) {
				t.Errorf("%s: error %v, want %q", tt.name, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if got != tt.want {
			t.Errorf("%s:\ngot  %q\nwant %q", tt.name, got, tt.want)
		}
	}
}

// TestParseThenApply runs a realistic model-written patch end to end.
func TestParseThenApply(t *testing.T) {
	p, err := Parse(`*** Begin Patch
*** Update File: main.go
@@ import (
 	"fmt"
+	"os"
 )
@@ func main() {
-	fmt.Println("hi")
+	fmt.Fprintln(os.Stderr, "hi")
 }
*** End Patch`)
	if err != nil {
		t.Fatal(err)
	}
	src := "package main\n\nimport (\n\t\"fmt\"\n)\n\nfunc main() {\n\tfmt.Println(\"hi\")\n}\n"
	got, err := Apply(src, p.Files[0].Chunks)
	if err != nil {
		t.Fatal(err)
	}
	want := "package main\n\nimport (\n\t\"fmt\"\n\t\"os\"\n)\n\nfunc main() {\n\tfmt.Fprintln(os.Stderr, \"hi\")\n}\n"
	if got != want {
		t.Fatalf("got %q\nwant %q", got, want)
	}
}

// bigFile returns a 10,000-line file and a 50-hunk patch touching it evenly.
func bigFile() (string, string) {
	var src, pt strings.Builder
	for i := range 10000 {
		fmt.Fprintf(&src, "line %d: some typical source text x := compute(%d)\n", i, i)
	}
	pt.WriteString("*** Begin Patch\n*** Update File: big.go\n")
	for h := range 50 {
		i := h*200 + 100
		fmt.Fprintf(&pt, "@@ line %d: some typical source text x := compute(%d)\n", i-3, i-3)
		for j := i - 2; j < i; j++ {
			fmt.Fprintf(&pt, " line %d: some typical source text x := compute(%d)\n", j, j)
		}
		fmt.Fprintf(&pt, "-line %d: some typical source text x := compute(%d)\n", i, i)
		fmt.Fprintf(&pt, "+line %d: changed\n+extra line\n", i)
		for j := i + 1; j < i+3; j++ {
			fmt.Fprintf(&pt, " line %d: some typical source text x := compute(%d)\n", j, j)
		}
	}
	pt.WriteString("*** End Patch\n")
	return src.String(), pt.String()
}

func TestBigPatch(t *testing.T) {
	src, text := bigFile()
	p, err := Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Apply(src, p.Files[0].Chunks)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(got, "changed\nextra line\n"); n != 50 {
		t.Fatalf("%d hunks applied, want 50", n)
	}
	if n := strings.Count(got, "\n"); n != 10050 {
		t.Fatalf("%d lines, want 10050", n)
	}
	if !strings.Contains(got, "line 4900: changed\n") {
		t.Fatal("last hunk missing")
	}
}

func BenchmarkApply50Hunks(b *testing.B) {
	src, text := bigFile()
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		p, err := Parse(text)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Apply(src, p.Files[0].Chunks); err != nil {
			b.Fatal(err)
		}
	}
}
