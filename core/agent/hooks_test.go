//go:build unix

package agent

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/hooks"
	"github.com/coder-nvim/coder-nvim/core/llm"
)

// readEvent reads the JSON a hook saved from its stdin.
func readEvent(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var ev map[string]any
	if err := json.Unmarshal(data, &ev); err != nil {
		t.Fatalf("%s: %v: %s", path, err, data)
	}
	return ev
}

// Every event's hooks run with the event as JSON on stdin; the context
// their stdout adds reaches the model where the event allows it, and every
// request still extends the one before it.
func TestHookEventsFire(t *testing.T) {
	dir := t.TempDir()
	save := func(name string) string { return "cat > " + filepath.Join(dir, name+".json") }
	f := newFixture(t, func(c *config.Config, _ *Options) {
		c.Mode = "yolo"
		c.Hooks = hooks.Config{
			hooks.SessionStart:     {{Command: save("session_start") + "; echo start context"}},
			hooks.UserPromptSubmit: {{Command: save("user_prompt_submit") + "; echo prompt context"}},
			hooks.PreToolUse:       {{Matcher: "bash", Command: save("pre_tool_use")}, {Matcher: "read", Command: "exit 2"}},
			hooks.PostToolUse:      {{Matcher: "bash", Command: save("post_tool_use") + "; echo post context"}},
			hooks.Stop:             {{Command: save("stop")}},
		}
	})
	f.srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("c1", "bash", map[string]any{"command": "echo hi"})}},
		fakellm.Reply{Content: "done"},
	)
	f.run(t, "say hi")

	id, conv := string(f.sess.ID()), string(f.sess.RootConversation())
	for _, tc := range []struct {
		ev   hooks.Event
		want map[string]any
	}{
		{hooks.SessionStart, map[string]any{"hook_event_name": "SessionStart", "source": "startup"}},
		{hooks.UserPromptSubmit, map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": "say hi"}},
		{hooks.PreToolUse, map[string]any{"hook_event_name": "PreToolUse", "tool_name": "bash", "tool_use_id": "c1", "permission_mode": "yolo"}},
		{hooks.PostToolUse, map[string]any{"hook_event_name": "PostToolUse", "tool_name": "bash", "tool_use_id": "c1"}},
		{hooks.Stop, map[string]any{"hook_event_name": "Stop", "last_assistant_message": "done", "stop_hook_active": false}},
	} {
		got := readEvent(t, filepath.Join(dir, string(tc.ev)+".json"))
		tc.want["session_id"], tc.want["conversation_id"], tc.want["cwd"], tc.want["event"] = id, conv, f.sess.Root(), string(tc.ev)
		for k, v := range tc.want {
			if got[k] != v {
				t.Errorf("%s: %s = %v, want %v", tc.ev, k, got[k], v)
			}
		}
		if tc.ev != hooks.SessionStart && got["task_id"] == "" {
			t.Errorf("%s: no task id: %v", tc.ev, got)
		}
	}
	if in, _ := readEvent(t, filepath.Join(dir, "pre_tool_use.json"))["tool_input"].(map[string]any); in["command"] != "echo hi" {
		t.Errorf("pre_tool_use tool_input = %v", in)
	}
	if resp, _ := readEvent(t, filepath.Join(dir, "post_tool_use.json"))["tool_response"].(map[string]any); resp["status"] != "completed" || !strings.Contains(resp["output"].(string), "hi") {
		t.Errorf("post_tool_use tool_response = %v", resp)
	}

	reqs := f.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	if user := reqs[0].Messages[1].Content; user != "say hi\n\n[hook context]\nstart context\nprompt context" {
		t.Errorf("first user message = %q", user)
	}
	first, second := reqs[0].Messages, reqs[1].Messages
	if !reflect.DeepEqual(second[:len(first)], first) {
		t.Errorf("the second request does not extend the first:\n%+v\n%+v", first, second)
	}
	if tool := second[len(second)-1]; tool.Role != llm.RoleTool || !strings.HasSuffix(tool.Content, "\n\n[post_tool_use hook]\npost context") {
		t.Errorf("tool message = %+v", tool)
	}
	if ends := f.rec.find(event.ToolCallEnd); len(ends) != 1 || !strings.Contains(ends[0].Tool.Output, "post context") {
		t.Errorf("tool end events: %+v", ends)
	}

	// The start context goes with the session's first input only.
	f.srv.Enqueue(fakellm.Reply{Content: "again"})
	f.run(t, "more")
	reqs = f.srv.Requests()
	if last := reqs[len(reqs)-1].Messages; last[len(last)-1].Content != "more\n\n[hook context]\nprompt context" {
		t.Errorf("second user message = %q", last[len(last)-1].Content)
	}
}

// A pre_tool_use hook that exits 2 refuses a bash call before anyone is
// asked: the command does not run, and the model reads the hook's reason
// as the call's one result.
func TestPreToolUseHookBlocksBash(t *testing.T) {
	f := newFixture(t, func(c *config.Config, _ *Options) {
		c.Hooks = hooks.Config{hooks.PreToolUse: {{Matcher: "bash", Command: `grep -q touch && { echo "no touching here" >&2; exit 2; }; exit 0`}}}
	})
	f.rec.onAsk = func(a *event.Approval) { t.Errorf("asked: %+v", a) }
	f.srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("c1", "bash", map[string]any{"command": "touch pwned"})}},
		fakellm.Reply{Content: "ok"},
	)
	f.run(t, "make a file")

	if _, err := os.Stat(filepath.Join(f.root, "pwned")); err == nil {
		t.Fatal("the blocked command ran")
	}
	msgs := f.srv.Requests()[1].Messages
	checkPairs(t, msgs)
	if tool := msgs[len(msgs)-1]; tool.Content != "blocked by a pre_tool_use hook: no touching here" {
		t.Errorf("tool message = %q", tool.Content)
	}
	if ends := f.rec.find(event.ToolCallEnd); len(ends) != 1 || ends[0].Tool.Status != event.ToolDenied {
		t.Errorf("tool end events: %+v", ends)
	}
	if begins := f.rec.find(event.ToolCallBegin); len(begins) != 1 {
		t.Errorf("tool begin events: %+v", begins)
	}
}

// A hook that hangs is killed at its timeout; the user is told, and the
// turn goes on.
func TestHangingHookTimesOut(t *testing.T) {
	f := newFixture(t, func(c *config.Config, _ *Options) {
		c.Mode = "yolo"
		c.Hooks = hooks.Config{hooks.PreToolUse: {{Command: "sleep 60", Timeout: "300ms"}}}
	})
	f.srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("c1", "bash", map[string]any{"command": "echo ran"})}},
		fakellm.Reply{Content: "ok"},
	)
	start := time.Now()
	f.run(t, "go")
	if d := time.Since(start); d > 30*time.Second {
		t.Fatalf("the turn took %s", d)
	}
	var told bool
	for _, n := range f.rec.find(event.Notice) {
		told = told || strings.Contains(n.Text, "timed out after 300ms")
	}
	if !told {
		t.Errorf("no timeout notice: %+v", f.rec.find(event.Notice))
	}
	msgs := f.srv.Requests()[1].Messages
	if tool := msgs[len(msgs)-1]; !strings.Contains(tool.Content, "ran") {
		t.Errorf("the call did not run: %q", tool.Content)
	}
}

// A user_prompt_submit hook that exits 2 keeps the input from the model
// and tells the user why.
func TestUserPromptSubmitHookBlocks(t *testing.T) {
	f := newFixture(t, func(c *config.Config, _ *Options) {
		c.Hooks = hooks.Config{hooks.UserPromptSubmit: {{Command: `grep -q secret && { echo "no secrets please" >&2; exit 2; }; exit 0`}}}
	})
	f.run(t, "the secret is 42")
	if n := len(f.srv.Requests()); n != 0 {
		t.Fatalf("%d requests sent", n)
	}
	if errs := f.rec.find(event.Error); len(errs) != 1 || !strings.Contains(errs[0].Text, "no secrets please") || !strings.Contains(errs[0].Text, "the secret is 42") {
		t.Errorf("the user was not told: %+v", errs)
	}
	if len(f.rec.find(event.UserMessage)) != 0 || len(f.sess.History("")) != 0 {
		t.Errorf("the input was kept: %+v", f.sess.History(""))
	}
	if done := f.rec.find(event.TaskComplete); len(done) != 1 {
		t.Errorf("task complete: %+v", done)
	}
}

// A stop hook that exits 2 sends the model back to work with its reason,
// and knows it did (stop_hook_active) the next time.
func TestStopHookContinues(t *testing.T) {
	f := newFixture(t, func(c *config.Config, _ *Options) {
		c.Hooks = hooks.Config{hooks.Stop: {{Command: `grep -q '"stop_hook_active":true' && exit 0; echo "run the tests first" >&2; exit 2`}}}
	})
	f.srv.Enqueue(fakellm.Reply{Content: "done"}, fakellm.Reply{Content: "tests pass, done"})
	f.run(t, "fix it")
	reqs := f.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	if last := reqs[1].Messages[len(reqs[1].Messages)-1]; last.Role != llm.RoleUser || last.Content != "[stop hook] run the tests first" {
		t.Errorf("last message = %+v", last)
	}
	if done := f.rec.find(event.TaskComplete); len(done) != 1 || done[0].Text != "tests pass, done" {
		t.Errorf("task complete: %+v", done)
	}
}

func TestStatusListsHooks(t *testing.T) {
	f := newFixture(t, func(c *config.Config, _ *Options) {
		c.Hooks = hooks.Config{hooks.PostToolUse: {{Matcher: "edit|patch", Command: "gofmt -w .", Timeout: "5s"}}}
	})
	f.run(t, "/status")
	out := f.rec.find(event.CommandOutput)
	if len(out) != 1 || !strings.Contains(out[0].Text, "hooks (:help coder-hooks):\n  post_tool_use[0] (edit|patch): runs \"gofmt -w .\", timeout 5s\n") {
		t.Errorf("/status: %+v", out)
	}
}
