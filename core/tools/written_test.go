package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// editorFS is an editor that saves save(sent) (default: a blank line
// more); reads says whether its reads see its buffers.
type editorFS struct {
	memFS
	reads bool
	save  func(sent string) string
}

func (f *editorFS) WriteFile(ctx context.Context, abs string, data []byte, mode os.FileMode) error {
	saved := string(data) + "\n"
	if f.save != nil {
		saved = f.save(string(data))
	}
	return f.memFS.WriteFile(ctx, abs, []byte(saved), mode)
}

func (f *editorFS) ReadsEditor() bool { return f.reads }

// TestCheckWritten: a file the editor saved otherwise than sent is read
// back when reads go through the editor: the result says how it differs
// and the next edit is not refused as stale (run fails the test on a
// refusal). Without such reads nothing is read back (the disk may lag the
// editor's buffer).
func TestCheckWritten(t *testing.T) {
	for _, reads := range []bool{true, false} {
		ws := newWS(t, map[string]string{"f.txt": "one\n"})
		abs := filepath.Join(ws.Root(), "f.txt")
		ws.SetFS(&editorFS{memFS: memFS{files: map[string]string{abs: "one\n"}}, reads: reads})
		r := run(t, ws, "edit", m{"path": "f.txt", "old_string": "one", "new_string": "two"})
		said := strings.Contains(r.Output, "The editor saved f.txt otherwise than sent")
		if r.IsError || said != reads {
			t.Errorf("reads %v: the result is %q", reads, r.Output)
		}
		if !reads {
			continue
		}
		if again := run(t, ws, "edit", m{"path": "f.txt", "old_string": "two", "new_string": "three"}); again.IsError {
			t.Errorf("the next edit's result is %q", again.Output)
		}
	}
}

// TestCheckWrittenCut: a file rewritten whole on save (a formatter) gets a
// difference cut to size, saying so.
func TestCheckWrittenCut(t *testing.T) {
	ws := newWS(t, map[string]string{"f.txt": "one\n"})
	abs := filepath.Join(ws.Root(), "f.txt")
	long := strings.Repeat("formatted line\n", 2000)
	ws.SetFS(&editorFS{memFS: memFS{files: map[string]string{abs: "one\n"}}, reads: true, save: func(string) string { return long }})
	r := run(t, ws, "edit", m{"path": "f.txt", "old_string": "one", "new_string": "two"})
	if !strings.Contains(r.Output, "(the difference is cut at") || len(r.Output) > maxWrittenDiff+1000 {
		t.Errorf("the result (%d bytes) ends %q", len(r.Output), r.Output[max(0, len(r.Output)-200):])
	}
}
