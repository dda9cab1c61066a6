package mcp

import (
	"slices"
	"testing"
)

func TestFailures(t *testing.T) {
	var f Failures
	f.Note(Notice{Server: "b", Kind: NoticeFailed, Text: "first"})
	f.Note(Notice{Server: "b", Kind: NoticeFailed, Text: "again"})
	f.Note(Notice{Server: "a", Kind: NoticeExited, Text: "exited"})
	f.Note(Notice{Server: "c", Kind: NoticeFailed, Text: "down"})
	f.Note(Notice{Server: "c", Kind: NoticeStarted})
	f.Note(Notice{Server: "d", Kind: NoticePromptsChanged})
	want := []string{"MCP server a: exited", "MCP server b: again"}
	if got := f.Take(); !slices.Equal(got, want) {
		t.Errorf("Take = %q, want %q", got, want)
	}
	if got := f.Take(); len(got) != 0 {
		t.Errorf("told twice: %q", got)
	}
}
