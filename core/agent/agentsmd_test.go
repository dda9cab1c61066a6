package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/agent/command"
	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
)

// agentsFixture is a session whose workspace and user config dir hold the
// given files before it opens ("~/" names the user's config dir).
func agentsFixture(t *testing.T, files map[string]string) *fixture {
	t.Helper()
	global := filepath.Join(t.TempDir(), "coder")
	return newFixture(t, func(c *config.Config, o *Options) {
		c.AgentsMD.GlobalDir = global
		for name, body := range files {
			if rest, ok := strings.CutPrefix(name, "~/"); ok {
				writeFile(t, filepath.Join(global, rest), body)
			} else {
				writeFile(t, filepath.Join(o.Root, name), body)
			}
		}
	})
}

// wireMessages is the "messages" array of a request as it went on the
// wire.
func wireMessages(t *testing.T, r fakellm.Request) []byte {
	t.Helper()
	var body struct {
		Messages json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(r.Raw, &body); err != nil {
		t.Fatal(err)
	}
	return body.Messages
}

// extendEachOther fails unless every request's messages, byte for byte
// as sent, begin with the previous request's (the prompt-cache rule).
func extendEachOther(t *testing.T, reqs []fakellm.Request) {
	t.Helper()
	for i := 1; i < len(reqs); i++ {
		prev, cur := wireMessages(t, reqs[i-1]), wireMessages(t, reqs[i])
		if !bytes.HasPrefix(cur, prev[:len(prev)-1]) {
			t.Errorf("request %d does not extend request %d:\nprev %s\ncur  %s", i, i-1, prev, cur)
		}
	}
}

// The first request carries the user's global AGENTS.md, then the root's,
// in one user-role message after the system message; the user is told.
func TestAgentsMDFirstRequest(t *testing.T) {
	f := agentsFixture(t, map[string]string{"~/AGENTS.md": "GLOBAL: answer in English", "AGENTS.md": "ROOT: use tabs"})
	f.srv.Enqueue(fakellm.Reply{Content: "ok"})
	f.run(t, "hi")
	msgs := f.srv.Requests()[0].Messages
	if len(msgs) != 3 || msgs[0].Role != llm.RoleSystem || msgs[1].Role != llm.RoleUser || msgs[2].Content != "hi" {
		t.Fatalf("messages = %+v", msgs)
	}
	g, r := strings.Index(msgs[1].Content, "GLOBAL: answer in English"), strings.Index(msgs[1].Content, "ROOT: use tabs")
	if g < 0 || r < g {
		t.Errorf("project message = %q", msgs[1].Content)
	}
	if strings.Contains(msgs[0].Content, "ROOT") {
		t.Error("the repository's text is in the system message")
	}
	if n := notices(f); !strings.Contains(n, "project instructions: ") || !strings.Contains(n, "AGENTS.md (14 B)") {
		t.Errorf("notices = %q", n)
	}
	out, err := runCommand(f, "/status")
	if err != nil || !strings.Contains(out, "project instructions: ") || !strings.Contains(out, "AGENTS.md (14 B)") {
		t.Errorf("/status = %q, %v", out, err)
	}
	if files := f.sess.AgentsMD(""); len(files) != 2 || files[1].Path != "AGENTS.md" || files[1].Sent != 14 {
		t.Errorf("AgentsMD = %+v", files)
	}
	// Changed on disk meanwhile: the conversation keeps what it was
	// given, so the next request still extends the first.
	writeFile(t, filepath.Join(f.root, "AGENTS.md"), "ROOT: use spaces")
	f.srv.Enqueue(fakellm.Reply{Content: "ok again"})
	f.run(t, "again")
	extendEachOther(t, f.srv.Requests())

	// A conversation with its own instructions gets them too, unless its
	// opener says otherwise.
	own, err := f.sess.OpenConversation("You review.", nil)
	if err != nil {
		t.Fatal(err)
	}
	c, _, err := f.sess.openConversation(nil, ConversationSpec{NoAgentsMD: true})
	if err != nil {
		t.Fatal(err)
	}
	f.srv.Enqueue(fakellm.Reply{Content: "a"}, fakellm.Reply{Content: "b"})
	for _, id := range []ConversationID{own, c.ID} {
		if _, err := f.sess.SubmitTo(id, "go"); err != nil {
			t.Fatal(err)
		}
		f.sess.Wait()
	}
	reqs := f.srv.Requests()[2:]
	if m := reqs[0].Messages; len(m) != 3 || !strings.Contains(m[1].Content, "ROOT: use spaces") || !strings.HasPrefix(m[0].Content, "You review.") {
		t.Errorf("own-instructions conversation: %+v", m)
	}
	if m := reqs[1].Messages; len(m) != 2 || strings.Contains(m[1].Content, "ROOT") {
		t.Errorf("conversation without AGENTS.md: %+v", m)
	}
}

func runCommand(f *fixture, line string) (string, error) {
	before := len(f.rec.find(event.CommandOutput))
	if err := f.sess.Run(context.Background(), line); err != nil {
		return "", err
	}
	outs := f.rec.find(event.CommandOutput)
	if len(outs) == before {
		return "", nil
	}
	return outs[len(outs)-1].Text, nil
}

// A nested AGENTS.md arrives once, with the result of the first call that
// works in its directory; every request still extends the one before it
// byte for byte, over a resume too.
func TestAgentsMDNested(t *testing.T) {
	f := agentsFixture(t, map[string]string{
		"AGENTS.md":     "ROOT RULES",
		"pkg/AGENTS.md": "PKG RULES: run go test ./pkg",
		"pkg/a.go":      "package pkg\n",
		"pkg/b.go":      "package pkg\n",
		"main.go":       "package main\n",
	})
	f.srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("r0", "read", map[string]any{"path": "main.go"})}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("r1", "read", map[string]any{"path": "pkg/a.go"})}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("r2", "read", map[string]any{"path": "pkg/b.go"})}},
		fakellm.Reply{Content: "done"},
	)
	f.run(t, "look around")
	reqs := f.srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests", len(reqs))
	}
	if got := toolContent(reqs[1], "r0"); strings.Contains(got, "PKG RULES") {
		t.Errorf("sent for a file outside pkg/: %q", got)
	}
	if got := toolContent(reqs[2], "r1"); !strings.Contains(got, "package pkg") || !strings.Contains(got, "PKG RULES: run go test ./pkg") || !strings.Contains(got, `path="pkg/AGENTS.md"`) {
		t.Errorf("first call in pkg/: %q", got)
	}
	if got := toolContent(reqs[3], "r2"); strings.Contains(got, "PKG RULES") {
		t.Errorf("sent twice: %q", got)
	}
	if n := strings.Count(string(wireMessages(t, reqs[3])), "PKG RULES"); n != 1 {
		t.Errorf("PKG RULES in the last request %d times, want 1", n)
	}
	if n := notices(f); !strings.Contains(n, "pkg/AGENTS.md (") {
		t.Errorf("notices = %q", n)
	}

	// Resumed: the root's file again in the same place, pkg's not again.
	f.sess.Close()
	opts := f.sess.opts
	again := mustResume(t, opts, f.sess.ID())
	f.srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("r3", "read", map[string]any{"path": "pkg/a.go"})}},
		fakellm.Reply{Content: "done again"},
	)
	if err := again.Run(context.Background(), "more"); err != nil {
		t.Fatal(err)
	}
	reqs = f.srv.Requests()
	if got := toolContent(reqs[5], "r3"); strings.Contains(got, "PKG RULES") {
		t.Errorf("sent again after resume: %q", got)
	}
	extendEachOther(t, reqs)
}

// A 2 MB AGENTS.md is cut to the cap: the model is told what was left
// out, the user which file, and the turn works.
func TestAgentsMDCapped(t *testing.T) {
	huge := strings.Repeat("rule line\n", 200_000) // 2 MB
	f := agentsFixture(t, map[string]string{"AGENTS.md": huge})
	f.srv.Enqueue(fakellm.Reply{Content: "fine"})
	f.run(t, "hi")
	msgs := f.srv.Requests()[0].Messages
	if len(msgs) != 3 {
		t.Fatalf("messages = %d", len(msgs))
	}
	if n := len(msgs[1].Content); n > 33<<10 || n < 32<<10 {
		t.Errorf("project message is %d bytes, want the 32 KiB cap and its frame", n)
	}
	if !strings.Contains(msgs[1].Content, "[cut: the last 1967232 of its 2000000 bytes are not shown") {
		t.Errorf("the cut is not said to the model: %q", msgs[1].Content[len(msgs[1].Content)-400:])
	}
	if n := notices(f); !strings.Contains(n, "AGENTS.md (1.9 MiB, cut to 32 KiB: agents_md.max_bytes)") {
		t.Errorf("notices = %q", n)
	}
	if done := f.rec.find(event.TaskComplete); len(done) != 1 || done[0].Text != "fine" {
		t.Errorf("turn = %+v", done)
	}
}

// /init starts a model turn whose prompt asks for AGENTS.md; the user
// sees what they typed.
func TestInitCommand(t *testing.T) {
	f := newFixture(t, nil)
	f.srv.Enqueue(fakellm.Reply{Content: "wrote AGENTS.md"})
	f.run(t, "/init mention the fuzz tests")
	reqs := f.srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	msgs := reqs[0].Messages
	last := msgs[len(msgs)-1]
	if last.Role != llm.RoleUser || !strings.Contains(last.Content, "write AGENTS.md") || !strings.HasSuffix(last.Content, "The user adds: mention the fuzz tests") {
		t.Errorf("prompt = %q", last.Content)
	}
	if !hasTool(reqs[0].Tools, "write") {
		t.Error("the turn has no write tool")
	}
	users := f.rec.find(event.UserMessage)
	if len(users) != 1 || users[0].Text != "/init mention the fuzz tests" {
		t.Errorf("shown = %+v", users)
	}
	if done := f.rec.find(event.TaskComplete); len(done) != 1 || done[0].Reason != event.StopEndTurn {
		t.Errorf("end = %+v", done)
	}
}

// /conversation new agents_md=off opens a conversation without them; a
// bad value refuses the request.
func TestConversationNewAgentsMDOff(t *testing.T) {
	f := agentsFixture(t, map[string]string{"AGENTS.md": "ROOT RULES"})
	ctx := context.Background()
	if _, _, err := f.sess.NewConversation(ctx, []command.Setting{{Key: "agents_md", Value: "maybe"}}, ""); err == nil || !strings.Contains(err.Error(), "on or off") {
		t.Errorf("agents_md=maybe: %v", err)
	}
	for value, want := range map[string]int{"off": 0, "on": 1} {
		id, _, err := f.sess.NewConversation(ctx, []command.Setting{{Key: "agents_md", Value: value}}, "")
		if err != nil {
			t.Fatal(err)
		}
		if got := len(f.sess.AgentsMD(id)); got != want {
			t.Errorf("agents_md=%s: %d files, want %d", value, got, want)
		}
		if _, err := f.sess.SubmitTo(id, "/status"); err != nil {
			t.Fatal(err)
		}
		f.sess.Wait()
		outs := f.rec.find(event.CommandOutput)
		if status := outs[len(outs)-1].Text; (value == "off") != strings.Contains(status, "project instructions: off for this conversation") {
			t.Errorf("agents_md=%s: /status = %q", value, status)
		}
	}
}

// Without an AGENTS.md the first request is what it was: the system
// message and the user's, within the 2,500-token budget of the system
// message and tool schemas (TestPromptBudget); with a global file only,
// the project message is all that is added.
func TestFirstRequestWithoutAgentsMD(t *testing.T) {
	f := agentsFixture(t, nil)
	f.srv.Enqueue(fakellm.Reply{Content: "ok"})
	f.run(t, "hi")
	req := f.srv.Requests()[0]
	if len(req.Messages) != 2 || req.Messages[1].Content != "hi" {
		t.Fatalf("messages = %+v", req.Messages)
	}
	tools, err := json.Marshal(req.Tools)
	if err != nil {
		t.Fatal(err)
	}
	tokens := (len(req.Messages[0].Content) + len(req.Messages[1].Content) + len(tools)) / 4
	t.Logf("first request without AGENTS.md ≈ %d tokens (body %d bytes)", tokens, len(req.Raw))
	if tokens > 2500 {
		t.Errorf("first request ≈ %d tokens, budget 2500", tokens)
	}
	if files := f.sess.AgentsMD(""); len(files) != 0 {
		t.Errorf("files = %+v", files)
	}
	if n := notices(f); strings.Contains(n, "project instructions") {
		t.Errorf("notices = %q", n)
	}
}

// Compaction summarises the history, never the project instructions: they
// stay right after the system message, and out of the summary's input.
func TestAgentsMDSurvivesCompaction(t *testing.T) {
	f := agentsFixture(t, map[string]string{"AGENTS.md": "ROOT RULES"})
	f.srv.Enqueue(fakellm.Reply{Content: "one"}, fakellm.Reply{Content: "two"})
	f.run(t, "first")
	f.run(t, "second")
	f.srv.Enqueue(fakellm.Reply{Content: "SUMMARY"}, fakellm.Reply{Content: "three"})
	if out, err := runCommand(f, "/compact"); err != nil || !strings.Contains(out, "SUMMARY") {
		t.Fatalf("/compact = %q, %v", out, err)
	}
	f.run(t, "third")
	reqs := f.srv.Requests()
	summary, last := reqs[2], reqs[3]
	if strings.Contains(string(wireMessages(t, summary)), "ROOT RULES") {
		t.Errorf("the summary request holds the project instructions: %+v", summary.Messages)
	}
	if m := last.Messages; m[1].Role != llm.RoleUser || !strings.Contains(m[1].Content, "ROOT RULES") || !strings.Contains(m[len(m)-2].Content, "SUMMARY") {
		t.Errorf("after compaction: %+v", m)
	}
}

// A session that does not keep its text (headers_only) loses the results
// that carried a nested AGENTS.md: after a resume it is given again.
func TestAgentsMDNestedAgainWhenTextNotKept(t *testing.T) {
	f := newFixture(t, func(c *config.Config, o *Options) {
		c.Storage.Policy = "headers_only"
		writeFile(t, filepath.Join(o.Root, "pkg", "AGENTS.md"), "PKG RULES")
		writeFile(t, filepath.Join(o.Root, "pkg", "a.go"), "package pkg\n")
	})
	read := func(id string) fakellm.Reply {
		return fakellm.Reply{ToolCalls: []llm.ToolCall{call(id, "read", map[string]any{"path": "pkg/a.go"})}}
	}
	f.srv.Enqueue(read("r1"), fakellm.Reply{Content: "done"})
	f.run(t, "look")
	f.sess.Close()
	again := mustResume(t, f.sess.opts, f.sess.ID())
	f.srv.Enqueue(read("r2"), fakellm.Reply{Content: "done again"})
	if err := again.Run(context.Background(), "look again"); err != nil {
		t.Fatal(err)
	}
	reqs := f.srv.Requests()
	if got := toolContent(reqs[len(reqs)-1], "r2"); !strings.Contains(got, "PKG RULES") {
		t.Errorf("not given again after a headers_only resume: %q", got)
	}
}
