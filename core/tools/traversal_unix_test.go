//go:build !windows

package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestChangesNeverFollowLinksOut: a change whose paths were resolved (by
// Apply, again) while d was a directory, then d replaced by a link to an
// outside directory holding the same files (done here by the guard, the
// last thing before the writes, as a process in the workspace can do at
// that moment), is refused and leaves the outside directory as it was; a
// link inside the
// workspace that points inside still works, as a directory on the way and
// as the file itself.
func TestChangesNeverFollowLinksOut(t *testing.T) {
	patchOf := func(body string) m { return m{"patch": "*** Begin Patch\n" + body + "*** End Patch\n"} }
	tests := []struct {
		name string
		tool string
		args m
	}{
		{"write", "write", m{"path": "d/new.txt", "content": "model\n"}},
		{"edit", "edit", m{"path": "d/f.txt", "old_string": "old", "new_string": "model"}},
		{"patch update", "patch", patchOf("*** Update File: d/f.txt\n@@\n-old\n+model\n")},
		{"patch add", "patch", patchOf("*** Add File: d/new.txt\n+model\n")},
		{"patch delete", "patch", patchOf("*** Delete File: d/f.txt\n")},
		{"patch move", "patch", patchOf("*** Update File: d/f.txt\n*** Move to: d/moved.txt\n@@\n-old\n+model\n")},
		{"patch move into d", "patch", patchOf("*** Update File: top.txt\n*** Move to: d/moved.txt\n@@\n-old\n+model\n")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := newWS(t, map[string]string{"d/f.txt": "old\n", "top.txt": "old\n"})
			outside := t.TempDir()
			writeFile(t, filepath.Join(outside, "f.txt"), "old\n")
			inv, err := prepare(t, ws, tt.tool, tt.args)
			if err != nil {
				t.Fatalf("prepare: %v", err)
			}
			d := filepath.Join(ws.Root(), "d")
			swapped := false
			ws.SetGuard(func(context.Context, string) error {
				if !swapped {
					swapped = true
					if err := os.Rename(d, d+".real"); err != nil {
						return err
					}
					return os.Symlink(outside, d)
				}
				return nil
			})
			r := inv.Run(t.Context())
			if !r.IsError || !strings.Contains(r.Output, "out of the workspace") {
				t.Errorf("not refused with the reason: %q", r.Output)
			}
			ents, _ := os.ReadDir(outside)
			if len(ents) != 1 || readFile(t, ws, "d/f.txt") != "old\n" {
				t.Errorf("the outside directory changed: %v", ents)
			}
			if got := readFile(t, ws, "top.txt"); got != "old\n" {
				t.Errorf("top.txt is %q: the set was not all or nothing", got)
			}
		})
	}

	t.Run("links inside still work", func(t *testing.T) {
		ws := newWS(t, map[string]string{"real/y.txt": "old\n"})
		root := ws.Root()
		if err := os.Symlink("real", filepath.Join(root, "lnk")); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("real/y.txt", filepath.Join(root, "alias.txt")); err != nil {
			t.Fatal(err)
		}
		if r := run(t, ws, "write", m{"path": "lnk/x.txt", "content": "through\n"}); r.IsError {
			t.Fatalf("write through lnk: %s", r.Output)
		}
		if r := run(t, ws, "edit", m{"path": "alias.txt", "old_string": "old", "new_string": "new"}); r.IsError {
			t.Fatalf("edit through alias.txt: %s", r.Output)
		}
		if got := readFile(t, ws, "real/x.txt"); got != "through\n" {
			t.Errorf("real/x.txt is %q", got)
		}
		if got := readFile(t, ws, "real/y.txt"); got != "new\n" {
			t.Errorf("real/y.txt is %q", got)
		}
		if fi, err := os.Lstat(filepath.Join(root, "alias.txt")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("alias.txt is no longer a link: %v", err)
		}
	})
}
