package tools

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// failingFS writes through to the disk but fails the failAt-th write, to
// exercise the rollback of a change set.
type failingFS struct {
	n, failAt int
}

func (f *failingFS) ReadFile(_ context.Context, abs string) ([]byte, error) {
	return os.ReadFile(abs)
}

func (f *failingFS) WriteFile(_ context.Context, abs string, data []byte, perm fs.FileMode) error {
	f.n++
	if f.n == f.failAt {
		return errors.New("injected write failure")
	}
	return os.WriteFile(abs, data, perm)
}

// fuzzTree lays out, in parent, a workspace next to a directory outside
// it, with symlinks from the workspace to outside, inside, and into .git.
// It replaces whatever an earlier run left there.
func fuzzTree(t testing.TB, parent string) (root, outside string) {
	root, outside = filepath.Join(parent, "ws"), filepath.Join(parent, "out")
	for _, dir := range []string{root, outside} {
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{
		"ws/a.txt":       "one\ntwo\nthree\n",
		"ws/dir/b.go":    "package dir\n\nfunc B() {}\n",
		"ws/crlf.txt":    "x\r\ny\r\n",
		"ws/nofinal.txt": "last",
		"ws/.git/HEAD":   "ref: refs/heads/main\n",
		"out/secret.txt": "secret\n",
	}
	for name, body := range files {
		p := filepath.Join(parent, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"ws/out":       "../out",
		"ws/secret":    "../out/secret.txt",
		"ws/alias.txt": "a.txt",
		"ws/gitdir":    ".git",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(parent, name)); err != nil {
			t.Fatal(err)
		}
	}
	return root, outside
}

// snapshot maps every non-directory entry under dir to its content (or
// link target) and permission bits.
func snapshot(t testing.TB, dir string) map[string]string {
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		info, err := d.Info()
		if err != nil {
			return err
		}
		if d.Type()&fs.ModeSymlink != 0 {
			target, err := os.Readlink(p)
			out[rel] = "link:" + target
			return err
		}
		body, err := os.ReadFile(p)
		out[rel] = info.Mode().String() + ":" + string(body)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// FuzzPatchTool runs the patch tool end to end on a real workspace: a
// patch never changes anything outside the workspace root or inside .git,
// and it is all or nothing — when preparing or applying fails (failAt > 0
// injects a failure into the failAt-th file write) no file in the
// workspace changes; when it succeeds only the files it reports changing
// did.
func FuzzPatchTool(f *testing.F) {
	seeds := []string{
		"*** Begin Patch\n*** Add File: new.txt\n+hello\n*** Update File: a.txt\n@@\n one\n-two\n+2\n*** End Patch",
		"*** Begin Patch\n*** Delete File: nofinal.txt\n*** Update File: dir/b.go\n*** Move to: moved/b.go\n@@ func B() {}\n-func B() {}\n+func B() { return }\n*** End Patch",
		"*** Begin Patch\n*** Update File: crlf.txt\n x\n-y\n+z\n*** End of File\n*** End Patch",
		"*** Begin Patch\n*** Add File: out/evil.txt\n+x\n*** End Patch",
		"*** Begin Patch\n*** Update File: secret\n-secret\n+gone\n*** End Patch",
		"*** Begin Patch\n*** Add File: ../out/evil.txt\n+x\n*** End Patch",
		"*** Begin Patch\n*** Add File: gitdir/hooks/pre-commit\n+x\n*** End Patch",
		"*** Begin Patch\n*** Update File: a.txt\n*** Move to: ../out/a.txt\n-one\n+1\n*** End Patch",
		"*** Begin Patch\n*** Update File: alias.txt\n-one\n+1\n*** Update File: a.txt\n-two\n+2\n*** End Patch",
		"*** Begin Patch\n*** Delete File: alias.txt\n*** End Patch",
	}
	for i, s := range seeds {
		f.Add(s, uint8(i%3))
	}
	// The second write fails: the first must be rolled back.
	f.Add(seeds[0], uint8(2))
	// One tree, rebuilt only after a patch may have written to it, keeps
	// the target fast enough to explore.
	parent := f.TempDir()
	root, outside := fuzzTree(f, parent)
	beforeRoot, beforeOut := snapshot(f, root), snapshot(f, outside)
	f.Fuzz(func(t *testing.T, text string, failAt uint8) {
		ws, err := NewWorkspace(root)
		if err != nil {
			t.Fatal(err)
		}
		if failAt > 0 {
			ws.SetFS(&failingFS{failAt: int(failAt % 4)})
		}
		args, err := json.Marshal(map[string]string{"patch": text})
		if err != nil {
			return // invalid UTF-8 cannot be sent as JSON text anyway
		}
		ctx := context.Background()
		inv, err := newPatchTool().Prepare(ctx, ws, args)
		failed := err != nil
		if err == nil {
			defer fuzzTree(t, parent)
			failed = inv.Run(ctx).IsError
		}

		if after := snapshot(t, outside); !equalMaps(beforeOut, after) {
			t.Fatalf("the patch changed files outside the workspace:\nbefore %q\nafter  %q", beforeOut, after)
		}
		afterRoot := snapshot(t, root)
		if failed {
			if !equalMaps(beforeRoot, afterRoot) {
				t.Fatalf("a failed patch changed the workspace:\nbefore %q\nafter  %q", beforeRoot, afterRoot)
			}
			return
		}
		allowed := map[string]bool{}
		for _, c := range inv.Changes {
			allowed[filepath.FromSlash(c.Path)] = true
			if c.MoveTo != "" {
				allowed[filepath.FromSlash(c.MoveTo)] = true
			}
		}
		for _, name := range changedKeys(beforeRoot, afterRoot) {
			if !allowed[name] {
				t.Fatalf("%s changed but the patch reported changing only %v", name, inv.Changes)
			}
			if inGitDir(filepath.ToSlash(name)) {
				t.Fatalf("the patch changed %s inside .git", name)
			}
		}
	})
}

func equalMaps(a, b map[string]string) bool {
	return len(changedKeys(a, b)) == 0
}

func changedKeys(a, b map[string]string) []string {
	var out []string
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			out = append(out, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k)
		}
	}
	return out
}
