package gitsnap

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// markerScript writes a script that leaves marker when run, and returns
// its path. The tests only check whether git ran it.
func markerScript(t *testing.T, dir, marker string) string {
	t.Helper()
	path := filepath.Join(dir, "evil.sh")
	if err := os.WriteFile(path, []byte("#!/bin/sh\ntouch "+marker+"\ncat\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestRepositoryConfiguredProgramsNeverRun: every program a repository's
// .git/config can name for the host's snapshot, diff and undo calls stays
// unrun.
func TestRepositoryConfiguredProgramsNeverRun(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name  string
		setup func(t *testing.T, root, script string)
	}{
		{"clean filter", func(t *testing.T, root, script string) {
			gitT(t, root, "config", "filter.evil.clean", script)
			gitT(t, root, "config", "filter.evil.required", "true")
			writeFile(t, root, ".gitattributes", "* filter=evil\n")
		}},
		{"smudge filter", func(t *testing.T, root, script string) {
			gitT(t, root, "config", "filter.evil.smudge", script)
			writeFile(t, root, ".gitattributes", "* filter=evil\n")
		}},
		{"process filter", func(t *testing.T, root, script string) {
			gitT(t, root, "config", "filter.evil.process", script)
			writeFile(t, root, ".gitattributes", "* filter=evil\n")
		}},
		{"textconv", func(t *testing.T, root, script string) {
			gitT(t, root, "config", "diff.evil.textconv", script)
			writeFile(t, root, ".gitattributes", "*.txt diff=evil\n")
		}},
		{"diff driver command", func(t *testing.T, root, script string) {
			gitT(t, root, "config", "diff.evil.command", script)
			writeFile(t, root, ".gitattributes", "*.txt diff=evil\n")
		}},
		{"external diff", func(t *testing.T, root, script string) {
			gitT(t, root, "config", "diff.external", script)
		}},
		{"fsmonitor", func(t *testing.T, root, script string) {
			gitT(t, root, "config", "core.fsmonitor", script)
		}},
		{"hooks", func(t *testing.T, root, script string) {
			for _, h := range []string{"post-index-change", "reference-transaction", "post-checkout", "pre-commit"} {
				writeFile(t, root, ".git/hooks/"+h, "#!/bin/sh\nexec "+script+"\n")
				if err := os.Chmod(filepath.Join(root, ".git/hooks", h), 0o755); err != nil {
					t.Fatal(err)
				}
			}
		}},
		{"included config", func(t *testing.T, root, script string) {
			writeFile(t, root, ".git/extra", "[filter \"inc\"]\n\tclean = "+script+"\n")
			gitT(t, root, "config", "include.path", "extra")
			writeFile(t, root, ".gitattributes", "* filter=inc\n")
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := newRepo(t)
			writeFile(t, root, "a.txt", "one\n")
			commitAll(t, root)
			marker := filepath.Join(t.TempDir(), "ran")
			tc.setup(t, root, markerScript(t, t.TempDir(), marker))
			before := snap(t, root)
			writeFile(t, root, "a.txt", "two\n")
			writeFile(t, root, "b.txt", "new\n")
			after := snap(t, root)
			if _, err := Diff(ctx, root); err != nil {
				t.Fatal(err)
			}
			if _, err := DiffBetween(ctx, root, before, after); err != nil {
				t.Fatal(err)
			}
			if _, err := Undo(ctx, root, before, after); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Fatalf("git ran the repository's program")
			}
			if got := tree(t, root)["a.txt"]; got != "file:644:one\n" {
				t.Errorf("a.txt after undo = %q", got)
			}
		})
	}
}

// TestSettingsThatRunProgramsAreOverridden: the programs the host's calls
// never reach today (pager, editor, ssh, askpass, credentials) are still
// overridden, so a later call cannot reach a repository's.
func TestSettingsThatRunProgramsAreOverridden(t *testing.T) {
	root := newRepo(t)
	for _, k := range []string{"core.pager", "core.editor", "core.sshCommand", "core.askPass", "credential.helper", "gpg.program", "sequence.editor"} {
		gitT(t, root, "config", k, "evil")
	}
	r, err := open(context.Background(), hostGit(root), root)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"core.pager", "core.editor", "core.sshCommand", "core.askPass", "credential.helper", "gpg.program", "sequence.editor"} {
		out, _ := r.git(context.Background(), runOpts{okExit: 1}, "config", "--get", k)
		if strings.TrimSpace(string(out)) == "evil" {
			t.Errorf("%s is the repository's in the host's git calls", k)
		}
	}
}

// TestModelWrittenBareRepository: in a plain directory (or one nested in a
// repository) the model wrote HEAD, config with a clean filter, objects/,
// refs/ and .gitattributes: git must not take it for a repository.
func TestModelWrittenBareRepository(t *testing.T) {
	for _, nested := range []bool{false, true} {
		name := "plain directory"
		if nested {
			name = "nested in a repository"
		}
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			if nested {
				outer := newRepo(t)
				writeFile(t, outer, "keep.txt", "x\n")
				commitAll(t, outer)
				root = filepath.Join(outer, "sub")
			}
			marker := filepath.Join(t.TempDir(), "ran")
			script := markerScript(t, t.TempDir(), marker)
			writeFile(t, root, "HEAD", "ref: refs/heads/main\n")
			writeFile(t, root, "config", "[core]\n\tbare = false\n\tworktree = .\n[filter \"evil\"]\n\tclean = "+script+"\n")
			writeFile(t, root, "objects/info/.keep", "")
			writeFile(t, root, "refs/heads/.keep", "")
			writeFile(t, root, ".gitattributes", "* filter=evil\n")
			writeFile(t, root, "code.go", "package x\n")
			_, _ = Snapshot(context.Background(), root, "turn")
			_, _ = Diff(context.Background(), root)
			if _, err := os.Stat(marker); err == nil {
				t.Fatal("git loaded the model-written repository and ran its filter")
			}
		})
	}
}
