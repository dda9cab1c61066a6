//go:build unix

package hooks

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/coder-nvim/coder-nvim/core/hostpath"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
		want string // "" when valid
	}{
		{"valid", Config{PreToolUse: {{Matcher: "bash|edit_*", Command: "true", Timeout: "5s"}}, Stop: {{Command: "true"}}}, ""},
		{"unknown event", Config{"PreToolUse": {{Command: "true"}}}, `unknown key "hooks.PreToolUse"`},
		{"empty command", Config{Stop: {{Command: " "}}}, `"hooks.stop[0].command": command is empty`},
		{"matcher on stop", Config{Stop: {{Command: "true", Matcher: "bash"}}}, "only pre_tool_use and post_tool_use"},
		{"bad glob", Config{PreToolUse: {{Command: "true", Matcher: "[bash"}}}, "bad glob"},
		{"bad timeout", Config{PreToolUse: {{Command: "true", Timeout: "soon"}}}, `"hooks.pre_tool_use[0].timeout"`},
		{"timeout too long", Config{PreToolUse: {{Command: "true", Timeout: "11m"}}}, "up to 10m0s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.Validate()
			if tc.want == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestMatches(t *testing.T) {
	for _, tc := range []struct {
		matcher, tool string
		want          bool
	}{
		{"", "bash", true},
		{"*", "bash", true},
		{"bash", "bash", true},
		{"bash", "read_file", false},
		{"edit | patch", "patch", true},
		{"github__*", "github__search", true},
		{"github__*", "bash", false},
		{"Bash", "bash", true},
	} {
		if got := (Hook{Matcher: tc.matcher}).Matches(tc.tool); got != tc.want {
			t.Errorf("matcher %q, tool %q: got %v, want %v", tc.matcher, tc.tool, got, tc.want)
		}
	}
}

func TestRunOutcomes(t *testing.T) {
	for _, tc := range []struct {
		name    string
		hooks   []Hook
		blocked bool
		reason  string
		context string
		warning string
	}{
		{"exit 0 adds context", []Hook{{Command: "echo first"}, {Command: "echo second"}}, false, "", "first\nsecond", ""},
		{"exit 2 blocks with stderr", []Hook{{Command: "echo no >&2; exit 2"}, {Command: "echo never"}}, true, "no", "", ""},
		{"exit 2 without stderr", []Hook{{Command: "exit 2"}}, true, "exited 2 without a reason", "", ""},
		{"other exit warns", []Hook{{Command: "echo oops >&2; exit 3"}, {Command: "echo after"}}, false, "", "after", "exited 3; going on: oops"},
		{"missing program warns", []Hook{{Command: "/nonexistent/hook"}}, false, "", "", "exited 127"},
		{"unmatched does not run", []Hook{{Matcher: "read_file", Command: "exit 2"}}, false, "", "", ""},
		{"JSON deny", []Hook{{Command: `echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "not here"}}'`}}, true, "not here", "", ""},
		{"JSON block", []Hook{{Command: `echo '{"decision": "block", "reason": "no"}'`}}, true, "no", "", ""},
		{"JSON allow approves nothing", []Hook{{Command: `echo '{"hookSpecificOutput": {"permissionDecision": "allow", "additionalContext": "fyi"}, "systemMessage": "checked"}'`}}, false, "", "fyi", "checked"},
		{"not JSON is context", []Hook{{Command: `echo '{not json'`}}, false, "", "{not json", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRunner(Config{PreToolUse: tc.hooks}, t.TempDir())
			out := r.Run(context.Background(), PreToolUse, Input{ToolName: "bash"})
			if out.Blocked != tc.blocked || !strings.Contains(out.Reason, tc.reason) || out.Context != tc.context {
				t.Fatalf("got %+v", out)
			}
			if tc.warning == "" && len(out.Warnings) > 0 || tc.warning != "" && (len(out.Warnings) != 1 || !strings.Contains(out.Warnings[0], tc.warning)) {
				t.Fatalf("warnings %q, want %q", out.Warnings, tc.warning)
			}
		})
	}
}

// session_start has nothing to block: its exit 2 is a warning.
func TestSessionStartCannotBlock(t *testing.T) {
	r := newRunner(Config{SessionStart: {{Command: "echo why >&2; exit 2"}}}, t.TempDir())
	out := r.Run(context.Background(), SessionStart, Input{Source: "startup"})
	if out.Blocked || len(out.Warnings) != 1 || !strings.Contains(out.Warnings[0], "exited 2; going on: why") {
		t.Fatalf("got %+v", out)
	}
}

// The hook reads the event on stdin, in Claude Code's field names.
func TestRunPassesEventJSON(t *testing.T) {
	dir := t.TempDir()
	got := filepath.Join(dir, "event.json")
	r := newRunner(Config{PostToolUse: {{Matcher: "bash", Command: "cat > " + got}}}, dir)
	in := Input{SessionID: "s1", ConversationID: "c1", TaskID: "t1", ToolName: "bash", ToolUseID: "call_1",
		ToolInput: json.RawMessage(`{"command":"ls"}`), ToolResponse: &ToolResponse{Status: "completed", Output: "a\nb"}}
	if out := r.Run(context.Background(), PostToolUse, in); len(out.Warnings) > 0 {
		t.Fatal(out.Warnings)
	}
	data, err := os.ReadFile(got)
	if err != nil {
		t.Fatal(err)
	}
	var ev map[string]any
	if err := json.Unmarshal(data, &ev); err != nil {
		t.Fatalf("%v: %s", err, data)
	}
	want := map[string]any{"session_id": "s1", "conversation_id": "c1", "task_id": "t1", "cwd": dir,
		"hook_event_name": "PostToolUse", "event": "post_tool_use", "tool_name": "bash", "tool_use_id": "call_1"}
	for k, v := range want {
		if ev[k] != v {
			t.Errorf("%s = %v, want %v", k, ev[k], v)
		}
	}
	if in, _ := ev["tool_input"].(map[string]any); in["command"] != "ls" {
		t.Errorf("tool_input = %v", ev["tool_input"])
	}
	if resp, _ := ev["tool_response"].(map[string]any); resp["output"] != "a\nb" || resp["status"] != "completed" {
		t.Errorf("tool_response = %v", ev["tool_response"])
	}
}

// A hook that hangs, and the child it started, are killed at its timeout;
// the run goes on with a warning.
func TestRunTimeout(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child.pid")
	r := newRunner(Config{Stop: {{Command: "sleep 60 & echo $! > " + pidFile + "; wait", Timeout: "2s"}, {Command: "echo next"}}}, dir)
	start := time.Now()
	out := r.Run(context.Background(), Stop, Input{})
	if d := time.Since(start); d > 20*time.Second {
		t.Fatalf("took %s", d)
	}
	if len(out.Warnings) != 1 || !strings.Contains(out.Warnings[0], "timed out after 2s") || out.Context != "next" {
		t.Fatalf("got %+v", out)
	}
	assertGone(t, pidFile)
}

// A hook that exits while a child holds its output open returns at once
// (within the wait delay), and the child is killed.
func TestRunBackgroundChild(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child.pid")
	r := newRunner(Config{Stop: {{Command: "sleep 60 & echo $! > " + pidFile + "; echo done"}}}, dir)
	start := time.Now()
	out := r.Run(context.Background(), Stop, Input{})
	if d := time.Since(start); d > 20*time.Second {
		t.Fatalf("took %s", d)
	}
	if out.Context != "done" || len(out.Warnings) > 0 {
		t.Fatalf("got %+v", out)
	}
	assertGone(t, pidFile)
}

func TestRunCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	r := newRunner(Config{Stop: {{Command: "echo started; sleep 60"}}}, t.TempDir())
	time.AfterFunc(100*time.Millisecond, cancel)
	out := r.Run(ctx, Stop, Input{})
	if out.Blocked || len(out.Warnings) > 0 {
		t.Fatalf("got %+v", out)
	}
}

func TestRunCapsOutput(t *testing.T) {
	r := newRunner(Config{Stop: {{Command: "head -c 100000 /dev/zero | tr '\\0' x; echo"}}}, t.TempDir())
	out := r.Run(context.Background(), Stop, Input{})
	if len(out.Context) > OutputCap+100 || !strings.HasSuffix(out.Context, "[hook output cut at 16 KiB]") {
		t.Fatalf("context of %d bytes ends %q", len(out.Context), out.Context[max(0, len(out.Context)-40):])
	}
}

// assertGone waits for the process whose pid is in file to be gone.
func assertGone(t *testing.T, file string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if syscall.Kill(pid, 0) == syscall.ESRCH {
			return
		}
		// A killed child may linger as a zombie until init reaps it.
		if stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil && strings.Contains(string(stat), ") Z ") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d still runs", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A hook that does not read a large event still ends cleanly.
func TestRunUnreadInput(t *testing.T) {
	r := newRunner(Config{PostToolUse: {{Command: "echo skipped"}, {Command: "wc -c"}}}, t.TempDir())
	in := Input{ToolName: "bash", ToolResponse: &ToolResponse{Output: strings.Repeat("x", 1<<20)}}
	out := r.Run(context.Background(), PostToolUse, in)
	if len(out.Warnings) > 0 || !strings.HasPrefix(out.Context, "skipped\n") {
		t.Fatalf("got %+v", out)
	}
	if n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(out.Context, "skipped\n"))); n < 1<<20 {
		t.Fatalf("the second hook read %d bytes", n)
	}
}

// newRunner is New with the host's programs for dir.
func newRunner(c Config, dir string) *Runner {
	return New(c, dir, hostpath.Resolve(os.Getenv("PATH"), dir))
}
