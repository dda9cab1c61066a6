package patch

import (
	"errors"
	"strings"
	"testing"
)

// Seeds for both targets: the forms the parser accepts, plus near misses.
var fuzzPatches = []string{
	"*** Begin Patch\n*** Add File: new.txt\n+hello\n+world\n*** End Patch\n",
	"*** Begin Patch\n*** Delete File: old.txt\n*** End Patch",
	"*** Begin Patch\n*** Update File: a.go\n*** Move to: b.go\n@@ func main() {\n context\n-old\n+new\n@@\n-x\n+y\n*** End of File\n*** End Patch\n",
	"*** Begin Patch\n*** Update File: c.go\n first\n-a\n+b\n*** End Patch\n",
	"<<'EOF'\n*** Begin Patch\n*** Add File: x\n+a\nEOF",
	"*** Begin Patch\r\n*** Update File: x\r\n@@ a\r\n@@ b\r\n-c\r\n+d\r\n*** End Patch\r\n",
	"*** Begin Patch\n*** Update File: x\n\n-a\n+b\n*** End of File\n\n*** End Patch",
	"*** Begin Patch\n*** Update File: x\n*** Move to: x\n*** End Patch",
	"*** Begin Patch\n*** Update File: x\n@@\n*** End Patch",
	"*** Begin Patch\n*** Add File: ../../etc/passwd\n+root\n*** End Patch",
}

// FuzzParse checks that Parse never panics and that whatever it accepts is
// structurally sound: every section names a trimmed, unique path, an update
// changes something, every chunk has lines, and line numbers point into
// the patch text.
func FuzzParse(f *testing.F) {
	for _, p := range fuzzPatches {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, text string) {
		p, err := Parse(text)
		if err != nil {
			if p != nil {
				t.Fatalf("Parse returned a patch with error %v", err)
			}
			if err.Error() == "" {
				t.Fatal("empty error message")
			}
			return
		}
		if len(p.Files) == 0 {
			t.Fatal("Parse accepted a patch without files")
		}
		nlines := strings.Count(strings.ReplaceAll(text, "\r\n", "\n"), "\n") + 1
		seen := map[string]bool{}
		claim := func(path string) {
			if path == "" || path != strings.TrimSpace(path) {
				t.Fatalf("bad path %q", path)
			}
			if seen[path] {
				t.Fatalf("path %q appears twice", path)
			}
			seen[path] = true
		}
		for _, file := range p.Files {
			claim(file.Path)
			if file.MoveTo != "" {
				if file.Op != OpUpdate {
					t.Fatalf("%s %s has a move target", file.Op, file.Path)
				}
				claim(file.MoveTo)
			}
			if file.Line < 1 || file.Line > nlines {
				t.Fatalf("section line %d outside 1..%d", file.Line, nlines)
			}
			switch file.Op {
			case OpAdd, OpDelete:
				if len(file.Chunks) != 0 {
					t.Fatalf("%s %s has chunks", file.Op, file.Path)
				}
			case OpUpdate:
				if len(file.Chunks) == 0 && file.MoveTo == "" {
					t.Fatalf("update %s changes nothing", file.Path)
				}
			default:
				t.Fatalf("unknown op %q", file.Op)
			}
			for i, c := range file.Chunks {
				if len(c.Old)+len(c.New) == 0 {
					t.Fatalf("%s has no lines", c.Label(i))
				}
				if c.Line <= file.Line || c.Line > nlines {
					t.Fatalf("%s line %d outside %d..%d", c.Label(i), c.Line, file.Line+1, nlines)
				}
			}
		}
	})
}

// FuzzApply applies the update chunks of a fuzzed patch to fuzzed content.
// Apply must never panic, must fail only with a ChunkError naming one of
// the chunks, and chunks that only repeat context (Old == New) must give
// back the content byte for byte — including its final newline and, for
// files with one kind of line ending, that ending.
func FuzzApply(f *testing.F) {
	contents := []string{"", "\n", "a\nb\nc\n", "a\r\nb\r\nc\r\n", "no final newline", "x\n\n\ny\n", "“quoted” — text\n"}
	for i, p := range fuzzPatches {
		f.Add(contents[i%len(contents)], p)
	}
	f.Add("a\nb\nc\n", "*** Begin Patch\n*** Update File: f\n@@ a\n b\n c\n*** End Patch")
	f.Add("a\r\nb\r\n", "*** Begin Patch\n*** Update File: f\n a\n b\n*** End of File\n*** End Patch")
	f.Fuzz(func(t *testing.T, content, text string) {
		p, err := Parse(text)
		if err != nil {
			return
		}
		for _, file := range p.Files {
			if file.Op != OpUpdate || len(file.Chunks) == 0 {
				continue
			}
			got, err := Apply(content, file.Chunks)
			if err != nil {
				var ce *ChunkError
				if !errors.As(err, &ce) || ce.Index < 0 || ce.Index >= len(file.Chunks) {
					t.Fatalf("Apply error %v is not a ChunkError naming one of %d chunks", err, len(file.Chunks))
				}
				continue
			}
			if contextOnly(file.Chunks) && got != content {
				t.Fatalf("context-only chunks changed the content:\n got %q\nwant %q", got, content)
			}
		}
	})
}

func contextOnly(chunks []Chunk) bool {
	for _, c := range chunks {
		if strings.Join(c.Old, "\n") != strings.Join(c.New, "\n") || len(c.Old) != len(c.New) {
			return false
		}
	}
	return true
}

// TestLooseMatchKeepsContextLines: a chunk located by a loose pass
// (whitespace or punctuation folded) changes only its - and + lines; the
// context lines keep the file's text (found by FuzzApply).
func TestLooseMatchKeepsContextLines(t *testing.T) {
	tests := []struct{ content, want string }{
		{"\na\nb\nc", "\na\nb\nc"},
		{"x\n\tkeep()  \n\told()\nit's\n", "x\n\tkeep()  \n\tnew()\nit's\n"},
	}
	chunks := [][]Chunk{
		{{Old: []string{" a"}, New: []string{" a"}}},
		{{Old: []string{"  keep()", "  old()", "it’s"}, New: []string{"  keep()", "\tnew()", "it’s"}}},
	}
	for i, tt := range tests {
		got, err := Apply(tt.content, chunks[i])
		if err != nil || got != tt.want {
			t.Errorf("case %d: got %q, %v; want %q", i, got, err, tt.want)
		}
	}
}
