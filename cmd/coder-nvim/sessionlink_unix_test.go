//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
)

// TestExecSessionsNeverThroughALinkOut: a repository that ships .coder
// (or .coder/sessions) as a link to a directory outside it gets no
// session file, journal, lock or activity log written there; the turn
// still runs, the user is told once why nothing was saved, and exec
// exits 1 as for any session it could not save.
func TestExecSessionsNeverThroughALinkOut(t *testing.T) {
	bin := hostBinary(t)
	for _, link := range []string{".coder", ".coder/sessions"} {
		t.Run(link, func(t *testing.T) {
			srv := fakellm.New()
			defer srv.Close()
			dir, outside := gitRepo(t), t.TempDir()
			if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, link)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(outside, filepath.Join(dir, link)); err != nil {
				t.Fatal(err)
			}
			srv.Enqueue(fakellm.Reply{Content: "hello back"})
			r := execHost(t, bin, dir, srv.URL(), "hello")
			if r.code != 1 || !strings.Contains(r.stdout, "hello back") {
				t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
			}
			var written []string
			filepath.WalkDir(outside, func(p string, d os.DirEntry, err error) error {
				if err == nil && p != outside {
					written = append(written, p)
				}
				return nil
			})
			if len(written) > 0 {
				t.Errorf("written through the link: %v", written)
			}
			if n := strings.Count(r.stderr, "session not saved: "+filepath.Join(dir, ".coder", "sessions")+" leads out of the workspace"); n != 1 {
				t.Errorf("stderr says %d times why the session was not saved, want once:\n%s", n, r.stderr)
			}
		})
	}
}
