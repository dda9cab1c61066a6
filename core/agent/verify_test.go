package agent

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
)

const goodGo = "package calc\n\nfunc Add(a, b int) int { return a + b }\n"
const badGo = "package calc\n\nfunc Add(a, b int) int { return a - b }\n"
const calcTest = "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 3) != 5 {\n\t\tt.Fatal(\"Add(2, 3) != 5\")\n\t}\n}\n"

// goProject makes the fixture's workspace a Go module with a test.
func goProject(t *testing.T, f *fixture) {
	writeFile(t, filepath.Join(f.root, "go.mod"), "module calc\n\ngo 1.21\n")
	writeFile(t, filepath.Join(f.root, "calc_test.go"), calcTest)
}

func writeCall(id, path, content string) fakellm.Reply {
	return fakellm.Reply{ToolCalls: []llm.ToolCall{call(id, "write", map[string]any{"path": path, "content": content})}}
}

func verifyRuns(f *fixture) []event.Event {
	var out []event.Event
	for _, e := range f.rec.find(event.ToolCallEnd) {
		if strings.HasPrefix(e.Tool.Title, "verify: ") {
			out = append(out, e)
		}
	}
	return out
}

func notices(f *fixture) string {
	var b strings.Builder
	for _, e := range f.rec.find(event.Notice) {
		b.WriteString(e.Text + "\n")
	}
	return b.String()
}

func TestAutoVerify(t *testing.T) {
	tests := []struct {
		name     string
		mode     string
		max      int
		input    string
		replies  []fakellm.Reply
		setup    func(*testing.T, *fixture)
		runs     []string // statuses of the verify runs
		notice   string
		requests int
	}{
		{
			name: "pass first time", mode: "auto-edit", max: 2, input: "add Add",
			replies: []fakellm.Reply{writeCall("w", "calc.go", goodGo), {Content: "done"}},
			runs:    []string{event.ToolCompleted}, notice: "auto-verify passed: `go test ./...`", requests: 2,
		},
		{
			name: "fail then fix", mode: "yolo", max: 2, input: "add Add",
			replies: []fakellm.Reply{writeCall("w1", "calc.go", badGo), {Content: "done"}, writeCall("w2", "calc.go", goodGo), {Content: "fixed"}},
			runs:    []string{event.ToolFailed, event.ToolCompleted}, notice: "auto-verify passed", requests: 4,
		},
		{
			name: "fail past the bound", mode: "auto-edit", max: 1, input: "add Add",
			replies: []fakellm.Reply{writeCall("w1", "calc.go", badGo), {Content: "done"}, writeCall("w2", "calc.go", badGo), {Content: "tried"}, {Content: "verification still fails"}},
			runs:    []string{event.ToolFailed, event.ToolFailed}, requests: 5,
		},
		{
			name: "default mode without request", mode: "default", max: 2, input: "add Add",
			replies: []fakellm.Reply{writeCall("w", "calc.go", goodGo), {Content: "done"}}, requests: 2,
		},
		{
			name: "default mode when asked", mode: "default", max: 2, input: "add Add and run the tests",
			replies: []fakellm.Reply{writeCall("w", "calc.go", goodGo), {Content: "done"}},
			runs:    []string{event.ToolCompleted}, requests: 2,
		},
		{
			name: "docs only", mode: "auto-edit", max: 2, input: "document it",
			replies: []fakellm.Reply{writeCall("w", "README.md", "# calc\n"), {Content: "done"}}, requests: 2,
		},
		{
			name: "user named a command outside the whitelist", mode: "auto-edit", max: 2, input: "add Add, then run `make test`",
			replies: []fakellm.Reply{writeCall("w", "calc.go", goodGo), {Content: "done"}},
			notice:  "not in the auto-verify whitelist", requests: 2,
		},
		{
			name: "command missing", mode: "auto-edit", max: 2, input: "change the build",
			setup: func(t *testing.T, f *fixture) {
				writeFile(t, filepath.Join(f.root, "gradlew"), "#!/bin/sh\n") // not executable
			},
			replies: []fakellm.Reply{writeCall("w", "src/App.java", "class App {}\n"), {Content: "done"}},
			runs:    []string{event.ToolFailed}, notice: "auto-verify stopped", requests: 2,
		},
		{
			name: "no project type", mode: "auto-edit", max: 2, input: "write notes.c",
			setup:   func(*testing.T, *fixture) {},
			replies: []fakellm.Reply{writeCall("w", "notes.c", "int x;\n"), {Content: "done"}},
			notice:  "auto-verify did not run", requests: 2,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, func(c *config.Config, o *Options) {
				c.Mode = tt.mode
				c.Workflow.MaxVerifyAttempts = tt.max
				o.AllowAsks = true
			})
			if tt.setup != nil {
				tt.setup(t, f)
			} else {
				goProject(t, f)
			}
			f.srv.Enqueue(tt.replies...)
			f.run(t, tt.input)
			runs := verifyRuns(f)
			if len(runs) != len(tt.runs) {
				t.Fatalf("%d verify runs, want %d; notices:\n%s", len(runs), len(tt.runs), notices(f))
			}
			for i, r := range runs {
				if r.Tool.Status != tt.runs[i] {
					t.Errorf("run %d: %s (%s), want %s\n%s", i, r.Tool.Status, r.Tool.Summary, tt.runs[i], r.Tool.Output)
				}
			}
			if !strings.Contains(notices(f), tt.notice) {
				t.Errorf("notices lack %q:\n%s", tt.notice, notices(f))
			}
			reqs := f.srv.Requests()
			if len(reqs) != tt.requests {
				t.Fatalf("%d model calls, want %d", len(reqs), tt.requests)
			}
			if tt.name == "fail then fix" || tt.name == "fail past the bound" {
				msgs := reqs[2].Messages
				fix := msgs[len(msgs)-1]
				if fix.Role != llm.RoleUser || !strings.Contains(fix.Content, "Add(2, 3) != 5") || !strings.Contains(fix.Content, "verify again") {
					t.Errorf("fix prompt = %+v", fix)
				}
			}
			if tt.name == "fail past the bound" {
				msgs := reqs[4].Messages
				if last := msgs[len(msgs)-1].Content; !strings.Contains(last, "last automatic attempt") {
					t.Errorf("final prompt = %q", last)
				}
			}
		})
	}
}

func TestPlanModeNeverVerifies(t *testing.T) {
	f := newFixture(t, func(c *config.Config, _ *Options) { c.Mode = "plan" })
	goProject(t, f)
	f.srv.Enqueue(writeCall("w", "calc.go", goodGo), fakellm.Reply{Content: "planned; run the tests"})
	f.run(t, "plan Add and run the tests")
	if runs := verifyRuns(f); len(runs) != 0 {
		t.Errorf("plan mode verified: %+v", runs)
	}
}

// TestAutoVerifyRunsTheHostsGo: with the workspace's bin/ on PATH (a
// dotfiles or scripts repository), auto-verify's `go test ./...` runs the
// go outside the workspace, never a bin/go the model wrote.
func TestAutoVerifyRunsTheHostsGo(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go")
	}
	marker := filepath.Join(t.TempDir(), "workspace-go-ran")
	f := newFixture(t, func(c *config.Config, o *Options) {
		c.Mode = "auto-edit"
		o.AllowAsks = true
		bin := filepath.Join(o.Root, "bin")
		writeFile(t, filepath.Join(bin, "go"), "#!/bin/sh\ntouch "+marker+"\nexit 1\n")
		if err := os.Chmod(filepath.Join(bin, "go"), 0o755); err != nil {
			t.Fatal(err)
		}
		t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	})
	goProject(t, f)
	f.srv.Enqueue(writeCall("w", "calc.go", goodGo), fakellm.Reply{Content: "done"})
	f.run(t, "add Add")
	runs := verifyRuns(f)
	if len(runs) != 1 || runs[0].Tool.Status != event.ToolCompleted {
		t.Fatalf("verify runs = %+v; notices:\n%s", runs, notices(f))
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("auto-verify ran the workspace's bin/go")
	}
}

// TestAutoVerifyAttemptBound: a model that keeps breaking the tests gets
// the first run plus the retries the bound allows, no more: 2 retries by
// default, 1 with max_verify_attempts 1 (seed 001 §6).
func TestAutoVerifyAttemptBound(t *testing.T) {
	for _, tt := range []struct {
		name string
		max  *int
		runs int
	}{
		{"default", nil, 3},
		{"max_verify_attempts 1", new(1), 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, func(c *config.Config, o *Options) {
				c.Mode = "auto-edit"
				o.AllowAsks = true
				if tt.max != nil {
					c.Workflow.MaxVerifyAttempts = *tt.max
				}
			})
			goProject(t, f)
			var replies []fakellm.Reply
			for i := range tt.runs + 2 { // more broken edits than the bound lets run
				replies = append(replies, writeCall(fmt.Sprintf("w%d", i), "calc.go", badGo), fakellm.Reply{Content: "done"})
			}
			f.srv.Enqueue(replies...)
			f.run(t, "add Add")
			runs := verifyRuns(f)
			if len(runs) != tt.runs {
				t.Fatalf("%d verify runs, want %d; notices:\n%s", len(runs), tt.runs, notices(f))
			}
			for _, r := range runs {
				if r.Tool.Status != event.ToolFailed {
					t.Errorf("run %s: %s", r.Tool.CallID, r.Tool.Status)
				}
			}
			if want := fmt.Sprintf("(attempt %d of %d)", tt.runs, tt.runs); !strings.Contains(runs[len(runs)-1].Tool.Summary, want) {
				t.Errorf("last run's summary %q lacks %q", runs[len(runs)-1].Tool.Summary, want)
			}
			// After the last run's fix prompt the model edits once more:
			// nothing runs it.
			if n := len(f.srv.Requests()); n != 2*tt.runs+2 {
				t.Errorf("%d model calls, want %d", n, 2*tt.runs+2)
			}
		})
	}
}
