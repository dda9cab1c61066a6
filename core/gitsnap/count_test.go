package gitsnap

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/testrepo"
)

// TestSnapshotGitProcesses counts the git processes of a session's
// snapshots: the first learns the repository (rev-parse, config) and
// every snapshot is then at most four (ls-files for the large files, add,
// write-tree, update-ref); one that finds the workspace unchanged reuses
// the snapshot it is given and writes no ref; comparing two equal
// snapshots runs nothing, two different ones one diff-tree.
func TestSnapshotGitProcesses(t *testing.T) {
	ctx := context.Background()
	for _, ignored := range []bool{false, true} {
		name := "store not ignored"
		if ignored {
			name = "store ignored"
		}
		t.Run(name, func(t *testing.T) {
			root := newRepo(t)
			writeFile(t, root, "a.txt", "one\n")
			if ignored {
				writeFile(t, root, ".gitignore", ".coder/\n")
			}
			commitAll(t, root)
			writeFile(t, root, ".coder/sessions/s.json", "{}\n")
			writeFile(t, root, "new.txt", "untracked\n")
			calls := testrepo.GitLog(t)
			g := NewRepo(root)
			opts := Options{MaxFileSize: 10 << 20}

			first, err := g.Snapshot(ctx, "first", opts)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := calls(), []string{"rev-parse", "config", "ls-files", "add", "write-tree", "update-ref"}; !slices.Equal(got, want) {
				t.Errorf("first snapshot ran git %v, want %v", got, want)
			}
			same, err := g.Snapshot(ctx, "same", Options{MaxFileSize: opts.MaxFileSize, Reuse: first})
			if err != nil {
				t.Fatal(err)
			}
			if same != first {
				t.Errorf("unchanged workspace: snapshot %s, want the reused %s", same, first)
			}
			if got := calls(); len(got) > 3 || slices.Contains(got, "update-ref") {
				t.Errorf("unchanged snapshot ran git %v, want at most ls-files, add, write-tree", got)
			}
			writeFile(t, root, "a.txt", "two\n")
			second, err := g.Snapshot(ctx, "second", Options{MaxFileSize: opts.MaxFileSize, Reuse: first})
			if err != nil {
				t.Fatal(err)
			}
			if second == first {
				t.Fatal("a changed workspace reused the earlier snapshot")
			}
			if got := calls(); len(got) > 4 {
				t.Errorf("snapshot ran %d git processes %v, want at most 4", len(got), got)
			}
			if ch, err := g.Changed(ctx, first, same); err != nil || len(ch) != 0 || len(calls()) != 0 {
				t.Errorf("Changed(equal snapshots) = %v, %v, or ran git", ch, err)
			}
			ch, err := g.Changed(ctx, first, second)
			if err != nil || !slices.Equal(ch, []string{"a.txt"}) {
				t.Errorf("Changed = %v, %v; want [a.txt]", ch, err)
			}
			if got := calls(); !slices.Equal(got, []string{"diff-tree"}) {
				t.Errorf("Changed ran git %v, want one diff-tree", got)
			}
			// The session store stays out, whether ignored or not.
			if out := gitT(t, root, "ls-tree", "-r", "--name-only", second); strings.Contains(out, ".coder") || !strings.Contains(out, "new.txt") {
				t.Errorf("snapshot holds:\n%s", out)
			}
			// The commit written in-process is one git reads.
			if out := gitT(t, root, "cat-file", "-p", second); !strings.Contains(out, "author coder-nvim <coder-nvim@localhost>") || !strings.Contains(out, "second") {
				t.Errorf("snapshot commit:\n%s", out)
			}
			gitT(t, root, "fsck", "--no-dangling")
		})
	}
}

// TestRepoRereadsChangedConfiguration: a Repo keeps the driver guard only
// while no configuration file changes; a filter the model adds to
// .git/config afterwards is disarmed as on the first call.
func TestRepoRereadsChangedConfiguration(t *testing.T) {
	ctx := context.Background()
	root := newRepo(t)
	writeFile(t, root, "a.txt", "one\n")
	commitAll(t, root)
	g := NewRepo(root)
	if _, err := g.Snapshot(ctx, "first", Options{}); err != nil {
		t.Fatal(err)
	}
	for _, inc := range []bool{false, true} {
		marker := filepath.Join(t.TempDir(), "ran")
		script := markerScript(t, t.TempDir(), marker)
		if inc {
			// Through an include that did not exist when the Repo
			// learned the configuration.
			gitT(t, root, "config", "include.path", "extra.cfg")
			if _, err := g.Snapshot(ctx, "with include", Options{}); err != nil {
				t.Fatal(err)
			}
			writeFile(t, root, ".git/extra.cfg", "[filter \"inc\"]\n\tclean = "+script+"\n\trequired = true\n")
			writeFile(t, root, ".gitattributes", "* filter=inc\n")
		} else {
			gitT(t, root, "config", "filter.evil.clean", script)
			gitT(t, root, "config", "filter.evil.required", "true")
			writeFile(t, root, ".gitattributes", "* filter=evil\n")
		}
		writeFile(t, root, "a.txt", "changed\n")
		if _, err := g.Snapshot(ctx, "after", Options{}); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Errorf("include=%v: the filter the configuration gained ran", inc)
		}
	}
}

// TestScanIndex reads the facts of indexes git wrote, in every version,
// as git itself reports them.
func TestScanIndex(t *testing.T) {
	for _, version := range []string{"2", "3", "4"} {
		t.Run("v"+version, func(t *testing.T) {
			root := newRepo(t)
			writeFile(t, root, "a.txt", "a\n")
			writeFile(t, root, "dir/long/"+strings.Repeat("n", 200)+".txt", "b\n")
			writeFile(t, root, "dir/b.txt", "b\n")
			commitAll(t, root)
			gitT(t, root, "update-index", "--index-version", version)
			if version == "3" {
				gitT(t, root, "update-index", "--skip-worktree", "dir/b.txt") // an extended entry
			}
			read := func() (indexFacts, bool) {
				data, err := os.ReadFile(filepath.Join(root, ".git", "index"))
				if err != nil {
					t.Fatal(err)
				}
				return scanIndex(data, 20, "")
			}
			if f, ok := read(); !ok || f.prepare || f.sessions {
				t.Errorf("plain index: %+v, %v", f, ok)
			}
			gitT(t, root, "update-index", "--assume-unchanged", "dir/b.txt")
			if f, ok := read(); !ok || !f.prepare {
				t.Errorf("assume-unchanged entry: %+v, %v", f, ok)
			}
			gitT(t, root, "update-index", "--no-assume-unchanged", "dir/b.txt")
			writeFile(t, root, ".coder/sessions/s.json", "{}\n")
			gitT(t, root, "add", ".coder/sessions/s.json")
			if f, ok := read(); !ok || f.prepare || !f.sessions {
				t.Errorf("tracked session file: %+v, %v", f, ok)
			}
		})
	}
	if _, ok := scanIndex([]byte("DIRC\x00\x00\x00\x02\x00\x00\x00\x05garbage"), 20, ""); ok {
		t.Error("a truncated index was understood")
	}
}
