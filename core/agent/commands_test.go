package agent

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/agent/todo"
	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
)

func read(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		return "<missing>"
	}
	return string(data)
}

func lastOutput(f *fixture) string {
	outs := f.rec.find(event.CommandOutput)
	if len(outs) == 0 {
		return ""
	}
	return outs[len(outs)-1].Text
}

func lastError(f *fixture) string {
	errs := f.rec.find(event.Error)
	if len(errs) == 0 {
		return ""
	}
	return errs[len(errs)-1].Text
}

func TestUndoTwoTurns(t *testing.T) {
	f := newFixture(t, func(c *config.Config, _ *Options) { c.Mode = "yolo" })
	writeFile(t, filepath.Join(f.root, ".gitignore"), "node_modules/\n")
	writeFile(t, filepath.Join(f.root, "keep.txt"), "v1\n")
	// Turn 1: edit keep.txt. Turn 2: create a nested file, delete keep.txt
	// through bash and fill an ignored directory.
	f.srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("r", "read", map[string]any{"path": "keep.txt"})}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("e", "edit", map[string]any{"path": "keep.txt", "old_string": "v1", "new_string": "v2"})}},
		fakellm.Reply{Content: "edited"},
		fakellm.Reply{ToolCalls: []llm.ToolCall{
			call("w", "write", map[string]any{"path": "a/b/new.txt", "content": "new\n"}),
			call("b", "bash", map[string]any{"command": "rm keep.txt && mkdir -p node_modules && echo dep > node_modules/x"}),
		}},
		fakellm.Reply{Content: "changed"},
	)
	f.run(t, "turn one")
	f.run(t, "turn two")
	if read(t, filepath.Join(f.root, "keep.txt")) != "<missing>" || read(t, filepath.Join(f.root, "a/b/new.txt")) != "new\n" {
		t.Fatal("turn two did not run as scripted")
	}

	f.run(t, "/undo")
	if got := read(t, filepath.Join(f.root, "keep.txt")); got != "v2\n" {
		t.Errorf("keep.txt after first undo = %q, want v2", got)
	}
	if _, err := os.Stat(filepath.Join(f.root, "a")); !os.IsNotExist(err) {
		t.Errorf("new directories left behind: %v", err)
	}
	if got := read(t, filepath.Join(f.root, "node_modules/x")); got != "dep\n" {
		t.Errorf("ignored file touched: %q", got)
	}
	if out := lastOutput(f); !strings.Contains(out, "turn two") {
		t.Errorf("undo output = %q", out)
	}
	changed := f.rec.find(event.FilesChanged)
	if paths := strings.Join(changed[len(changed)-1].Paths, " "); !strings.Contains(paths, "keep.txt") || !strings.Contains(paths, "a/b/new.txt") {
		t.Errorf("files changed by undo = %s", paths)
	}

	f.run(t, "/undo")
	if got := read(t, filepath.Join(f.root, "keep.txt")); got != "v1\n" {
		t.Errorf("keep.txt after second undo = %q, want v1", got)
	}
	f.run(t, "/undo")
	if e := lastError(f); !strings.Contains(e, "nothing to undo") {
		t.Errorf("third undo: %q", e)
	}

	// The model is told.
	f.srv.Enqueue(fakellm.Reply{Content: "ok"})
	f.run(t, "what now?")
	msgs := f.srv.Requests()[len(f.srv.Requests())-1].Messages
	var told int
	for _, m := range msgs {
		if m.Role == llm.RoleUser && strings.HasPrefix(m.Content, "[undo]") {
			told++
		}
	}
	if told != 2 {
		t.Errorf("model told of %d undos, want 2", told)
	}
}

func TestUndoKeepsUserEdits(t *testing.T) {
	f := newFixture(t, func(c *config.Config, _ *Options) { c.Mode = "yolo" })
	f.srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{
			call("w1", "write", map[string]any{"path": "mine.txt", "content": "agent\n"}),
			call("w2", "write", map[string]any{"path": "other.txt", "content": "agent\n"}),
		}},
		fakellm.Reply{Content: "done"},
	)
	f.run(t, "write")
	writeFile(t, filepath.Join(f.root, "mine.txt"), "user edit\n")
	f.run(t, "/undo")
	if got := read(t, filepath.Join(f.root, "mine.txt")); got != "user edit\n" {
		t.Errorf("user edit clobbered: %q", got)
	}
	if got := read(t, filepath.Join(f.root, "other.txt")); got != "<missing>" {
		t.Errorf("other.txt = %q", got)
	}
	if out := lastOutput(f); !strings.Contains(out, "mine.txt") {
		t.Errorf("undo does not say it skipped mine.txt: %q", out)
	}
}

// Outside git and without a state dir for a shadow repository there are
// no snapshots: /undo and /diff say why (TestUndoAndRewindOutsideGit has
// the shadow repository).
func TestUndoAndDiffNeedGit(t *testing.T) {
	f := newFixture(t, func(c *config.Config, _ *Options) { c.StateDir = "" })
	if err := os.RemoveAll(filepath.Join(f.root, ".git")); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"/undo", "/diff"} {
		f.run(t, cmd)
		if e := lastError(f); !strings.Contains(e, "git") {
			t.Errorf("%s outside a repository: %q", cmd, e)
		}
	}
}

func TestDiffCommand(t *testing.T) {
	f := newFixture(t, nil)
	f.run(t, "/diff")
	if out := lastOutput(f); out != "no changes in the workspace" {
		t.Errorf("empty diff = %q", out)
	}
	writeFile(t, filepath.Join(f.root, "x.txt"), "one\ntwo\n")
	f.run(t, "/diff")
	outs := f.rec.find(event.CommandOutput)
	last := outs[len(outs)-1]
	if !strings.Contains(last.Text, "x.txt") || !strings.Contains(last.Text, "+2") || !strings.Contains(last.Detail, "+two") {
		t.Errorf("diff output = %q / %q", last.Text, last.Detail)
	}
}

func TestTodosAndComplexTasks(t *testing.T) {
	f := newFixture(t, nil)
	f.run(t, "/todos")
	if out := lastOutput(f); out != "no todos" {
		t.Errorf("/todos = %q", out)
	}
	f.srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("t", "todo", map[string]any{"todos": []map[string]string{
			{"content": "read code", "status": "completed"}, {"content": "write code", "status": "in_progress"}}})}},
		fakellm.Reply{Content: "working"},
	)
	long := "1. rename the config loader 2. migrate the tests 3. update the docs"
	f.run(t, long)
	first := f.srv.Requests()[0]
	// The note goes with the user's message, never into the system
	// message (prompt caches, issue 11 §4b).
	if msgs := first.Messages; !strings.Contains(msgs[len(msgs)-1].Content, "complex, multi-step task") || strings.Contains(msgs[0].Content, "complex, multi-step task") {
		t.Error("complex task note missing from the user message of the first request, or in the system message")
	}
	// The list started for it is the model's to show: no event, and no
	// notice, until the model writes its steps (issue 39, newcomer run 6).
	todos := f.rec.find(event.TodosUpdated)
	if len(todos) != 1 || len(todos[0].Todos) != 2 || todos[0].Todos[1].Status != todo.InProgress {
		t.Fatalf("todo events = %+v, want only the model's list", todos)
	}
	if n := len(f.rec.find(event.Notice)); n != 0 {
		t.Errorf("%d notices for a complex task: %+v", n, f.rec.find(event.Notice))
	}
	f.run(t, "/todos")
	if out := lastOutput(f); out != "[x] read code\n[~] write code\n" {
		t.Errorf("/todos = %q", out)
	}
	// Unfinished todos: the next complex input does not reset the list.
	f.srv.Enqueue(fakellm.Reply{Content: "ok"})
	f.run(t, "1. one thing 2. another thing 3. a third thing")
	if n := len(f.rec.find(event.TodosUpdated)); n != 1 || len(f.sess.Todos()) != 2 {
		t.Errorf("todo list re-initialised over unfinished todos (%d updates, %+v)", n, f.sess.Todos())
	}
	if strings.Contains(f.srv.Requests()[2].Messages[0].Content, "complex, multi-step task") {
		t.Error("complex note leaked into a later turn")
	}
	// Bad todo arguments are an error result, the list stays.
	f.srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("t2", "todo", map[string]any{"todos": []map[string]string{{"content": "x", "status": "done"}}})}},
		fakellm.Reply{Content: "ok"},
	)
	f.run(t, "short")
	msgs := f.srv.Requests()[4].Messages
	if res := msgs[len(msgs)-1].Content; !strings.Contains(res, "status") {
		t.Errorf("bad todo result = %q", res)
	}
}

func TestSkills(t *testing.T) {
	f := newFixture(t, nil)
	f.run(t, "/skills")
	if out := lastOutput(f); !strings.Contains(out, "no skills") {
		t.Errorf("/skills = %q", out)
	}
	if tl := f.srv.Requests(); len(tl) != 0 {
		t.Fatal("model called")
	}
	writeFile(t, filepath.Join(f.root, ".coder/skills/release/SKILL.md"), "---\nname: release\ndescription: how to cut a release\n---\nRun make release.\n")
	writeFile(t, filepath.Join(f.root, ".coder/skills/broken/SKILL.md"), "no front matter\n")
	f.run(t, "/skills")
	if out := lastOutput(f); !strings.Contains(out, "release") || !strings.Contains(out, "broken") {
		t.Errorf("/skills = %q", out)
	}
	f.srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("s1", "skill", map[string]any{"name": "release"}), call("s2", "skill", map[string]any{"name": "nope"})}},
		fakellm.Reply{Content: "ok"},
	)
	f.run(t, "cut a release")
	req := f.srv.Requests()[0]
	if !strings.Contains(req.Messages[0].Content, "how to cut a release") {
		t.Error("skill descriptions not in the instructions")
	}
	msgs := f.srv.Requests()[1].Messages
	if got := msgs[len(msgs)-2].Content; !strings.Contains(got, "Run make release.") {
		t.Errorf("skill body = %q", got)
	}
	if got := msgs[len(msgs)-1].Content; !strings.Contains(got, "continue without") {
		t.Errorf("missing skill fallback = %q", got)
	}
	if len(f.rec.find(event.ApprovalRequested)) != 0 {
		t.Error("loading a skill asked for approval")
	}
}

func TestNewAndResumeCommands(t *testing.T) {
	f := newFixture(t, nil)
	f.srv.Enqueue(fakellm.Reply{Content: "one"})
	f.run(t, "first session")
	first := f.sess.ID()
	f.run(t, "/new")
	if f.sess.ID() == first || len(f.sess.History("")) != 0 {
		t.Fatalf("/new kept the old session")
	}
	f.run(t, "/resume")
	if out := lastOutput(f); !strings.Contains(out, string(first)) || !strings.Contains(out, "first session") {
		t.Errorf("/resume list = %q", out)
	}
	f.run(t, "/resume 6f1c9b1e-0000-4000-8000-000000000000")
	if e := lastError(f); !strings.Contains(e, "no such session") {
		t.Errorf("unknown id: %q", e)
	}
	f.run(t, "/resume "+string(first))
	if f.sess.ID() != first || len(f.sess.History("")) != 2 {
		t.Errorf("resume: id %s, %d messages", f.sess.ID(), len(f.sess.History("")))
	}
}

// TestModelCommand: /model lists the endpoint's models, refuses a name it
// does not list (nothing switched or saved), /model! takes it anyway, and
// the .coder/ the host creates stays out of git status.
func TestModelCommand(t *testing.T) {
	f := newFixture(t, nil)
	f.srv.SetModels([]string{"gpt-a", "gpt-b"})
	f.run(t, "/model")
	outs := f.rec.find(event.CommandOutput)
	if len(outs) == 0 || !strings.Contains(outs[len(outs)-1].Text, "gpt-a\n  gpt-b") {
		t.Fatalf("/model output = %+v", outs)
	}
	if picks := f.rec.find(event.ModelChoices); len(picks) != 1 || strings.Join(picks[0].Paths, " ") != "gpt-a gpt-b" || picks[0].Text != "test-model" {
		t.Errorf("model choices = %+v", picks)
	}
	f.run(t, "/model gpt-oops")
	if errs := f.rec.find(event.Error); len(errs) == 0 || !strings.Contains(errs[len(errs)-1].Text, "/model! gpt-oops") || !strings.Contains(errs[len(errs)-1].Text, "did you mean gpt-a, gpt-b?") {
		t.Errorf("unknown model error = %+v", errs)
	}
	if st := f.sess.Status(); st.Model != "test-model" {
		t.Errorf("an unknown model was switched to: %s", st.Model)
	}
	if _, err := os.Stat(config.WorkspaceFile(f.root)); err == nil {
		t.Errorf("an unknown model was saved")
	}
	f.run(t, "/model! gpt-oops")
	if st := f.sess.Status(); st.Model != "gpt-oops" {
		t.Errorf("/model! did not switch: %s", st.Model)
	}
	data, err := os.ReadFile(config.WorkspaceFile(f.root))
	if err != nil || !strings.Contains(string(data), "gpt-oops") {
		t.Errorf("/model! did not save: %s %v", data, err)
	}
	out, err := exec.Command("git", "-C", f.root, "status", "--porcelain").CombinedOutput()
	if err != nil || strings.Contains(string(out), ".coder") {
		t.Errorf("git status shows the host's .coder/: %s %v", out, err)
	}
}

// TestToolsRowsAlign: /tools lists every built-in and conversation tool
// with its kind and description in aligned columns (conv_history included).
func TestToolsRowsAlign(t *testing.T) {
	f := newFixture(t, nil)
	f.run(t, "/tools")
	outs := f.rec.find(event.CommandOutput)
	if len(outs) == 0 {
		t.Fatal("no /tools output")
	}
	col := -1
	for _, line := range strings.Split(outs[len(outs)-1].Text, "\n") {
		fields := strings.Fields(line)
		if len(fields) < 3 || !strings.HasPrefix(line, "  ") || strings.HasSuffix(fields[0], ":") {
			continue
		}
		rest := line[2+len(fields[0]):]
		at := 2 + len(fields[0]) + len(rest) - len(strings.TrimLeft(rest, " ")) // the kind column
		if col == -1 {
			col = at
		} else if at != col {
			t.Errorf("row %q: kind at column %d, want %d", line, at, col)
		}
		if fields[0] == "conv_history" {
			return
		}
	}
	t.Errorf("conv_history not listed:\n%s", outs[len(outs)-1].Text)
}

// TestComplexEnumerationInWorkspace: a slash chain that names a workspace
// directory is a path, not a list; three slash words of any case are one
// (seed 001 §7).
func TestComplexEnumerationInWorkspace(t *testing.T) {
	tests := []struct {
		input   string
		complex bool
	}{
		{"cd src/Core/Util now", false},
		{"add/edit/delete", true},
		{"1. a 2. b", false},
		{"1. a 2. b 3. c", true},
	}
	for _, tc := range tests {
		t.Run(tc.input, func(t *testing.T) {
			f := newFixture(t, nil)
			if err := os.MkdirAll(filepath.Join(f.root, "src", "Core", "Util"), 0o755); err != nil {
				t.Fatal(err)
			}
			f.srv.Enqueue(fakellm.Reply{Content: "ok"})
			f.run(t, tc.input)
			msgs := f.srv.Requests()[0].Messages
			if got := strings.Contains(msgs[len(msgs)-1].Content, "complex, multi-step task"); got != tc.complex || (len(f.sess.Todos()) > 0) != tc.complex {
				t.Errorf("complex task = %v (todos %+v), want %v", got, f.sess.Todos(), tc.complex)
			}
		})
	}
}

// TestModelWithoutList: an endpoint without GET /models (fakellm answers
// 404) just has no list: /model shows the current model and /model NAME
// switches, neither an error.
func TestModelWithoutList(t *testing.T) {
	f := newFixture(t, nil)
	f.run(t, "/model")
	if out := lastOutput(f); !strings.Contains(out, "current model: test-model (the endpoint lists no models") {
		t.Errorf("/model = %q", out)
	}
	f.run(t, "/model any-name")
	if st := f.sess.Status(); st.Model != "any-name" {
		t.Errorf("model %q, want any-name", st.Model)
	}
	if out := lastOutput(f); !strings.HasPrefix(out, "model: any-name") {
		t.Errorf("/model any-name = %q", out)
	}
	if errs := f.rec.find(event.Error); len(errs) != 0 {
		t.Errorf("errors: %+v", errs)
	}
}

// TestModelSaveFailureKeepsSwitch (seed 001 §9): when .coder/config.json
// cannot be written, /model still switches the session (no rollback),
// says the save failed, and leaves the file as it was.
func TestModelSaveFailureKeepsSwitch(t *testing.T) {
	f := newFixture(t, nil)
	cfg := filepath.Join(f.root, ".coder", "config.json")
	writeFile(t, cfg, "[1, 2]\n") // not an object: never rewritten
	f.run(t, "/model other-model")
	if st := f.sess.Status(); st.Model != "other-model" {
		t.Errorf("model %q: the switch was rolled back", st.Model)
	}
	if out := lastOutput(f); !strings.Contains(out, "model: other-model") || !strings.Contains(out, "for this session only: saving it failed") {
		t.Errorf("/model output %q: want the switch and the failed save", out)
	}
	if got := read(t, cfg); got != "[1, 2]\n" {
		t.Errorf("config file rewritten: %q", got)
	}
	f.srv.Enqueue(fakellm.Reply{Content: "hi"})
	f.run(t, "hello")
	if reqs := f.srv.Requests(); len(reqs) != 1 || reqs[0].Model != "other-model" {
		t.Errorf("the next request did not use the switched model")
	}
}
