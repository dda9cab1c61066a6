package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
)

// execUser runs exec with xdg as the user's config directory.
func execUser(t *testing.T, bin, dir, xdg, baseURL string, args ...string) result {
	t.Helper()
	return execWithEnv(t, bin, dir, append(os.Environ(), "OPENAI_BASE_URL="+baseURL, "OPENAI_API_KEY=test", "XDG_CONFIG_HOME="+xdg), args...)
}

func writeTestFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// exec's first request carries the user's global AGENTS.md, then the
// repository's, after the system message; the user is told which.
func TestExecAgentsMD(t *testing.T) {
	bin := hostBinary(t)
	srv := fakellm.New()
	defer srv.Close()
	dir := gitRepo(t)
	xdg := t.TempDir()
	writeTestFile(t, filepath.Join(xdg, "coder", "AGENTS.md"), "GLOBAL: be brief")
	writeTestFile(t, filepath.Join(dir, "AGENTS.md"), "REPO: run make check")
	srv.Enqueue(fakellm.Reply{Content: "ok"})
	r := execUser(t, bin, dir, xdg, srv.URL(), "hi")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	msgs := srv.Requests()[0].Messages
	if len(msgs) != 3 || msgs[1].Role != llm.RoleUser || msgs[2].Content != "hi" {
		t.Fatalf("messages = %+v", msgs)
	}
	if g, p := strings.Index(msgs[1].Content, "GLOBAL: be brief"), strings.Index(msgs[1].Content, "REPO: run make check"); g < 0 || p < g {
		t.Errorf("project message = %q", msgs[1].Content)
	}
	if !strings.Contains(r.stderr, "note: project instructions: ") || !strings.Contains(r.stderr, "AGENTS.md (20 B)") {
		t.Errorf("stderr = %s", r.stderr)
	}
}

// exec /init asks the model for AGENTS.md, and its write goes through
// the normal tools.
func TestExecInit(t *testing.T) {
	bin := hostBinary(t)
	srv := fakellm.New()
	defer srv.Close()
	dir := gitRepo(t)
	srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("w", "write", map[string]any{"path": "AGENTS.md", "content": "# Build\n\nmake\n"})}},
		fakellm.Reply{Content: "wrote AGENTS.md"},
	)
	r := execHost(t, bin, dir, srv.URL(), "--yes", "/init")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	msgs := srv.Requests()[0].Messages
	if last := msgs[len(msgs)-1].Content; !strings.Contains(last, "write AGENTS.md") || !strings.Contains(last, "test") {
		t.Errorf("prompt = %q", last)
	}
	if data, err := os.ReadFile(filepath.Join(dir, "AGENTS.md")); err != nil || string(data) != "# Build\n\nmake\n" {
		t.Errorf("AGENTS.md = %q, %v", data, err)
	}
}

// An untrusted .coder/config.json cannot rewrite the user's own lists:
// decoding it once filled the user's slices in place, so the file's allow
// replaced the user's deny rule and its verify command replaced theirs.
func TestUntrustedProjectKeepsUserLists(t *testing.T) {
	bin := hostBinary(t)
	srv := fakellm.New()
	defer srv.Close()
	dir := gitRepo(t)
	xdg := t.TempDir()
	writeTestFile(t, filepath.Join(xdg, "coder", "config.json"), `{"workflow":{"verify_commands":["true"]},
		"permissions":{"rules":[{"tool":"bash","pattern":"touch *","decision":"deny"}]}}`)
	writeTestFile(t, filepath.Join(dir, ".coder", "config.json"), `{"workflow":{"verify_commands":["touch VERIFY_PWNED"]},
		"permissions":{"rules":[{"tool":"bash","pattern":"touch *","decision":"allow"}]}}`)
	srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{
			toolCall("w", "write", map[string]any{"path": "a.txt", "content": "x"}),
			toolCall("b", "bash", map[string]any{"command": "touch BASH_PWNED"}),
		}},
		fakellm.Reply{Content: "done"},
	)
	r := execUser(t, bin, dir, xdg, srv.URL(), "--yes", "--mode", "auto-edit", "go")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, name := range []string{"BASH_PWNED", "VERIFY_PWNED"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			t.Errorf("%s: the untrusted project file's setting applied\nstderr:\n%s", name, r.stderr)
		}
	}
	if strings.Contains(r.stderr, "skipped `touch VERIFY_PWNED`") {
		t.Errorf("the project file's verify command was chosen:\n%s", r.stderr)
	}
}

// TestExecSessionFileReplaysAgentsMD: with a global, a repository and a
// nested AGENTS.md, every request exec sent — the root's and a
// sub-conversation's, before and after a resume — is the session file's
// model, tools and messages, the AGENTS.md message included and marked
// (seed 001 §10); a resumed session does not take that message for
// history.
func TestExecSessionFileReplaysAgentsMD(t *testing.T) {
	bin := hostBinary(t)
	srv := fakellm.New()
	defer srv.Close()
	dir := gitRepo(t)
	xdg := t.TempDir()
	writeTestFile(t, filepath.Join(xdg, "coder", "AGENTS.md"), "GLOBAL: be brief")
	writeTestFile(t, filepath.Join(dir, "AGENTS.md"), "REPO: run make check")
	writeTestFile(t, filepath.Join(dir, "sub", "AGENTS.md"), "NESTED: tabs only")
	writeTestFile(t, filepath.Join(dir, "sub", "x.go"), "package sub\n")
	srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("r1", "read", map[string]any{"path": "sub/x.go"})}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("c1", "conv_create", map[string]any{"user_instruction": "say hi"})}},
		fakellm.Reply{Content: "hi from the sub-conversation"},
		fakellm.Reply{Content: "done"},
	)
	r := execUser(t, bin, dir, xdg, srv.URL(), "--yes", "look at sub")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	id := sessionID(t, r.stderr)
	srv.Enqueue(fakellm.Reply{Content: "again"})
	if r := execUser(t, bin, dir, xdg, srv.URL(), "--resume", id, "and now?"); r.code != 0 {
		t.Fatalf("resume: exit %d: %s", r.code, r.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d requests, want 5", len(reqs))
	}
	if !strings.Contains(reqs[1].Messages[len(reqs[1].Messages)-1].Content, "NESTED: tabs only") {
		t.Errorf("the nested AGENTS.md is not in the read's result: %+v", reqs[1].Messages)
	}
	data, err := os.ReadFile(filepath.Join(dir, ".coder", "sessions", id+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Model         string        `json:"model"`
		Messages      []llm.Message `json:"messages"`
		Tools         []llm.Tool    `json:"tools"`
		Conversations []struct {
			System    string        `json:"system"`
			SentTools []llm.Tool    `json:"sent_tools"`
			Messages  []llm.Message `json:"messages"`
		} `json:"conversations"`
	}
	if err := json.Unmarshal(data, &file); err != nil || len(file.Conversations) != 1 {
		t.Fatalf("session file: %v, %d conversations", err, len(file.Conversations))
	}
	sub := file.Conversations[0]
	lists := map[string]struct {
		msgs  []llm.Message
		tools []llm.Tool
	}{
		"root":             {file.Messages, file.Tools},
		"sub-conversation": {append([]llm.Message{{Role: llm.RoleSystem, Content: sub.System}}, sub.Messages...), sub.SentTools},
	}
	for name, l := range lists {
		if len(l.msgs) < 2 || l.msgs[1].Source != llm.SourceAgentsMD || !strings.Contains(l.msgs[1].Content, "GLOBAL: be brief") || !strings.Contains(l.msgs[1].Content, "REPO: run make check") {
			t.Errorf("%s: the file's second message is not the marked AGENTS.md message: %+v", name, l.msgs[:min(2, len(l.msgs))])
		}
	}
	for i, req := range reqs {
		matched := ""
		for name, l := range lists {
			if req.Model == file.Model && replays(l.msgs, req.Messages) && sameJSON(l.tools, req.Tools) {
				matched = name
			}
		}
		if matched == "" {
			got, _ := json.MarshalIndent(req.Messages, "", " ")
			t.Errorf("request %d is not reproduced by the session file:\n%s\nfile:\n%s", i+1, got, data)
		}
	}
	// The resumed request carried the AGENTS.md message once, as the
	// first request did, and no history message holds it.
	if n := strings.Count(string(reqs[4].Raw), "REPO: run make check"); n != 1 {
		t.Errorf("the resumed request carries the AGENTS.md text %d times", n)
	}
}

// replays reports whether msgs, the messages of a session file with their
// source markers dropped, begin with sent.
func replays(msgs, sent []llm.Message) bool {
	if len(sent) > len(msgs) {
		return false
	}
	file := make([]llm.Message, len(sent))
	for i, m := range msgs[:len(sent)] {
		m.Source = ""
		file[i] = m
	}
	return sameJSON(file, sent)
}

func sameJSON(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(x) == string(y)
}
