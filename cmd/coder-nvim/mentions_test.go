package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
)

// TestExecMentions: exec attaches @path and #diff to the prompt, names
// each on stderr, and a path outside the workspace is refused.
func TestExecMentions(t *testing.T) {
	bin := hostBinary(t)
	srv := fakellm.New()
	defer srv.Close()
	dir := gitRepo(t)
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("NOTE-LINE\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv.Enqueue(fakellm.Reply{Content: "ok"})
	r := execHost(t, bin, dir, srv.URL(), "summarize @notes.txt #diff @../etc.txt")
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	msgs := srv.Requests()[0].Messages
	user := msgs[len(msgs)-1].Content
	for _, want := range []string{"[context @notes.txt · txt · 1 line]\n```txt\nNOTE-LINE\n```", "[context #diff · diff", "+NOTE-LINE", "[context @../etc.txt · not attached: ../etc.txt is outside the workspace"} {
		if !strings.Contains(user, want) {
			t.Errorf("the request lacks %q:\n%s", want, user)
		}
	}
	for _, want := range []string{"▸ @notes.txt (txt, 1 line)", "▸ #diff (diff,", "✗ @../etc.txt — not attached:"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
}
