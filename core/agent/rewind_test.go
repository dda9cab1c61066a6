package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/store"
)

// writesPerTurn scripts a model that, for the user input "turn K", writes
// the files files[K] and then answers "done K".
func writesPerTurn(files map[string][]string) func(fakellm.Request) fakellm.Reply {
	return func(req fakellm.Request) fakellm.Reply {
		last := req.Messages[len(req.Messages)-1]
		if last.Role != llm.RoleUser {
			return fakellm.Reply{Content: "done"}
		}
		var calls []llm.ToolCall
		for _, f := range files[last.Content] {
			calls = append(calls, call("w-"+f, "write", map[string]any{"path": f, "content": "by the model\n"}))
		}
		if len(calls) == 0 {
			return fakellm.Reply{Content: "done"}
		}
		return fakellm.Reply{ToolCalls: calls}
	}
}

func yoloFixture(t *testing.T, root func(*testing.T) string) *fixture {
	t.Helper()
	f := newFixture(t, func(c *config.Config, o *Options) {
		c.Mode = "yolo"
		c.Workflow.AutoVerifyAfterEdit = false
		if root != nil {
			o.Root = root(t)
		}
	})
	f.root = f.sess.root
	return f
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// Three turns write files; the user edits one of turn 2's files after
// it. /rewind 2 keeps turn 1's file, removes turns 2–3's except the
// user's edit, which it names; the next request holds turn 1 only; the
// abandoned turns are on disk.
func TestRewindTakesBackFilesAndConversation(t *testing.T) {
	f := yoloFixture(t, nil)
	writeFile(t, filepath.Join(f.root, ".gitignore"), ".coder\n")
	f.srv.SetScript(writesPerTurn(map[string][]string{
		"turn one":   {"one.txt"},
		"turn two":   {"two.txt", "edited.txt"},
		"turn three": {"three.txt"},
	}))
	f.run(t, "turn one")
	f.run(t, "turn two")
	writeFile(t, filepath.Join(f.root, "edited.txt"), "the user's\n")
	f.run(t, "turn three")

	f.run(t, "/rewind")
	list := lastOutput(f)
	for _, want := range []string{"1  ", "turn one", "turn two", "turn three", "(2 file(s))"} {
		if !strings.Contains(list, want) {
			t.Errorf("/rewind list lacks %q:\n%s", want, list)
		}
	}

	f.run(t, "/rewind 2")
	out := lastOutput(f)
	if !exists(filepath.Join(f.root, "one.txt")) {
		t.Error("turn 1's file is gone")
	}
	for _, p := range []string{"two.txt", "three.txt"} {
		if exists(filepath.Join(f.root, p)) {
			t.Errorf("%s survived /rewind 2", p)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(f.root, "edited.txt")); string(data) != "the user's\n" {
		t.Errorf("the user's edit = %q", data)
	}
	if !strings.Contains(out, "skipped  edited.txt") {
		t.Errorf("/rewind does not name the user's file:\n%s", out)
	}

	f.srv.ForgetRequests()
	f.run(t, "turn four")
	reqs := f.srv.Requests()
	if len(reqs) == 0 {
		t.Fatal("no request after the rewind")
	}
	var sent strings.Builder
	for _, m := range reqs[0].Messages {
		sent.WriteString(m.Content + "\n")
	}
	if !strings.Contains(sent.String(), "turn one") || strings.Contains(sent.String(), "turn two") || strings.Contains(sent.String(), "turn three") {
		t.Errorf("the request after /rewind 2 holds:\n%s", sent.String())
	}

	// On disk: the abandoned branch with turns 2 and 3, the live
	// conversation without them.
	f.sess.snapshotNow()
	snap, err := store.Resume(store.Dir(f.root), string(f.sess.ID()))
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Abandoned) != 1 || len(snap.Abandoned[0].Turns) != 2 {
		t.Fatalf("abandoned on disk: %+v", snap.Abandoned)
	}
	var kept strings.Builder
	for _, m := range snap.Abandoned[0].Messages {
		kept.WriteString(m.Content + "\n")
	}
	if !strings.Contains(kept.String(), "turn two") || !strings.Contains(kept.String(), "turn three") {
		t.Errorf("the abandoned branch holds:\n%s", kept.String())
	}
	for _, m := range snap.Messages {
		if strings.Contains(m.Content, "turn two") {
			t.Errorf("the saved conversation still holds turn two")
		}
	}
	f.run(t, "/rewind")
	if list := lastOutput(f); !strings.Contains(list, "abandoned at") || !strings.Contains(list, `"turn two"`) {
		t.Errorf("/rewind does not list the abandoned branch:\n%s", list)
	}
}

// Outside git: /undo and /rewind work through the shadow repository in
// the state dir, and no .git appears in the workspace.
func TestUndoAndRewindOutsideGit(t *testing.T) {
	f := yoloFixture(t, func(t *testing.T) string { return t.TempDir() })
	f.srv.SetScript(writesPerTurn(map[string][]string{
		"turn one": {"one.txt"}, "turn two": {"two.txt"}, "turn three": {"three.txt"},
	}))
	f.run(t, "turn one")
	f.run(t, "turn two")
	f.run(t, "turn three")
	f.run(t, "/undo")
	if out := lastOutput(f); !strings.Contains(out, "removed  three.txt") {
		t.Errorf("/undo outside git: %q (error %q)", out, lastError(f))
	}
	f.run(t, "/rewind 2")
	if out := lastOutput(f); !strings.Contains(out, "removed  two.txt") {
		t.Errorf("/rewind outside git: %q (error %q)", out, lastError(f))
	}
	for name, want := range map[string]bool{"one.txt": true, "two.txt": false, "three.txt": false} {
		if exists(filepath.Join(f.root, name)) != want {
			t.Errorf("%s exists = %v", name, !want)
		}
	}
	if _, err := os.Lstat(filepath.Join(f.root, ".git")); !os.IsNotExist(err) {
		t.Error(".git appeared in the workspace")
	}
}
