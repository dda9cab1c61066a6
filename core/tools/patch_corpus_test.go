package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// absent marks a file that must not exist.
const absent = "\x00absent"

// TestPatchCodexCorpus runs the scenarios of codex's apply_patch tests
// (its fixture scenarios and library tests, ported, not copied) through the
// patch tool. Where we differ on purpose the case says so in diff; those
// differences are documented in :help coder-patch.
func TestPatchCodexCorpus(t *testing.T) {
	tests := []struct {
		name    string
		files   map[string]string
		patch   string // between *** Begin Patch and *** End Patch, unless it has its own
		want    map[string]string
		wantErr string
		diff    string // a deliberate difference from codex
	}{
		{name: "add file", patch: "*** Add File: bar.md\n+This is a new file\n+with two lines\n",
			want: map[string]string{"bar.md": "This is a new file\nwith two lines\n"}},
		{name: "multiple operations",
			files: map[string]string{"delete.txt": "obsolete\n", "modify.txt": "line1\nline2\n"},
			patch: "*** Add File: nested/new.txt\n+created\n*** Delete File: delete.txt\n*** Update File: modify.txt\n@@\n-line2\n+changed\n",
			want:  map[string]string{"nested/new.txt": "created\n", "delete.txt": absent, "modify.txt": "line1\nchanged\n"}},
		{name: "multiple chunks", files: map[string]string{"multi.txt": "line1\nline2\nline3\nline4\n"},
			patch: "*** Update File: multi.txt\n@@\n-line2\n+changed2\n@@\n-line4\n+changed4\n",
			want:  map[string]string{"multi.txt": "line1\nchanged2\nline3\nchanged4\n"}},
		{name: "move to a new directory", files: map[string]string{"old/name.txt": "old content\n", "old/other.txt": "unrelated\n"},
			patch: "*** Update File: old/name.txt\n*** Move to: renamed/dir/name.txt\n@@\n-old content\n+new content\n",
			want:  map[string]string{"old/name.txt": absent, "renamed/dir/name.txt": "new content\n", "old/other.txt": "unrelated\n"}},
		{name: "empty patch is rejected", files: map[string]string{"foo.txt": "stable\n"}, patch: "",
			wantErr: "changes no files", want: map[string]string{"foo.txt": "stable\n"}},
		{name: "missing context is rejected", files: map[string]string{"modify.txt": "line1\nline2\n"},
			patch:   "*** Update File: modify.txt\n@@\n-missing\n+changed\n",
			wantErr: "could not find", want: map[string]string{"modify.txt": "line1\nline2\n"}},
		{name: "deleting a missing file is rejected", patch: "*** Delete File: missing.txt\n", wantErr: "missing.txt"},
		{name: "empty update section is rejected", files: map[string]string{"foo.txt": "stable\n"},
			patch: "*** Update File: foo.txt\n", wantErr: "no changes", want: map[string]string{"foo.txt": "stable\n"}},
		{name: "update needs an existing file", patch: "*** Update File: missing.txt\n@@\n-a\n+b\n", wantErr: "missing.txt",
			want: map[string]string{"missing.txt": absent}},
		{name: "move onto an existing destination", diff: "codex overwrites the destination; we refuse",
			files: map[string]string{"old/name.txt": "from\n", "renamed/dir/name.txt": "existing\n"},
			patch: "*** Update File: old/name.txt\n*** Move to: renamed/dir/name.txt\n@@\n-from\n+new\n", wantErr: "already exists",
			want: map[string]string{"old/name.txt": "from\n", "renamed/dir/name.txt": "existing\n"}},
		{name: "add over an existing file", diff: "codex overwrites it; we refuse",
			files: map[string]string{"duplicate.txt": "old content\n"}, patch: "*** Add File: duplicate.txt\n+new content\n",
			wantErr: "already exists", want: map[string]string{"duplicate.txt": "old content\n"}},
		{name: "deleting a directory fails", files: map[string]string{"dir/foo.txt": "stay\n"}, patch: "*** Delete File: dir\n",
			wantErr: "dir", want: map[string]string{"dir/foo.txt": "stay\n"}},
		{name: "invalid section header", files: map[string]string{"foo.txt": "stable\n"}, patch: "*** Frobnicate File: foo.txt\n",
			wantErr: "expected", want: map[string]string{"foo.txt": "stable\n"}},
		{name: "missing final newline is kept", diff: "codex adds a final newline; we keep the file's",
			files: map[string]string{"no_newline.txt": "no newline at end"},
			patch: "*** Update File: no_newline.txt\n@@\n-no newline at end\n+first line\n+second line\n",
			want:  map[string]string{"no_newline.txt": "first line\nsecond line"}},
		{name: "failure after a good section changes nothing", diff: "codex keeps the sections applied before the failure; we apply all or nothing",
			patch:   "*** Add File: created.txt\n+hello\n*** Update File: missing.txt\n@@\n-old\n+new\n",
			wantErr: "missing.txt", want: map[string]string{"created.txt": absent}},
		{name: "pure addition chunk appends", files: map[string]string{"input.txt": "line1\nline2\n"},
			patch: "*** Update File: input.txt\n@@\n+added line 1\n+added line 2\n",
			want:  map[string]string{"input.txt": "line1\nline2\nadded line 1\nadded line 2\n"}},
		{name: "whitespace-padded section header", files: map[string]string{"foo.txt": "old\n"},
			patch: "  *** Update File: foo.txt\n@@\n-old\n+new\n", want: map[string]string{"foo.txt": "new\n"}},
		{name: "whitespace-padded patch markers", files: map[string]string{"file.txt": "one\n"},
			patch: " *** Begin Patch\n*** Update File: file.txt\n@@\n-one\n+two\n*** End Patch \n", want: map[string]string{"file.txt": "two\n"}},
		{name: "whitespace-padded marker lines", files: map[string]string{"file.txt": "one\n"},
			patch: "*** Begin Patch \n*** Update File: file.txt\n@@\n-one\n+two\n *** End Patch\n", want: map[string]string{"file.txt": "two\n"}},
		{name: "unicode lines", files: map[string]string{"foo.txt": "héllo wörld\n"},
			patch: "*** Update File: foo.txt\n@@\n-héllo wörld\n+こんにちは\n", want: map[string]string{"foo.txt": "こんにちは\n"}},
		{name: "delete file", files: map[string]string{"obsolete.txt": "gone\n", "keep.txt": "keep\n"},
			patch: "*** Delete File: obsolete.txt\n", want: map[string]string{"obsolete.txt": absent, "keep.txt": "keep\n"}},
		{name: "deletion-only update", files: map[string]string{"lines.txt": "line1\nline2\nline3\n"},
			patch: "*** Update File: lines.txt\n@@\n line1\n-line2\n line3\n", want: map[string]string{"lines.txt": "line1\nline3\n"}},
		{name: "end of file marker", files: map[string]string{"tail.txt": "first\nsecond\n"},
			patch: "*** Update File: tail.txt\n@@\n first\n-second\n+second updated\n*** End of File\n",
			want:  map[string]string{"tail.txt": "first\nsecond updated\n"}},
		{name: "blank line after end of file marker", files: map[string]string{"insert.txt": "foo\nbar\nbaz\n"},
			patch: "*** Update File: insert.txt\n@@\n+quux\n*** End of File\n\n",
			want:  map[string]string{"insert.txt": "foo\nbar\nbaz\nquux\n"}},
		{name: "blank lines around chunks", files: map[string]string{"f.txt": "a\nb\nc\n", "g.txt": "x\n"},
			patch: "*** Update File: f.txt\n\n@@\n-a\n+A\n@@\n-c\n+C\n*** End of File\n\n*** Update File: g.txt\n@@\n-x\n+y\n",
			want:  map[string]string{"f.txt": "A\nb\nC\n", "g.txt": "y\n"}},
		{name: "interleaved changes and an append at the end", files: map[string]string{"interleaved.txt": "a\nb\nc\nd\ne\nf\n"},
			patch: "*** Update File: interleaved.txt\n@@\n a\n-b\n+B\n@@\n c\n d\n-e\n+E\n@@\n f\n+g\n*** End of File\n",
			want:  map[string]string{"interleaved.txt": "a\nB\nc\nd\nE\nf\ng\n"}},
		{name: "pure addition then removal", files: map[string]string{"panic.txt": "line1\nline2\nline3\n"},
			patch: "*** Update File: panic.txt\n@@\n+after-context\n+second-line\n@@\n line1\n-line2\n-line3\n+line2-replacement\n",
			want:  map[string]string{"panic.txt": "line1\nline2-replacement\nafter-context\nsecond-line\n"}},
		{name: "ascii patch matches typographic punctuation", files: map[string]string{"unicode.py": "import asyncio  # local import \u2013 avoids top\u2011level dep\n"},
			patch: "*** Update File: unicode.py\n@@\n-import asyncio  # local import - avoids top-level dep\n+import asyncio  # HELLO\n",
			want:  map[string]string{"unicode.py": "import asyncio  # HELLO\n"}},
		{name: "first line replaced", files: map[string]string{"first.txt": "foo\nbar\nbaz\n"},
			patch: "*** Update File: first.txt\n@@\n-foo\n+FOO\n bar\n", want: map[string]string{"first.txt": "FOO\nbar\nbaz\n"}},
		{name: "last line replaced", files: map[string]string{"last.txt": "foo\nbar\nbaz\n"},
			patch: "*** Update File: last.txt\n@@\n foo\n bar\n-baz\n+BAZ\n", want: map[string]string{"last.txt": "foo\nbar\nBAZ\n"}},
		{name: "update without @@ line", files: map[string]string{"file2.py": "import foo\n"},
			patch: "*** Update File: file2.py\n import foo\n+bar\n", want: map[string]string{"file2.py": "import foo\nbar\n"}},
		{name: "CRLF file stays CRLF", files: map[string]string{"crlf.txt": "a\r\nb\r\nc\r\n"},
			patch: "*** Update File: crlf.txt\n@@\n a\n-b\n+B\n@@\n c\n+d\n*** End of File\n",
			want:  map[string]string{"crlf.txt": "a\r\nB\r\nc\r\nd\r\n"}},
		{name: "CRLF with a carriage return inside a line", files: map[string]string{"cr.txt": "foo\r\r\nbar\r\n"},
			patch: "*** Update File: cr.txt\n@@\n+BAZ\n*** End of File\n", want: map[string]string{"cr.txt": "foo\r\r\nbar\r\nBAZ\r\n"}},
		{name: "mixed endings: untouched lines keep theirs, new lines take their neighbour's",
			files: map[string]string{"mixed.txt": "lf1\ncrlf1\r\ncrlf2\r\nlf2\nlf3\n"},
			patch: "*** Update File: mixed.txt\n@@\n crlf1\n-crlf2\n+CRLF2\n+crlf3\n lf2\n",
			want:  map[string]string{"mixed.txt": "lf1\ncrlf1\r\nCRLF2\r\ncrlf3\r\nlf2\nlf3\n"}},
		{name: "codex: a replaced line keeps the replaced line's own ending", files: map[string]string{"mixed.txt": "one\r\ntwo\nthree\r\nfour\n"},
			patch: "*** Update File: mixed.txt\n@@\n one\n two\n-three\n+THREE\n four\n", want: map[string]string{"mixed.txt": "one\r\ntwo\nTHREE\r\nfour\n"}},
		{name: "codex: a kept context line keeps its own ending", files: map[string]string{"repeated_context.txt": "same\r\nsame\n"},
			patch: "*** Update File: repeated_context.txt\n@@\n-same\n same\n", want: map[string]string{"repeated_context.txt": "same\n"}},
		{name: "mixed endings: insertion at the top takes the first line's", files: map[string]string{"top.txt": "a\r\nb\nc\n"},
			patch: "*** Update File: top.txt\n@@\n+new\n a\n", want: map[string]string{"top.txt": "new\r\na\r\nb\nc\n"}},
		{name: "mixed endings without a final newline", files: map[string]string{"nofinal.txt": "a\r\nb\nc"},
			patch: "*** Update File: nofinal.txt\n@@\n c\n+d\n*** End of File\n", want: map[string]string{"nofinal.txt": "a\r\nb\nc\nd"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := newWS(t, tt.files)
			text := tt.patch
			if !strings.Contains(text, "Begin Patch") {
				text = "*** Begin Patch\n" + text + "*** End Patch\n"
			}
			inv, err := prepare(t, ws, "patch", map[string]any{"patch": text})
			if err == nil {
				if res := inv.Run(context.Background()); res.IsError {
					err = errorString(res.Output)
				}
			}
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("error: %v", err)
			case tt.wantErr != "" && err == nil:
				t.Fatalf("applied; want an error with %q", tt.wantErr)
			case tt.wantErr != "" && !strings.Contains(err.Error(), tt.wantErr):
				t.Errorf("error %q does not contain %q", err, tt.wantErr)
			}
			for p, want := range tt.want {
				data, err := os.ReadFile(filepath.Join(ws.Root(), p))
				switch {
				case want == absent && err == nil:
					t.Errorf("%s exists", p)
				case want != absent && err != nil:
					t.Errorf("%s: %v", p, err)
				case want != absent && string(data) != want:
					t.Errorf("%s = %q, want %q", p, data, want)
				}
			}
		})
	}
}
