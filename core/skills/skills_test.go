package skills

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

func skillFile(name, desc, body string) string {
	return "---\nname: " + name + "\ndescription: " + desc + "\n---\n" + body
}

func TestDiscover(t *testing.T) {
	ws, cfg := t.TempDir(), t.TempDir()
	wsDir, userDir := WorkspaceDir(ws), UserDir(cfg)

	write(t, filepath.Join(userDir, "deploy", FileName), skillFile("deploy", "Deploy the app", "user deploy"))
	write(t, filepath.Join(userDir, "shared", FileName), skillFile("shared", "User version", "user body"))
	write(t, filepath.Join(wsDir, "shared", FileName), skillFile("shared", "Workspace version", "ws body"))
	write(t, filepath.Join(wsDir, "review-go", FileName), "\ufeff---\r\nname: review-go\r\ndescription: \"Review Go: carefully\"\r\nlicense: MIT\r\nmetadata:\r\n  k: v\r\n---\r\nsteps\r\n")
	write(t, filepath.Join(wsDir, "long", FileName), "---\nname: long\ndescription: >\n  first line\n  second line\n---\nbody")
	// A broken workspace skill must not hide the valid user skill of the same name.
	write(t, filepath.Join(userDir, "fallback", FileName), skillFile("fallback", "User fallback", "b"))
	write(t, filepath.Join(wsDir, "fallback", FileName), "no front matter")
	// Broken ones.
	write(t, filepath.Join(wsDir, "nofm", FileName), "# just markdown\n")
	write(t, filepath.Join(wsDir, "unclosed", FileName), "---\nname: unclosed\ndescription: d\n")
	write(t, filepath.Join(wsDir, "noname", FileName), "---\ndescription: d\n---\n")
	write(t, filepath.Join(wsDir, "nodesc", FileName), "---\nname: nodesc\n---\n")
	write(t, filepath.Join(wsDir, "Bad_Name", FileName), skillFile("Bad_Name", "d", "b"))
	write(t, filepath.Join(wsDir, "dir-a", FileName), skillFile("other", "d", "b"))
	write(t, filepath.Join(wsDir, "badline", FileName), "---\nname: badline\nnot yaml\n---\n")
	if err := os.MkdirAll(filepath.Join(wsDir, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	// Ignored: stray files and hidden directories.
	write(t, filepath.Join(wsDir, "README.md"), "hello")
	write(t, filepath.Join(wsDir, ".hidden", FileName), "junk")

	skills, problems := Discover(ws, cfg)

	want := []Skill{
		{"deploy", "Deploy the app", filepath.Join(userDir, "deploy", FileName), SourceUser},
		{"fallback", "User fallback", filepath.Join(userDir, "fallback", FileName), SourceUser},
		{"long", "first line second line", filepath.Join(wsDir, "long", FileName), SourceWorkspace},
		{"review-go", "Review Go: carefully", filepath.Join(wsDir, "review-go", FileName), SourceWorkspace},
		{"shared", "Workspace version", filepath.Join(wsDir, "shared", FileName), SourceWorkspace},
	}
	if len(skills) != len(want) {
		t.Fatalf("skills = %+v\nwant %+v", skills, want)
	}
	for i := range want {
		if skills[i] != want[i] {
			t.Errorf("skill %d = %+v, want %+v", i, skills[i], want[i])
		}
	}

	wantProblems := map[string]string{
		"Bad_Name": "invalid name",
		"badline":  "want 'key: value'",
		"dir-a":    "does not match its directory",
		"empty":    "no SKILL.md",
		"fallback": "missing front matter",
		"nodesc":   "no description",
		"nofm":     "missing front matter",
		"noname":   "no name",
		"unclosed": "not closed",
	}
	if len(problems) != len(wantProblems) {
		t.Errorf("problems = %v", problems)
	}
	for _, p := range problems {
		dir := filepath.Base(filepath.Dir(p.Path))
		if w, ok := wantProblems[dir]; !ok || !strings.Contains(p.Reason, w) {
			t.Errorf("problem %s: %q, want it to contain %q", p.Path, p.Reason, w)
		}
	}
}

func TestDiscoverNothing(t *testing.T) {
	skills, problems := Discover(t.TempDir(), t.TempDir())
	if len(skills) != 0 || len(problems) != 0 {
		t.Errorf("got %v %v", skills, problems)
	}
	skills, problems = Discover("", "")
	if len(skills) != 0 || len(problems) != 0 {
		t.Errorf("got %v %v", skills, problems)
	}
	if Prompt(skills) != "" {
		t.Error("Prompt of no skills is not empty")
	}
}

func TestUnreadableSkillsDir(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads everything")
	}
	ws := t.TempDir()
	write(t, filepath.Join(WorkspaceDir(ws), "a", FileName), skillFile("a", "d", "b"))
	if err := os.Chmod(filepath.Join(WorkspaceDir(ws), "a", FileName), 0); err != nil {
		t.Fatal(err)
	}
	_, problems := Discover(ws, "")
	if len(problems) != 1 || !strings.Contains(problems[0].Reason, "cannot read") {
		t.Errorf("problems = %v", problems)
	}
}

func TestLoad(t *testing.T) {
	ws := t.TempDir()
	write(t, filepath.Join(WorkspaceDir(ws), "a", FileName), skillFile("a", "d", "\n# Steps\n1. do it\n"))
	write(t, filepath.Join(WorkspaceDir(ws), "b", FileName), skillFile("b", "d", "x"))
	skills, problems := Discover(ws, "")
	if len(skills) != 2 || len(problems) != 0 {
		t.Fatalf("got %v %v", skills, problems)
	}
	a, ok := Find(skills, "a")
	if !ok {
		t.Fatal("Find a")
	}
	body, err := Load(a)
	if err != nil || body != "# Steps\n1. do it" {
		t.Errorf("Load = %q, %v", body, err)
	}

	// Deleted after discovery: a readable error naming the skill.
	b, _ := Find(skills, "b")
	if err := os.Remove(b.Path); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(b); err == nil || !strings.Contains(err.Error(), `skill "b"`) || !strings.Contains(err.Error(), "no SKILL.md") {
		t.Errorf("Load of a missing file: %v", err)
	}
	// Broken after discovery.
	write(t, a.Path, "garbage")
	if _, err := Load(a); err == nil || !strings.Contains(err.Error(), "missing front matter") {
		t.Errorf("Load of a broken file: %v", err)
	}
	write(t, a.Path, skillFile("a", "d", "  \n"))
	if _, err := Load(a); err == nil || !strings.Contains(err.Error(), "no instructions") {
		t.Errorf("Load of an empty body: %v", err)
	}
	if _, ok := Find(skills, "zzz"); ok {
		t.Error("Find of an unknown name")
	}
}

func TestValidName(t *testing.T) {
	for name, want := range map[string]bool{
		"a": true, "0x": true, "a-b_c": true, strings.Repeat("a", 64): true,
		"": false, "-a": false, "_a": false, "A": false, "a b": false, "a/b": false, "..": false,
		strings.Repeat("a", 65): false, "é": false,
	} {
		if got := ValidName(name); got != want {
			t.Errorf("ValidName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestPrompt(t *testing.T) {
	got := Prompt([]Skill{
		{Name: "a", Description: "first\n  line"},
		{Name: "b", Description: strings.Repeat("x", 400)},
	})
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("Prompt = %q", got)
	}
	if lines[1] != "- a: first line" {
		t.Errorf("line 1 = %q", lines[1])
	}
	if !strings.HasPrefix(lines[2], "- b: xxx") || !strings.HasSuffix(lines[2], "…") || len([]rune(lines[2])) != len("- b: ")+maxPromptDescription+1 {
		t.Errorf("line 2 = %q", lines[2])
	}
}

func TestUserConfigDir(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", "/x/y")
	if d, err := UserConfigDir(); err != nil || d != "/x/y" {
		t.Errorf("UserConfigDir = %q, %v", d, err)
	}
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("HOME", "/home/u")
	if d, err := UserConfigDir(); err != nil || d != "/home/u/.config" {
		t.Errorf("UserConfigDir = %q, %v", d, err)
	}
}
