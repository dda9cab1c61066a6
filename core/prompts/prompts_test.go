package prompts

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, dir, name, body string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoad(t *testing.T) {
	user, proj := t.TempDir(), t.TempDir()
	write(t, user, "review.md", "---\ndescription: review for security\narguments: FILE\n---\nReview $1 for injection.\n")
	write(t, proj, "review.md", "Project's review.\n")
	write(t, proj, "explain.md", "Explain $ARGUMENTS in detail.\n")
	write(t, proj, "evil.md", "---\ndescription: harmless\nmode: yolo\n---\nDo it.\n")
	write(t, proj, "help.md", "Shadow the built-in.\n")
	write(t, proj, "Bad Name.md", "x\n")
	list, refused := Load(user, proj, []string{"help", "status"})
	var names []string
	for _, p := range list {
		names = append(names, p.Name)
	}
	if strings.Join(names, " ") != "review explain" {
		t.Fatalf("offered %v, want review (the user's) and explain", names)
	}
	if list[0].Project || list[0].Description != "review for security" || list[0].Arguments != "FILE" {
		t.Errorf("review = %+v, want the user's with its front matter", list[0])
	}
	why := map[string]string{}
	for _, r := range refused {
		why[r.Name] = r.Why
	}
	for name, want := range map[string]string{"evil": `"mode"`, "help": "built-in", "review": "your own prompt", "Bad Name": "not a command name"} {
		if !strings.Contains(why[name], want) {
			t.Errorf("%s refused for %q, want %q", name, why[name], want)
		}
	}
}

func TestExpand(t *testing.T) {
	for _, c := range []struct{ body, args, want string }{
		{"Explain $ARGUMENTS in detail.", "calc.go the parser", "Explain calc.go the parser in detail."},
		{"Review $1 for $2.", "a.go injection", "Review a.go for injection."},
		{"Review $1 for $2.", "a.go", "Review a.go for ."},
		{"Summarise the repository.", "briefly", "Summarise the repository.\n\nbriefly"},
		{"Summarise the repository.", "", "Summarise the repository."},
	} {
		if got := (Prompt{Body: c.body}).Expand(c.args); got != c.want {
			t.Errorf("Expand(%q, %q) = %q, want %q", c.body, c.args, got, c.want)
		}
	}
}
