package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
)

// TestResumeNeverWidens: a session saved in yolo does not bring yolo back:
// an explicit --mode wins, no flag takes the narrower of saved and
// configured, and a session file that this machine did not create (one
// shipped in a repository) resumes in plan mode.
func TestResumeNeverWidens(t *testing.T) {
	bin := hostBinary(t)
	srv := fakellm.New()
	defer srv.Close()
	dir := gitRepo(t)
	srv.Enqueue(fakellm.Reply{Content: "hello"})
	r := execHost(t, bin, dir, srv.URL(), "--mode", "yolo", "hi")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	id := sessionID(t, r.stderr)

	outside := filepath.Join(filepath.Dir(dir), "outside-"+filepath.Base(dir))
	attempt := func(t *testing.T, root string, args ...string) result {
		t.Helper()
		srv.Reset()
		srv.Enqueue(
			fakellm.Reply{ToolCalls: []llm.ToolCall{
				toolCall("w", "write", map[string]any{"path": "new.txt", "content": "x"}),
				toolCall("b", "bash", map[string]any{"command": "touch " + outside}),
			}},
			fakellm.Reply{Content: "done"},
		)
		r := execHost(t, bin, root, srv.URL(), append(args, "--resume", id, "go on")...)
		if _, err := os.Stat(outside); err == nil {
			os.Remove(outside)
			t.Errorf("%v: a command outside the workspace ran unasked\nstderr:\n%s", args, r.stderr)
		}
		return r
	}
	t.Run("explicit plan wins", func(t *testing.T) {
		r := attempt(t, dir, "--mode", "plan")
		if _, err := os.Stat(filepath.Join(dir, "new.txt")); err == nil {
			t.Errorf("plan mode wrote a file\nstderr:\n%s", r.stderr)
		}
		reqs := srv.Requests()
		last := reqs[len(reqs)-1].Messages[0].Content
		if !strings.Contains(last, "Mode: plan.") {
			t.Errorf("system prompt does not say plan: %q", last[max(0, len(last)-200):])
		}
	})
	t.Run("no flag: the narrower", func(t *testing.T) {
		attempt(t, dir)
	})
	t.Run("not created here: plan", func(t *testing.T) {
		// The same file shipped inside another repository.
		other := gitRepo(t)
		if err := os.MkdirAll(filepath.Join(other, ".coder", "sessions"), 0o755); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join(dir, ".coder", "sessions", id+".json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(other, ".coder", "sessions", id+".json"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		r := attempt(t, other)
		if !strings.Contains(r.stderr, "not created on this machine") {
			t.Errorf("no notice of plan mode:\n%s", r.stderr)
		}
		if _, err := os.Stat(filepath.Join(other, "new.txt")); err == nil {
			t.Errorf("a foreign session wrote a file")
		}
	})
}
