package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"

	"github.com/coder-nvim/coder-nvim/core/provider"
	"github.com/coder-nvim/coder-nvim/core/store"
)

// recorder collects events and answers approvals with a scripted policy.
type recorder struct {
	mu     sync.Mutex
	events []event.Event
	onAsk  func(*event.Approval)
}

func (r *recorder) handle(ev event.Event) {
	r.mu.Lock()
	r.events = append(r.events, ev)
	ask := r.onAsk
	r.mu.Unlock()
	if ev.Kind == event.ApprovalRequested && ask != nil {
		go ask(ev.Approval)
	}
}

func (r *recorder) kinds() []event.Kind {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []event.Kind
	for _, e := range r.events {
		out = append(out, e.Kind)
	}
	return out
}

func (r *recorder) find(k event.Kind) []event.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []event.Event
	for _, e := range r.events {
		if e.Kind == k {
			out = append(out, e)
		}
	}
	return out
}

func gitRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command("git", "init", "-q", dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	return dir
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

type fixture struct {
	srv  *fakellm.Server
	sess *Session
	rec  *recorder
	root string
}

func newFixture(t *testing.T, mutate func(*config.Config, *Options)) *fixture {
	t.Helper()
	srv := fakellm.New()
	t.Cleanup(srv.Close)
	root := gitRepo(t)
	cfg := config.Defaults()
	cfg.Model = "test-model"
	cfg.StateDir = filepath.Join(t.TempDir(), "coder-nvim")
	rec := &recorder{}
	p := provider.NewOpenAI(provider.Options{BaseURL: srv.URL(), APIKey: "k", BaseBackoff: time.Millisecond, MaxAttempts: 2})
	opts := Options{
		Config:   cfg,
		Root:     root,
		Provider: p,
		OnEvent:  rec.handle,
		Prompter: true,
		Models:   p.Models, // fakellm has no /models until SetModels
	}
	if mutate != nil {
		mutate(&opts.Config, &opts)
	}
	sess, err := Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sess.Close)
	return &fixture{srv: srv, sess: sess, rec: rec, root: root}
}

func call(id, name string, args any) llm.ToolCall {
	data, _ := json.Marshal(args)
	return llm.ToolCall{ID: id, Type: "function", Function: llm.FunctionCall{Name: name, Arguments: string(data)}}
}

// mustResume resumes session id with opts, closed with the test (before
// its temp dirs go: a session still saving in the background would make
// RemoveAll fail).
func mustResume(t *testing.T, opts Options, id SessionID) *Session {
	t.Helper()
	s, err := Resume(opts, id)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

func (f *fixture) run(t *testing.T, input string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := f.sess.Run(ctx, input); err != nil {
		t.Fatal(err)
	}
}

// checkPairs asserts the seed 003 history shape: every assistant tool call
// is followed by exactly one tool message with its id and name.
func checkPairs(t *testing.T, msgs []llm.Message) {
	t.Helper()
	for i, m := range msgs {
		if m.Role != llm.RoleAssistant || len(m.ToolCalls) == 0 {
			continue
		}
		for j, c := range m.ToolCalls {
			k := i + 1 + j
			if k >= len(msgs) || msgs[k].Role != llm.RoleTool || msgs[k].ToolCallID != c.ID || msgs[k].Name != c.Function.Name {
				t.Fatalf("tool call %s (%s) at message %d has no matching tool message; history: %+v", c.ID, c.Function.Name, i, msgs)
			}
		}
	}
}

func TestTurnReadPatchBashAnswer(t *testing.T) {
	f := newFixture(t, func(c *config.Config, _ *Options) { c.Mode = "auto-edit" })
	writeFile(t, filepath.Join(f.root, "main.go"), "package main\n\nfunc main() {}\n")
	patch := "*** Begin Patch\n*** Update File: main.go\n@@\n package main\n \n+func hello() string { return \"hello\" }\n+\n func main() {}\n*** End Patch\n"
	f.srv.Enqueue(
		fakellm.Reply{Reasoning: "look first", Content: "Reading.", ToolCalls: []llm.ToolCall{call("c1", "read", map[string]any{"path": "main.go"})}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("c2", "patch", map[string]any{"patch": patch})}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("c3", "bash", map[string]any{"command": "grep -c hello main.go"})}},
		fakellm.Reply{Content: "Added hello."},
	)
	f.run(t, "add a hello function to main.go")

	got, _ := os.ReadFile(filepath.Join(f.root, "main.go"))
	if !strings.Contains(string(got), "func hello()") {
		t.Fatalf("patch not applied: %s", got)
	}
	reqs := f.srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4", len(reqs))
	}
	last := reqs[3].Messages
	if last[0].Role != llm.RoleSystem || last[1].Role != llm.RoleUser || last[1].Content != "add a hello function to main.go" {
		t.Errorf("prompt start wrong: %+v", last[:2])
	}
	checkPairs(t, last)
	if toolMsg := last[len(last)-1]; toolMsg.Name != "bash" || !strings.Contains(toolMsg.Content, "1") {
		t.Errorf("bash result = %+v", toolMsg)
	}
	// 9 built-ins and web_fetch, then the 5 conversation tools.
	if len(reqs[0].Tools) != 15 || reqs[0].Tools[9].Function.Name != "web_fetch" || reqs[0].Tools[10].Function.Name != "conv_create" || reqs[0].Tools[14].Function.Name != "conv_destroy" {
		t.Errorf("offered %d tools, want 15 ending in the conversation tools", len(reqs[0].Tools))
	}

	hist := f.sess.History("")
	checkPairs(t, hist)
	if hist[1].Reasoning != "look first" || hist[len(hist)-1].Content != "Added hello." {
		t.Errorf("history: %+v", hist)
	}
	// Events carry ids and come in order.
	kinds := f.rec.kinds()
	if kinds[0] != event.TaskStarted {
		t.Errorf("first event %s", kinds[0])
	}
	for _, e := range f.rec.find(event.ToolCallEnd) {
		if e.Session != string(f.sess.ID()) || e.Conversation == "" || e.Task == "" || e.Tool.Status != event.ToolCompleted {
			t.Errorf("tool end event %+v", e)
		}
	}
	if done := f.rec.find(event.TaskComplete); len(done) != 1 || done[0].Reason != event.StopEndTurn {
		t.Errorf("task complete: %+v", done)
	}
	// The session file replays the conversation.
	snap, err := store.Load(store.Dir(f.root), string(f.sess.ID()))
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Messages) != len(hist)+1 || snap.Model != "test-model" || len(snap.Tools) != 15 {
		t.Errorf("snapshot: %d messages, model %q, %d tools", len(snap.Messages), snap.Model, len(snap.Tools))
	}
}

func TestBadToolCallsGetErrorResults(t *testing.T) {
	f := newFixture(t, nil)
	f.srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{
			call("a", "nosuch", map[string]any{}),
			{ID: "b", Type: "function", Function: llm.FunctionCall{Name: "read", Arguments: `{"path": "x"`}},
			call("c", "read", map[string]any{"path": "../outside"}),
			call("d", "read", map[string]any{"wrong": 1}),
		}},
		fakellm.Reply{Content: "ok"},
	)
	f.run(t, "go")
	msgs := f.srv.Requests()[1].Messages
	checkPairs(t, msgs)
	tail := msgs[len(msgs)-4:]
	wants := []string{"unknown tool", "not valid JSON", "outside", "wrong"}
	for i, w := range wants {
		if !strings.HasPrefix(tail[i].Content, "error:") || !strings.Contains(tail[i].Content, w) {
			t.Errorf("result %d = %q, want error mentioning %q", i, tail[i].Content, w)
		}
	}
}

func TestMaxSteps(t *testing.T) {
	f := newFixture(t, func(c *config.Config, _ *Options) { c.MaxSteps = 2 })
	for i := range 3 {
		f.srv.Enqueue(fakellm.Reply{ToolCalls: []llm.ToolCall{call(fmt.Sprint("c", i), "ls", map[string]any{})}})
	}
	f.run(t, "loop")
	if n := len(f.srv.Requests()); n != 2 {
		t.Errorf("%d model calls, want 2", n)
	}
	done := f.rec.find(event.TaskComplete)
	if len(done) != 1 || done[0].Reason != event.StopMaxSteps {
		t.Errorf("completion = %+v", done)
	}
	checkPairs(t, f.sess.History(""))
}

func TestProviderErrorAbortsTurn(t *testing.T) {
	f := newFixture(t, nil)
	f.srv.Enqueue(fakellm.Reply{Status: 401})
	f.run(t, "hi")
	ab := f.rec.find(event.TurnAborted)
	if len(ab) != 1 || ab[0].Reason != event.ReasonError || !strings.Contains(ab[0].Text, "401") {
		t.Fatalf("abort = %+v", ab)
	}
	// The user message stays; the next turn works.
	f.srv.Enqueue(fakellm.Reply{Content: "fine"})
	f.run(t, "again")
	if msgs := f.srv.Requests()[1].Messages; len(msgs) != 3 || msgs[2].Content != "again" {
		t.Errorf("second request: %+v", msgs)
	}
}

func TestInterruptKeepsHistoryValid(t *testing.T) {
	f := newFixture(t, func(c *config.Config, _ *Options) { c.Mode = "yolo" })
	f.srv.Enqueue(fakellm.Reply{ToolCalls: []llm.ToolCall{
		call("s1", "bash", map[string]any{"command": "sleep 30"}),
		call("s2", "ls", map[string]any{}),
	}})
	if _, err := f.sess.Submit("sleep"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(f.rec.find(event.ToolCallBegin)) == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	start := time.Now()
	f.sess.Cancel()
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("cancel took %s", d)
	}
	if ab := f.rec.find(event.TurnAborted); len(ab) != 1 || ab[0].Reason != event.ReasonInterrupted {
		t.Fatalf("abort = %+v", ab)
	}
	hist := f.sess.History("")
	checkPairs(t, hist)
	if last := hist[len(hist)-1]; last.ToolCallID != "s2" || !strings.Contains(last.Content, "aborted") {
		t.Errorf("last = %+v", last)
	}
	f.srv.Enqueue(fakellm.Reply{Content: "next"})
	f.run(t, "continue")
	checkPairs(t, f.srv.Requests()[1].Messages)
}

func TestInterruptMidStream(t *testing.T) {
	f := newFixture(t, nil)
	f.srv.Enqueue(fakellm.Reply{Content: strings.Repeat("word ", 200), Chunk: 5, Delay: 20 * time.Millisecond})
	if _, err := f.sess.Submit("talk"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(f.rec.find(event.AgentMessageDelta)) < 3 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	f.sess.Cancel()
	if ab := f.rec.find(event.TurnAborted); len(ab) != 1 || ab[0].Reason != event.ReasonInterrupted {
		t.Fatalf("abort = %+v", ab)
	}
	hist := f.sess.History("")
	if last := hist[len(hist)-1]; last.Role != llm.RoleAssistant || !strings.Contains(last.Content, "[interrupted]") {
		t.Errorf("partial answer not kept: %+v", last)
	}
}

func TestPlanModeNeverChangesAFile(t *testing.T) {
	f := newFixture(t, func(c *config.Config, _ *Options) { c.Mode = "plan" })
	writeFile(t, filepath.Join(f.root, "keep.txt"), "keep\n")
	attempts := []llm.ToolCall{
		call("w", "write", map[string]any{"path": "x.txt", "content": "x"}),
		call("e", "edit", map[string]any{"path": "keep.txt", "old_string": "keep", "new_string": "gone"}),
		call("p", "patch", map[string]any{"patch": "*** Begin Patch\n*** Delete File: keep.txt\n*** End Patch\n"}),
	}
	for i, cmd := range []string{"echo x > y.txt", "tee y.txt < keep.txt", "sed -i s/keep/gone/ keep.txt", "rm keep.txt", "mv keep.txt z.txt",
		"cp keep.txt y.txt", "touch y.txt", "mkdir d", "cat keep.txt >> keep.txt", "ls; rm -f keep.txt", "echo $(rm keep.txt)", "bash -c 'rm keep.txt'",
		"git add keep.txt", "python3 -c 'open(\"y.txt\",\"w\")'"} {
		attempts = append(attempts, call(fmt.Sprint("b", i), "bash", map[string]any{"command": cmd}))
	}
	f.srv.Enqueue(fakellm.Reply{ToolCalls: attempts}, fakellm.Reply{Content: "planned"})
	f.run(t, "plan it")
	req := f.srv.Requests()[0]
	for _, tl := range req.Tools {
		switch tl.Function.Name {
		case "write", "edit", "patch":
			t.Errorf("plan mode offers %s", tl.Function.Name)
		}
	}
	if !strings.Contains(req.Messages[0].Content, "planning") {
		t.Error("model not told it is planning")
	}
	out, err := exec.Command("git", "-C", f.root, "status", "--porcelain", "--untracked-files=all").Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(out)); got != "?? keep.txt" {
		t.Errorf("plan mode changed the workspace:\n%s", got)
	}
	if data, _ := os.ReadFile(filepath.Join(f.root, "keep.txt")); string(data) != "keep\n" {
		t.Errorf("keep.txt = %q", data)
	}
	msgs := f.srv.Requests()[1].Messages
	for _, m := range msgs[len(msgs)-len(attempts):] {
		if !strings.Contains(m.Content, "plan") {
			t.Errorf("refusal of %s does not name plan mode: %q", m.Name, m.Content)
		}
	}
	if len(f.rec.find(event.ApprovalRequested)) != 0 {
		t.Error("plan mode asked instead of refusing")
	}
}

func TestBangCommand(t *testing.T) {
	f := newFixture(t, nil)
	f.run(t, "!echo out; echo err >&2; exit 3")
	hist := f.sess.History("")
	if len(hist) != 1 {
		t.Fatalf("history = %+v", hist)
	}
	for _, w := range []string{"command: echo out; echo err >&2; exit 3", "exit code: 3", "stdout:\nout", "stderr:\nerr"} {
		if !strings.Contains(hist[0].Content, w) {
			t.Errorf("result lacks %q: %s", w, hist[0].Content)
		}
	}
	if len(f.srv.Requests()) != 0 {
		t.Error("! reached the model")
	}
}

func TestSlashCommands(t *testing.T) {
	f := newFixture(t, nil)
	f.run(t, "/help")
	f.run(t, "/plan")
	f.run(t, "/mdoe plan")
	f.run(t, "/model other-model")
	f.run(t, "/permissions strict")
	if len(f.srv.Requests()) != 0 {
		t.Error("/ reached the model")
	}
	outs := f.rec.find(event.CommandOutput)
	if len(outs) != 4 || !strings.Contains(outs[0].Text, "/undo") && !strings.Contains(outs[0].Text, "/model") {
		t.Fatalf("outputs = %+v", outs)
	}
	if f.sess.Mode() != "plan" {
		t.Errorf("mode = %s", f.sess.Mode())
	}
	errs := f.rec.find(event.Error)
	if len(errs) != 1 || !strings.Contains(errs[0].Text, "/mode") {
		t.Errorf("unknown command error = %+v", errs)
	}
	st := f.sess.Status()
	if st.Model != "other-model" || st.Preset != "strict" {
		t.Errorf("status = %+v", st)
	}
	state := filepath.Dir(f.sess.opts.Config.StateDir)
	cfg, err := config.Load(f.root, func(k string) string { return map[string]string{"XDG_STATE_HOME": state}[k] })
	if err != nil || cfg.Model != "other-model" {
		t.Errorf("model not persisted: %v %q", err, cfg.Model)
	}
}

func TestResumeContinuesHistory(t *testing.T) {
	f := newFixture(t, nil)
	f.srv.Enqueue(fakellm.Reply{Content: "first answer"})
	f.run(t, "first")
	f.sess.Close()

	rec := &recorder{}
	opts := f.sess.opts
	opts.OnEvent = rec.handle
	again := mustResume(t, opts, f.sess.ID())
	f.srv.Enqueue(fakellm.Reply{Content: "second answer"})
	if err := again.Run(context.Background(), "second"); err != nil {
		t.Fatal(err)
	}
	msgs := f.srv.Requests()[1].Messages
	if len(msgs) != 4 || msgs[1].Content != "first" || msgs[2].Content != "first answer" || msgs[3].Content != "second" {
		t.Errorf("resumed request = %+v", msgs)
	}
	if _, err := Resume(opts, "00000000-0000-0000-0000-000000000000"); err == nil {
		t.Error("resumed an unknown session")
	}
}

func TestPromptBudget(t *testing.T) {
	f := newFixture(t, nil)
	req := f.sess.request(f.sess.turnContext(&task{s: f.sess, conv: f.sess.rootConv}))
	data, err := json.Marshal(req.Tools)
	if err != nil {
		t.Fatal(err)
	}
	chars := len(req.Messages[0].Content) + len(data)
	if tokens := chars / 4; tokens >= 2500 {
		t.Errorf("instructions + tool schemas ≈ %d tokens, budget 2500", tokens)
	}
}

func TestSingleFlight(t *testing.T) {
	f := newFixture(t, nil)
	f.srv.Enqueue(fakellm.Reply{Content: "slow", Delay: 50 * time.Millisecond, Chunk: 1})
	if _, err := f.sess.Submit("one"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.sess.Submit("two"); err != ErrBusy {
		t.Errorf("second submit: %v, want ErrBusy", err)
	}
	f.sess.Wait()
}

func TestAutomaticCompaction(t *testing.T) {
	f := newFixture(t, func(c *config.Config, _ *Options) {
		c.ContextWindow = 4000
		c.CompactThreshold = 0.5
		c.Mode = "yolo"
	})
	big := strings.Repeat("x", 6000)
	writeFile(t, filepath.Join(f.root, "big.txt"), big+"\n")
	f.srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("r1", "bash", map[string]any{"command": "cat big.txt"})}},
		fakellm.Reply{Content: "SUMMARY: read big.txt with cat; it holds x's."}, // the compaction call
		fakellm.Reply{Content: "done"},
	)
	f.run(t, "look at big.txt")
	reqs := f.srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	comp := reqs[1]
	if len(comp.Tools) != 0 || !strings.Contains(comp.Messages[0].Content, "summarise a coding session") {
		t.Errorf("compaction request: tools %d, system %q", len(comp.Tools), comp.Messages[0].Content)
	}
	after := reqs[2].Messages
	// The conversation's own instructions are back; history is the user
	// message plus the summary; no orphaned tool message.
	if strings.Contains(after[0].Content, "summarise a coding session") {
		t.Error("compaction instructions leaked into the conversation")
	}
	if len(after) != 3 || after[1].Content != "look at big.txt" || !strings.Contains(after[2].Content, "SUMMARY") || !strings.Contains(after[2].Content, "do not re-run the last command") {
		t.Errorf("rebuilt history: %+v", after)
	}
	checkPairs(t, after)
	// /compact forces it and echoes the summary.
	f.srv.Enqueue(fakellm.Reply{Content: "SECOND SUMMARY"})
	f.run(t, "/compact")
	outs := f.rec.find(event.CommandOutput)
	if len(outs) != 1 || !strings.Contains(outs[0].Text, "SECOND SUMMARY") {
		t.Errorf("/compact output = %+v", outs)
	}
	if st := f.sess.Status(); st.ContextTokens == 0 || st.ContextTokens > 1000 {
		t.Errorf("context tokens after compaction = %d", st.ContextTokens)
	}
}

// A front end may send the next input the moment it sees a task end.
func TestInputAcceptedAtTaskEnd(t *testing.T) {
	f := newFixture(t, nil)
	errs := make(chan error, 2)
	f.sess.opts.OnEvent = func(ev event.Event) {
		f.rec.handle(ev)
		if ev.Kind == event.TaskComplete && ev.Reason == event.StopEndTurn {
			_, err := f.sess.Submit("/help")
			errs <- err
		}
	}
	f.srv.Enqueue(fakellm.Reply{Content: "first"})
	if _, err := f.sess.Submit("one"); err != nil {
		t.Fatal(err)
	}
	if err := <-errs; err != nil {
		t.Fatalf("input right after TaskComplete: %v", err)
	}
	f.sess.Wait()
}
