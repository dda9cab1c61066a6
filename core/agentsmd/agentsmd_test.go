package agentsmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// repo is a repository with the workspace root two levels below its top.
func repo(t *testing.T) (top, root string) {
	t.Helper()
	top = t.TempDir()
	if err := os.Mkdir(filepath.Join(top, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	root = filepath.Join(top, "a", "b")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	return top, root
}

func TestLoad(t *testing.T) {
	tests := []struct {
		name     string
		files    map[string]string // relative to the repository's top; "~" the global dir
		fallback []string
		want     []string // file paths given, in order
		absent   []string // text that must not be sent
	}{
		{"none", nil, nil, nil, nil},
		{"global then top down", map[string]string{"~/AGENTS.md": "G", "AGENTS.md": "T", "a/b/AGENTS.md": "R", "a/AGENTS.md": "M"}, nil,
			[]string{"~/AGENTS.md", "../../AGENTS.md", "../AGENTS.md", "AGENTS.md"}, nil},
		{"fallback only where AGENTS.md is missing", map[string]string{"AGENTS.md": "T", "CLAUDE.md": "not me", "a/b/CLAUDE.md": "C"}, []string{"CLAUDE.md"},
			[]string{"../../AGENTS.md", "CLAUDE.md"}, []string{"not me"}},
		{"no fallback by default", map[string]string{"a/b/CLAUDE.md": "C"}, nil, nil, []string{"C"}},
		{"a directory named AGENTS.md is skipped", map[string]string{"a/b/AGENTS.md/x": "D"}, nil, nil, []string{"D"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			top, root := repo(t)
			global := filepath.Join(t.TempDir(), "coder")
			for p, body := range tc.files {
				if rest, ok := strings.CutPrefix(p, "~/"); ok {
					write(t, filepath.Join(global, rest), body)
				} else {
					write(t, filepath.Join(top, p), body)
				}
			}
			s := Load(Options{GlobalDir: global, Root: root, MaxBytes: DefaultMaxBytes, Fallback: tc.fallback})
			var got []string
			for _, f := range s.Files() {
				p := f.Path
				if strings.HasPrefix(p, filepath.ToSlash(global)) {
					p = "~/" + filepath.Base(p)
				}
				got = append(got, p)
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("files = %v, want %v", got, tc.want)
			}
			if len(tc.want) == 0 && s.Text() != "" {
				t.Errorf("text without files: %q", s.Text())
			}
			for _, body := range tc.absent {
				if strings.Contains(s.Text(), body) {
					t.Errorf("%q sent: %q", body, s.Text())
				}
			}
			// Order: each file's text follows the one before it.
			prev := -1
			for _, f := range s.Files() {
				i := strings.Index(s.Text(), "<file path=\""+f.Path+"\"")
				if i <= prev {
					t.Errorf("%s out of order in %q", f.Path, s.Text())
				}
				prev = i
			}
		})
	}
}

// The cap covers all files together; a cut file says how much is left
// out, on a character boundary.
func TestCap(t *testing.T) {
	top, root := repo(t)
	write(t, filepath.Join(top, "AGENTS.md"), strings.Repeat("x", 60))
	write(t, filepath.Join(root, "AGENTS.md"), strings.Repeat("é", 100)) // 200 bytes
	write(t, filepath.Join(root, "sub", "AGENTS.md"), "nested")
	s := Load(Options{Root: root, MaxBytes: 100})
	files := s.Files()
	if len(files) != 2 || files[0].Cut() || files[0].Sent != 60 || !files[1].Cut() || files[1].Sent != 40 || files[1].Size != 200 {
		t.Fatalf("files = %+v", files)
	}
	if !strings.Contains(s.Text(), "[cut: the last 160 of its 200 bytes are not shown") {
		t.Errorf("cut not said: %q", s.Text())
	}
	if !strings.Contains(s.Text(), strings.Repeat("é", 20)+"\n") {
		t.Errorf("not cut on a character: %q", s.Text())
	}
	// Nothing left for a nested file: it is named, its text is not sent.
	note, added := s.Nested([]string{"sub/x.go"})
	if len(added) != 1 || added[0].Sent != 0 || strings.Contains(note, "\nnested") || !strings.Contains(note, "sub/AGENTS.md") {
		t.Errorf("nested past the cap: %+v %q", added, note)
	}
	if s := Load(Options{Root: root, MaxBytes: 0}); s.Text() != "" || len(s.Files()) != 0 {
		t.Errorf("max_bytes 0 read %+v", s.Files())
	}
}

func TestNested(t *testing.T) {
	_, root := repo(t)
	write(t, filepath.Join(root, "AGENTS.md"), "root rules")
	write(t, filepath.Join(root, "pkg", "AGENTS.md"), "pkg rules")
	write(t, filepath.Join(root, "pkg", "deep", "AGENTS.md"), "deep rules")
	write(t, filepath.Join(root, "pkg", "deep", "x.go"), "package deep")
	write(t, filepath.Join(root, "other", "y.go"), "package other")
	s := Load(Options{Root: root, MaxBytes: DefaultMaxBytes})

	if note, added := s.Nested([]string{"other/y.go", ".", "x.go"}); note != "" || added != nil {
		t.Errorf("no nested file: %q %+v", note, added)
	}
	note, added := s.Nested([]string{"pkg/deep/x.go"})
	if len(added) != 2 || added[0].Path != "pkg/AGENTS.md" || added[1].Path != "pkg/deep/AGENTS.md" || !added[0].Nested {
		t.Fatalf("added = %+v", added)
	}
	if i, j := strings.Index(note, "pkg rules"), strings.Index(note, "deep rules"); i < 0 || j < i || strings.Contains(note, "root rules") {
		t.Errorf("note = %q", note)
	}
	if note, added := s.Nested([]string{"pkg/deep", "pkg/deep/x.go"}); note != "" || added != nil {
		t.Errorf("given twice: %q", note)
	}
	// A resumed conversation does not get them again.
	r := Restore(Options{Root: root, MaxBytes: DefaultMaxBytes}, s.Files())
	if note, _ := r.Nested([]string{"pkg/deep/x.go"}); note != "" {
		t.Errorf("given again after resume: %q", note)
	}
	if !strings.Contains(r.Text(), "root rules") || len(r.Files()) != 3 {
		t.Errorf("restored = %q %+v", r.Text(), r.Files())
	}
	// The call that reads or writes the file itself does not get it.
	write(t, filepath.Join(root, "new", "AGENTS.md"), "new rules")
	if note, _ := s.Nested([]string{"new/AGENTS.md"}); note != "" {
		t.Errorf("sent with its own read: %q", note)
	}
}

// A repository's AGENTS.md that is a link out of it is not read: the
// repository chooses the name, not what it may expose to the model.
func TestLinkOutsideRefused(t *testing.T) {
	_, root := repo(t)
	secret := filepath.Join(t.TempDir(), "secret")
	write(t, secret, "TOKEN=hunter2")
	if err := os.Symlink(secret, filepath.Join(root, "AGENTS.md")); err != nil {
		t.Skip("no symbolic links:", err)
	}
	if err := os.MkdirAll(filepath.Join(root, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(root, "sub", "AGENTS.md")); err != nil {
		t.Fatal(err)
	}
	s := Load(Options{Root: root, MaxBytes: DefaultMaxBytes})
	note, _ := s.Nested([]string{"sub/x"})
	if strings.Contains(s.Text()+note, "hunter2") {
		t.Errorf("read through a link out of the repository: %q %q", s.Text(), note)
	}
	// Inside the repository a link is fine.
	write(t, filepath.Join(root, "docs", "agents.md"), "linked rules")
	if err := os.Symlink(filepath.Join(root, "docs", "agents.md"), filepath.Join(root, "docs", "AGENTS.md")); err != nil {
		t.Fatal(err)
	}
	if note, _ := s.Nested([]string{"docs/agents.md"}); !strings.Contains(note, "linked rules") {
		t.Errorf("link inside the repository refused: %q", note)
	}
}

func TestChainOutsideRepository(t *testing.T) {
	root := t.TempDir()
	top, dirs := Chain(root)
	// The temporary directory may itself be inside a repository; when
	// not, the root stands alone.
	if dirs[len(dirs)-1] != root || (top == root) != (len(dirs) == 1) {
		t.Errorf("Chain(%s) = %s, %v", root, top, dirs)
	}
}

func TestScope(t *testing.T) {
	top, root := repo(t)
	write(t, filepath.Join(top, "AGENTS.md"), "T")
	write(t, filepath.Join(top, "a", "AGENTS.md"), "A")
	write(t, filepath.Join(root, "AGENTS.md"), "R")
	write(t, filepath.Join(root, "sub", "AGENTS.md"), "S")
	s := Load(Options{Root: root, MaxBytes: DefaultMaxBytes})
	note, _ := s.Nested([]string{"sub/x"})
	for _, want := range []string{
		`<file path="../../AGENTS.md" applies="the whole repository">`,
		`<file path="../AGENTS.md" applies="files under a/ of the repository, the workspace among them">`,
		`<file path="AGENTS.md" applies="the whole workspace">`,
		`<file path="sub/AGENTS.md" applies="files under sub/">`,
	} {
		if !strings.Contains(s.Text()+note, want) {
			t.Errorf("no %s in\n%s%s", want, s.Text(), note)
		}
	}
}
