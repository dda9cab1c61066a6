package mention

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/tools"
)

func TestParse(t *testing.T) {
	tests := []struct {
		text string
		want []string // source+path+range
	}{
		{"look at @notes.txt.", []string{"@notes.txt"}},
		{"@a.go:10-40 and (@b.go:7)", []string{"@a.go:10-40", "@b.go:7-7"}},
		{"mail me at a@b.com", nil},
		{"#diff, please; #1 #include #diffs", []string{"#diff"}},
		{"@ alone and @", nil},
		{"```\n@Override\n#diff\n```\nthen @x", []string{"@x"}},
		{"@a.go:0 @a.go:9-3", []string{"@a.go:0", "@a.go:9-3"}},
		{"«@ü.txt»", nil},
		{"\t@dir/ and '@q.md'", []string{"@dir/", "@q.md"}},
	}
	for _, tt := range tests {
		var got []string
		for _, r := range Parse(tt.text) {
			s := r.Source + r.Path
			if r.From > 0 {
				s += ":" + itoa(r.From) + "-" + itoa(r.To)
			}
			got = append(got, s)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Parse(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// workspace is a git repository with a commit and a few files.
func workspace(t *testing.T) (string, *tools.Workspace) {
	t.Helper()
	dir := t.TempDir()
	dir, _ = filepath.EvalSymlinks(dir)
	files := map[string]string{
		"notes.txt":            "one\ntwo\nthree\nfour\n",
		"src/a.go":             "package a\n",
		".coder/config.json":   `{"mode":"yolo"}`,
		".coder/skills/x/S.md": "skill",
	}
	for p, c := range files {
		writeFile(t, filepath.Join(dir, p), c)
	}
	writeFile(t, filepath.Join(dir, "bin.dat"), "ab\x00cd")
	// A 1x1 PNG.
	png := "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\x00\x01\x00\x00\x05\x00\x01\r\n-\xb4\x00\x00\x00\x00IEND\xaeB`\x82"
	writeFile(t, filepath.Join(dir, "shot.png"), png)
	writeFile(t, filepath.Join(dir, "fake.png"), "not a picture at all")
	outside := filepath.Join(t.TempDir(), "secret.txt")
	writeFile(t, outside, "secret")
	if err := os.Symlink(outside, filepath.Join(dir, "link.txt")); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "init", "-q")
	git(t, dir, "add", "notes.txt", "src")
	git(t, dir, "commit", "-qm", "init")
	ws, err := tools.NewWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	return dir, ws
}

func writeFile(t *testing.T, p, c string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
		t.Fatal(err)
	}
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@e", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@e")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v %s", args, err, out)
	}
}

func TestResolve(t *testing.T) {
	dir, ws := workspace(t)
	writeFile(t, filepath.Join(dir, "notes.txt"), "one\ntwo\nTHREE\nfour\n") // uncommitted
	r := Resolver{WS: ws, Images: true}
	tests := []struct {
		mention string
		text    string // the attached text, when attached
		err     string // part of the refusal, when refused
		image   bool
	}{
		{mention: "@notes.txt", text: "one\ntwo\nTHREE\nfour\n"},
		{mention: "@notes.txt:2-3", text: "two\nTHREE\n"},
		{mention: "@notes.txt:4", text: "four\n"},
		{mention: "@notes.txt:9", err: "past the end"},
		{mention: "@" + dir + "/src/a.go", text: "package a\n"},
		{mention: "@src", text: "a.go\n"},
		{mention: "@missing.txt", err: "no such file"},
		{mention: "@../x.txt", err: "outside the workspace"},
		{mention: "@/etc/passwd", err: "outside the workspace"},
		{mention: "@link.txt", err: "outside the workspace through a symlink"},
		{mention: "@.git/config", err: ".git"},
		{mention: "@.coder/config.json", err: ".coder/"},
		{mention: "@.coder/skills/x/S.md", err: ".coder/"},
		{mention: "@bin.dat", err: "binary"},
		{mention: "@shot.png", image: true},
		{mention: "@fake.png", err: "holds text/plain"},
		{mention: "#diff", text: "+THREE"},
	}
	for _, tt := range tests {
		items := r.Resolve(context.Background(), "see "+tt.mention+" please")
		if len(items) != 1 {
			t.Errorf("%s: %d items", tt.mention, len(items))
			continue
		}
		it := items[0]
		switch {
		case tt.err != "":
			if !strings.Contains(it.Err, tt.err) {
				t.Errorf("%s: err %q, want it to contain %q", tt.mention, it.Err, tt.err)
			}
		case tt.image:
			if it.Err != "" || it.image == nil || !strings.HasPrefix(it.image.URL, "data:image/png;base64,") {
				t.Errorf("%s: %+v, want an image part", tt.mention, it)
			}
		case !strings.Contains(it.Text, tt.text) || it.Err != "":
			t.Errorf("%s: text %q err %q, want %q", tt.mention, it.Text, it.Err, tt.text)
		}
	}
	noImages := Resolver{WS: ws}
	if it := noImages.Resolve(context.Background(), "@shot.png")[0]; !strings.Contains(it.Err, "model_images is false") {
		t.Errorf("no images: %+v", it)
	}
	small := Resolver{WS: ws, Images: true, Limits: Limits{Item: 10, Message: 20, File: 8, Image: 8, Listing: 1}}
	if it := small.Resolve(context.Background(), "@notes.txt")[0]; !strings.Contains(it.Err, "too large") || !strings.Contains(it.Err, "@notes.txt:1-200") {
		t.Errorf("over-size file: %+v", it)
	}
	if it := small.Resolve(context.Background(), "@notes.txt:1-2")[0]; it.Err != "" || it.Text != "one\ntwo\n" {
		t.Errorf("a range of an over-size file: %+v", it)
	}
	if it := small.Resolve(context.Background(), "@shot.png")[0]; !strings.Contains(it.Err, "image too large") {
		t.Errorf("over-size image: %+v", it)
	}
	if items := r.Resolve(context.Background(), "@notes.txt and @notes.txt"); len(items) != 1 {
		t.Errorf("a mention twice: %d items", len(items))
	}
}

func TestDiffOutsideGit(t *testing.T) {
	dir := t.TempDir()
	ws, err := tools.NewWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	it := Resolver{WS: ws}.Resolve(context.Background(), "#diff")[0]
	if !strings.HasPrefix(it.Err, "no git diff") {
		t.Errorf("#diff outside git: %+v", it)
	}
}

func TestAttachAndSplit(t *testing.T) {
	items := []Item{
		{Source: "#buffer", Path: "main.go", Filetype: "go", Text: "package main\n```\nfunc main() {}\n", Notes: []string{"unsaved edits included"}},
		{Source: "@", Path: "gone.txt", Err: "no such file or directory in the workspace"},
		{Source: "#diff", Notes: []string{"no uncommitted changes"}},
	}
	msg, images, got := Attach("explain #buffer\n", items, DefaultLimits)
	if len(images) != 0 || len(got) != 3 {
		t.Fatalf("images %d items %d", len(images), len(got))
	}
	for _, want := range []string{
		"explain #buffer\n\n[context #buffer main.go · go · 3 lines · unsaved edits included]\n````go\npackage main\n```\nfunc main() {}\n````",
		"[context @gone.txt · not attached: no such file or directory in the workspace]",
		"[context #diff · no uncommitted changes]",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
	text, sums, rest := Split(msg + "\n\n[note] from the turn")
	if text != "explain #buffer" || rest != "[note] from the turn" || len(sums) != 3 {
		t.Fatalf("Split: %q %q %d", text, rest, len(sums))
	}
	wantLines := []string{
		"▸ #buffer main.go (go, 3 lines, unsaved edits included)",
		"✗ @gone.txt — not attached: no such file or directory in the workspace",
		"▸ #diff (no uncommitted changes)",
	}
	for i, s := range sums {
		if s.String() != wantLines[i] {
			t.Errorf("summary %d = %q, want %q", i, s, wantLines[i])
		}
	}
	if sums[0].Body != items[0].Text {
		t.Errorf("body %q", sums[0].Body)
	}
	// Typed text that only looks like an item stays text.
	plain := "[context not really]\nmore words"
	if text, sums, _ := Split(plain); text != plain || sums != nil {
		t.Errorf("Split(%q) = %q %v", plain, text, sums)
	}
}

func TestAttachCaps(t *testing.T) {
	lim := Limits{Item: 100, Message: 150, File: 1000, Image: 1000, Listing: 10}
	line := strings.Repeat("x", 9) + "\n" // 10 bytes
	items := []Item{
		{Source: "#buffer", Path: "big", Text: strings.Repeat(line, 30)},    // cut to 100
		{Source: "#buffers", Text: strings.Repeat(line, 3), Size: 10 << 20}, // the editor cut it
		{Source: "#quickfix", Text: strings.Repeat(line, 10)},               // 20 left of the message
		{Source: "#messages", Text: line},                                   // nothing left
	}
	msg, _, got := Attach("q", items, lim)
	want := []string{
		"cut: the first 10 lines, 100 B of 300 B sent (per-item cap 100 B)",
		"cut: the first 3 lines, 30 B of 10 MiB sent (the editor sent only this much)",
		"cut: the first 2 lines, 20 B of 100 B sent (per-message cap 150 B)",
	}
	for i, w := range want {
		if !reflect.DeepEqual(got[i].Notes, []string{w}) {
			t.Errorf("item %d notes %q, want %q", i, got[i].Notes, w)
		}
	}
	if !strings.Contains(got[3].Err, "per-message cap of 150 B") {
		t.Errorf("item 3: %+v", got[3])
	}
	if strings.Count(msg, "[context ") != 4 {
		t.Errorf("message:\n%s", msg)
	}
}

func TestMatch(t *testing.T) {
	files := []string{"docs/notes/old.md", "src/not_here.go", "notes.txt", "a/b/c/n/o/t.txt", "README.md"}
	got := Match(files, "not", 3)
	if len(got) != 3 || got[0] != "notes.txt" {
		t.Errorf("Match not = %q", got)
	}
	if got := Match(files, "zzz", 3); len(got) != 0 {
		t.Errorf("Match zzz = %q", got)
	}
	if got := Match(files, "READ", 3); len(got) != 1 || got[0] != "README.md" {
		t.Errorf("smart case: %q", got)
	}
	if got := Match(files, "", 2); len(got) != 2 {
		t.Errorf("empty query: %q", got)
	}
}

func TestIndex(t *testing.T) {
	_, ws := workspace(t)
	x := &Index{WS: ws}
	got, ready, err := x.Match(context.Background(), "not", 5)
	if err != nil || !ready || len(got) == 0 || got[0] != "notes.txt" {
		t.Fatalf("Match = %q %v %v", got, ready, err)
	}
	if got, _, _ := x.Match(context.Background(), "src/", 5); len(got) == 0 || got[0] != "src/" {
		t.Errorf("directories: %q", got)
	}
	// An ended context returns at once without a listing to match.
	y := &Index{WS: ws}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, ready, _ := y.Match(ctx, "x", 5); ready {
		t.Error("ready without a listing")
	}
}

// TestConfineEditorItems: what the editor attaches about a file obeys the
// file tools' path rules; buffers without a file pass.
func TestConfineEditorItems(t *testing.T) {
	dir, ws := workspace(t)
	r := Resolver{WS: ws}
	tests := []struct {
		in      Item
		path    string // the path after, when attached
		refused string // part of the reason, when refused
	}{
		{in: Item{Source: "#buffer", Path: "src/a.go", Text: "x"}, path: "src/a.go"},
		{in: Item{Source: "#buffer", Path: dir + "/src/a.go", Text: "x"}, path: "src/a.go"},
		{in: Item{Source: "#buffer", Path: "/etc/passwd", Text: "root"}, refused: "outside the workspace"},
		{in: Item{Source: "#buffers", Path: "../other/secret.txt", Text: "s"}, refused: "outside the workspace"},
		{in: Item{Source: "#selection", Path: ".git/config", Text: "[core]"}, refused: ".git"},
		{in: Item{Source: "#diagnostics", Path: ".coder/config.json", Text: "E"}, refused: ".coder/"},
		{in: Item{Source: "#buffer", Path: "[No Name]", Text: "scratch"}, path: "[No Name]"},
		{in: Item{Source: "#terminal", Path: "term://~//123:bash", Text: "$"}, path: "term://~//123:bash"},
		{in: Item{Source: "#quickfix", Text: "a.go:1: e"}},
	}
	for _, tc := range tests {
		got := r.Confine([]Item{tc.in})[0]
		if tc.refused != "" {
			if !strings.Contains(got.Err, tc.refused) || got.Text != "" {
				t.Errorf("%s %s: %+v, want refused (%s) with no text", tc.in.Source, tc.in.Path, got, tc.refused)
			}
			continue
		}
		if got.Err != "" || got.Path != tc.path || got.Text != tc.in.Text {
			t.Errorf("%s %s: %+v, want attached as %q", tc.in.Source, tc.in.Path, got, tc.path)
		}
	}
}
