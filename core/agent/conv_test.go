package agent

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/policy"
	"github.com/coder-nvim/coder-nvim/core/provider"
)

// seqIDs returns a deterministic uuid generator: ids are 1, 2, 3, …
func seqIDs() func() string {
	var mu sync.Mutex
	n := 0
	return func() string {
		mu.Lock()
		defer mu.Unlock()
		n++
		return fmt.Sprintf("00000000-0000-4000-8000-%012d", n)
	}
}

// convFixture is a fixture with deterministic ids and clock.
func convFixture(t *testing.T, mutate func(*config.Config)) *fixture {
	t.Helper()
	return newFixture(t, func(c *config.Config, o *Options) {
		o.NewID = seqIDs()
		o.Now = func() time.Time { return time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC) }
		if mutate != nil {
			mutate(c)
		}
	})
}

// lifecycle is the seed 000 event skeleton: task boundaries, hand-overs,
// deltas (collapsed) and token counts, each with its conversation.
func (f *fixture) lifecycle() []string {
	f.rec.mu.Lock()
	defer f.rec.mu.Unlock()
	var out []string
	for _, e := range f.rec.events {
		var s string
		switch e.Kind {
		case event.TaskStarted, event.TaskComplete, event.TokenCount, event.AgentMessageDelta:
			s = fmt.Sprintf("%s@%s", e.Kind, e.Conversation[len(e.Conversation)-2:])
		case event.TurnAborted:
			s = fmt.Sprintf("%s(%s)@%s", e.Kind, e.Reason, e.Conversation[len(e.Conversation)-2:])
		case event.HandOver, event.HandBack:
			s = fmt.Sprintf("%s@%s→%s", e.Kind, e.Conversation[len(e.Conversation)-2:], e.Target[len(e.Target)-2:])
		default:
			continue
		}
		if len(out) > 0 && out[len(out)-1] == s && e.Kind == event.AgentMessageDelta {
			continue
		}
		out = append(out, s)
	}
	return out
}

func toolMsg(msgs []llm.Message, callID string) *llm.Message {
	for i := range msgs {
		if msgs[i].Role == llm.RoleTool && msgs[i].ToolCallID == callID {
			return &msgs[i]
		}
	}
	return nil
}

// Root (id …01) creates a sub-conversation (…04): the seed 000 event order,
// the injected last_assistant_message, and isolation both ways.
func TestConvCreateOrderResultIsolation(t *testing.T) {
	f := convFixture(t, nil)
	root := f.sess.RootConversation()
	f.srv.Enqueue(
		fakellm.Reply{Content: "Delegating.", ToolCalls: []llm.ToolCall{call("c1", "conv_create", map[string]any{
			"base_instruction_text": "You review code.", "user_instruction": "review main.go"})}},
		fakellm.Reply{Content: "LGTM"},
		fakellm.Reply{Content: "The reviewer says LGTM."},
	)
	f.run(t, "get main.go reviewed")

	sub := f.sess.Conversations()[1].ID
	r, s := string(root)[len(root)-2:], string(sub)[len(sub)-2:]
	want := []string{
		"task_started@" + r, "agent_message_delta@" + r, "token_count@" + r, "turn_aborted(replaced)@" + r,
		"hand_over@" + r + "→" + s,
		"task_started@" + s, "agent_message_delta@" + s, "token_count@" + s, "task_complete@" + s,
		"hand_back@" + r + "→" + s,
		"task_started@" + r, "agent_message_delta@" + r, "token_count@" + r, "task_complete@" + r,
	}
	if got := f.lifecycle(); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("event order:\n got %v\nwant %v", got, want)
	}
	// Every event carries both ids.
	for _, e := range f.rec.events {
		if e.Conversation == "" || e.Task == "" && e.Kind != event.StatusChanged {
			t.Errorf("event without ids: %+v", e)
		}
	}

	reqs := f.srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	// Isolation: the sub-conversation sees its own instructions and brief only.
	subReq := reqs[1].Messages
	if len(subReq) != 2 || subReq[0].Content != instructions("You review code.", f.root, policy.ModeDefault, nil) || subReq[1].Content != "review main.go" {
		t.Errorf("sub-conversation request = %+v", subReq)
	}
	for _, m := range subReq {
		if strings.Contains(m.Content, "get main.go reviewed") || strings.Contains(m.Content, "coding agent") {
			t.Errorf("root context leaked into the sub-conversation: %q", m.Content)
		}
	}
	// The continuation closes the call under its own id with the JSON.
	cont := reqs[2].Messages
	checkPairs(t, cont)
	tm := toolMsg(cont, "c1")
	var res struct {
		ConversationID   string  `json:"conversation_id"`
		FirstUserMessage string  `json:"first_user_message"`
		FirstItemsCount  *int    `json:"first_items_count"`
		LastAssistant    *string `json:"last_assistant_message"`
	}
	if tm == nil || json.Unmarshal([]byte(tm.Content), &res) != nil || res.ConversationID != string(sub) || res.FirstUserMessage != "review main.go" || res.LastAssistant == nil || *res.LastAssistant != "LGTM" {
		t.Fatalf("conv_create result = %+v", tm)
	}
	for _, m := range f.sess.History("") {
		if strings.Contains(m.Content, "review main.go") && m.Role != llm.RoleTool {
			t.Errorf("sub-conversation message in the root history: %+v", m)
		}
	}
	if h := f.sess.History(sub); len(h) != 2 || h[1].Content != "LGTM" {
		t.Errorf("sub history = %+v", h)
	}
	if ends := f.rec.find(event.ToolCallEnd); len(ends) != 1 || ends[0].Tool.CallID != "c1" || ends[0].Conversation != string(root) || ends[0].Tool.Status != event.ToolCompleted {
		t.Errorf("conv_create end events = %+v", ends)
	}
}

// conv.send: calls before the interrupting one run, calls after it are
// answered "not run"; the dotted spelling is accepted.
func TestConvSendRunsEarlierCallsOnly(t *testing.T) {
	f := convFixture(t, nil)
	other, err := f.sess.OpenConversation("", nil)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, f.root+"/a.txt", "alpha\n")
	f.srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{
			call("c1", "read", map[string]any{"path": "a.txt"}),
			call("c2", "conv.send", map[string]any{"conversation_id": other, "text": "what is 2+2?"}),
			call("c3", "read", map[string]any{"path": "a.txt"}),
		}},
		fakellm.Reply{Content: "4"},
		fakellm.Reply{Content: "It is 4."},
	)
	f.run(t, "ask the other conversation")
	reqs := f.srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	if sub := reqs[1].Messages; len(sub) != 2 || sub[1].Content != "what is 2+2?" {
		t.Errorf("target request = %+v", sub)
	}
	cont := reqs[2].Messages
	checkPairs(t, cont)
	if m := toolMsg(cont, "c1"); m == nil || !strings.Contains(m.Content, "alpha") {
		t.Errorf("call before the hand-over did not run: %+v", m)
	}
	if m := toolMsg(cont, "c2"); m == nil || m.Name != "conv_send" || !strings.Contains(m.Content, `"last_assistant_message":"4"`) || !strings.Contains(m.Content, string(other)) {
		t.Errorf("conv_send result = %+v", m)
	}
	if m := toolMsg(cont, "c3"); m == nil || !strings.HasPrefix(m.Content, "not run: the turn was handed to conversation "+string(other)) {
		t.Errorf("call after the hand-over = %+v", m)
	}
}

func TestConvListHistoryDestroy(t *testing.T) {
	f := convFixture(t, nil)
	a, _ := f.sess.OpenConversation("", nil)
	b, _ := f.sess.OpenConversation("", nil)
	f.srv.Enqueue(fakellm.Reply{Content: "first"})
	if _, err := f.sess.SubmitTo(a, "hello a"); err != nil {
		t.Fatal(err)
	}
	f.sess.Wait()
	// a: user, assistant with a tool call, tool, assistant.
	f.srv.Enqueue(fakellm.Reply{ToolCalls: []llm.ToolCall{call("l", "ls", map[string]any{})}}, fakellm.Reply{Content: "second"})
	if _, err := f.sess.SubmitTo(a, "again"); err != nil {
		t.Fatal(err)
	}
	f.sess.Wait()

	f.srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{
			call("l1", "conv_list", map[string]any{}),
			call("h1", "conv_history", map[string]any{"conversation_id": a}),
			call("h2", "conv_history", map[string]any{"conversation_id": a, "limit": 2}),
			call("h3", "conv_history", map[string]any{"conversation_id": "nope"}),
			call("d1", "conv_destroy", map[string]any{"conversation_id": f.sess.RootConversation()}),
			call("d2", "conv_destroy", map[string]any{"conversation_id": "nope"}),
			call("d3", "conv_destroy", map[string]any{"conversation_id": b}),
			call("l2", "conv_list", map[string]any{}),
		}},
		fakellm.Reply{Content: "done"},
	)
	f.run(t, "inspect")
	msgs := f.sess.History("")
	checkPairs(t, msgs)
	get := func(id string) string { return toolMsg(msgs, id).Content }
	root := f.sess.RootConversation()
	wantList := fmt.Sprintf(`{"conversations":[{"id":%q,"message_count":0,"record_count":0,"last_active_at":"2026-03-04T05:06:07Z"},{"id":%q,"message_count":4,"record_count":6,"last_active_at":"2026-03-04T05:06:07Z"},{"id":%q,"message_count":0,"record_count":0,"last_active_at":"2026-03-04T05:06:07Z"}]}`, root, a, b)
	// The root's own message count grows as the call runs: compare ids and order.
	var list struct {
		Conversations []struct {
			ID string `json:"id"`
		} `json:"conversations"`
	}
	json.Unmarshal([]byte(get("l1")), &list)
	if len(list.Conversations) != 3 || list.Conversations[0].ID != string(root) || list.Conversations[1].ID != string(a) || list.Conversations[2].ID != string(b) {
		t.Errorf("conv_list = %s, want like %s", get("l1"), wantList)
	}
	// message_count is what conv_history returns (4 entries below);
	// record_count every entry, tool calls and results included.
	if !strings.Contains(get("l1"), fmt.Sprintf(`{"id":%q,"message_count":4,"record_count":6,"last_active_at":"2026-03-04T05:06:07Z","stats":{"tokens_in":`, a)) {
		t.Errorf("conv_list entry for a = %s", get("l1"))
	}
	if got, want := get("h1"), `{"entries":[{"role":"user","text":"hello a"},{"role":"assistant","text":"first"},{"role":"user","text":"again"},{"role":"assistant","text":"second"}]}`; got != want {
		t.Errorf("conv_history = %s\nwant %s", got, want)
	}
	if got, want := get("h2"), `{"entries":[{"role":"user","text":"again"},{"role":"assistant","text":"second"}]}`; got != want {
		t.Errorf("conv_history limit 2 = %s", got)
	}
	if got := get("h3"); got != `{"error":"conversation not found"}` {
		t.Errorf("conv_history unknown = %s", got)
	}
	if got := get("d1"); got != `{"ok":false,"reason":"the root conversation cannot be destroyed"}` {
		t.Errorf("destroy root = %s", got)
	}
	if got := get("d2"); got != `{"ok":false,"reason":"conversation not found"}` {
		t.Errorf("destroy unknown = %s", got)
	}
	// A refused destroy shows as failed, not "completed: ok".
	for _, e := range f.rec.find(event.ToolCallEnd) {
		if e.Tool.CallID == "d2" && (e.Tool.Status != event.ToolFailed || e.Tool.Summary != "conversation not found") {
			t.Errorf("refused destroy shown as %s: %s", e.Tool.Status, e.Tool.Summary)
		}
	}
	if got := get("d3"); got != `{"ok":true}` {
		t.Errorf("destroy b = %s", got)
	}
	if l := get("l2"); strings.Contains(l, string(b)) {
		t.Errorf("destroyed conversation still listed: %s", l)
	}
	// The others are untouched (seed 000 §5): a keeps its history, is
	// listed, and takes input; a resumed session still has it.
	if l := get("l2"); !strings.Contains(l, string(a)) || !strings.Contains(l, string(root)) {
		t.Errorf("destroying b lost another conversation: %s", l)
	}
	if h := f.sess.History(a); len(h) != 6 {
		t.Errorf("a's history after destroying b: %d messages, want 6", len(h))
	}
	f.srv.Enqueue(fakellm.Reply{Content: "a lives"})
	if _, err := f.sess.SubmitTo(a, "still there?"); err != nil {
		t.Fatalf("a after destroying b: %v", err)
	}
	f.sess.Wait()
	if h := f.sess.History(a); len(h) != 8 || h[7].Content != "a lives" {
		t.Errorf("a did not answer after b was destroyed: %+v", h)
	}
	// Errors are results: the turn completed.
	if done := f.rec.find(event.TaskComplete); len(done) != 4 {
		t.Errorf("%d completed tasks, want 4", len(done))
	}
	// Closing twice is harmless.
	if err := f.sess.CloseConversation(b); err != nil {
		t.Errorf("second close: %v", err)
	}
}

// A sub-conversation destroying itself ends its task with
// TurnAborted(Interrupted); the caller's continuation reports it.
func TestConvDestroyRunning(t *testing.T) {
	f := convFixture(t, nil)
	f.srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("c1", "conv_create", map[string]any{"user_instruction": "go away"})}},
		fakellm.Reply{Content: "bye", ToolCalls: []llm.ToolCall{call("d", "conv_destroy", map[string]any{"conversation_id": "00000000-0000-4000-8000-000000000003"})}},
		fakellm.Reply{Content: "it left"},
	)
	f.run(t, "start one")
	sub := "00000000-0000-4000-8000-000000000003"
	aborted := f.rec.find(event.TurnAborted)
	if len(aborted) != 2 || aborted[1].Conversation != sub || aborted[1].Reason != event.ReasonInterrupted {
		t.Fatalf("aborts = %+v", aborted)
	}
	// The hand-back says it did not answer (front ends: not "answered").
	if back := f.rec.find(event.HandBack); len(back) != 1 || back[0].Tool.Status != event.ToolFailed || !strings.Contains(back[0].Tool.Summary, "destroyed") {
		t.Errorf("hand-back of a destroyed conversation = %+v", back)
	}
	if len(f.sess.Conversations()) != 1 {
		t.Errorf("conversation not destroyed: %+v", f.sess.Conversations())
	}
	hist := f.sess.History("")
	checkPairs(t, hist)
	if m := toolMsg(hist, "c1"); m == nil || !strings.Contains(m.Content, `"error":"the conversation was destroyed"`) {
		t.Errorf("caller's result = %+v", m)
	}
	if done := f.rec.find(event.TaskComplete); len(done) != 1 || done[0].Conversation != string(f.sess.RootConversation()) {
		t.Errorf("completions = %+v", done)
	}
}

// Past conversations.max_interrupt_chain_depth an interrupting call gets an
// error result at once and nothing is handed over.
func TestConvChainDepth(t *testing.T) {
	f := convFixture(t, func(c *config.Config) { c.Conversations.MaxInterruptChainDepth = 1 })
	f.srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("c1", "conv_create", map[string]any{"user_instruction": "level 1"})}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("c2", "conv_create", map[string]any{"user_instruction": "level 2"})}},
		fakellm.Reply{Content: "could not delegate"},
		fakellm.Reply{Content: "done"},
	)
	f.run(t, "nest")
	reqs := f.srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4", len(reqs))
	}
	if m := toolMsg(reqs[2].Messages, "c2"); m == nil || !strings.Contains(m.Content, "max_interrupt_chain_depth = 1") {
		t.Errorf("deep call result = %+v", m)
	}
	if n := len(f.sess.Conversations()); n != 2 {
		t.Errorf("%d conversations, want 2 (the refused call created none)", n)
	}
	if m := toolMsg(f.sess.History(""), "c1"); m == nil || !strings.Contains(m.Content, "could not delegate") {
		t.Errorf("root result = %+v", m)
	}
}

// A user interrupt mid-chain stops everything and answers every pending
// call "interrupted by the user".
func TestConvUserInterruptMidChain(t *testing.T) {
	f := convFixture(t, nil)
	started := make(chan struct{})
	var once sync.Once
	f.sess.opts.OnEvent = func(ev event.Event) {
		f.rec.handle(ev)
		if ev.Kind == event.AgentMessageDelta && strings.HasSuffix(ev.Conversation, "06") {
			once.Do(func() { close(started) })
		}
	}
	f.srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("c1", "conv_create", map[string]any{"user_instruction": "level 1"})}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("c2", "conv_create", map[string]any{"user_instruction": "level 2"})}},
		fakellm.Reply{Content: strings.Repeat("slow ", 200), Chunk: 5, Delay: 20 * time.Millisecond},
	)
	if _, err := f.sess.Submit("nest"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-started:
	case <-time.After(20 * time.Second):
		t.Fatal("level 2 never streamed")
	}
	f.sess.Cancel()
	if n := len(f.srv.Requests()); n != 3 {
		t.Errorf("%d requests after the interrupt, want 3", n)
	}
	aborted := f.rec.find(event.TurnAborted)
	if last := aborted[len(aborted)-1]; last.Reason != event.ReasonInterrupted || !strings.HasSuffix(last.Conversation, "06") {
		t.Errorf("last abort = %+v", last)
	}
	for conv, call := range map[ConversationID]string{"": "c1", "00000000-0000-4000-8000-000000000003": "c2"} {
		h := f.sess.History(conv)
		checkPairs(t, h)
		if m := toolMsg(h, call); m == nil || m.Content != "error: interrupted by the user" {
			t.Errorf("pending call %s = %+v", call, m)
		}
	}
	if f.sess.Status().Busy {
		t.Error("session still busy")
	}
	f.srv.Enqueue(fakellm.Reply{Content: "fresh"})
	f.run(t, "next")
}

// Opening, sending to and closing 1,000 conversations leaves no
// goroutines or memory behind (seed 004 §14): a third of them answer, a
// third are interrupted mid-answer, a third are closed mid-answer.
func TestConvLeak(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	srv := fakellm.New()
	t.Cleanup(srv.Close)
	cfg := config.Defaults()
	cfg.Model = "test-model"
	// Session files on tmpfs where there is one: 3,000 fsyncs on a loaded
	// disk would take minutes and measure nothing of ours.
	root := t.TempDir()
	if dir, err := os.MkdirTemp("/dev/shm", "coder-leak-"); err == nil {
		root = dir
		t.Cleanup(func() { os.RemoveAll(dir) })
	}
	sess, err := Open(Options{Config: cfg, Root: root, OnEvent: func(event.Event) {},
		Provider: provider.NewOpenAI(provider.Options{BaseURL: srv.URL(), APIKey: "k", BaseBackoff: time.Millisecond, MaxAttempts: 2})})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sess.Close)
	big := strings.Repeat("payload ", 512) // 4 KiB per message: a leaked history shows
	srv.SetScript(func(r fakellm.Request) fakellm.Reply {
		if last := r.Messages[len(r.Messages)-1]; last.Content == "hang" {
			return fakellm.Reply{Content: big, Chunk: 4096, Hang: true, HangAfter: 1}
		}
		return fakellm.Reply{Content: big, Chunk: 4096}
	})
	// answering waits until the model has the request and is answering.
	answering := func(before int) {
		for len(srv.Requests()) == before {
			time.Sleep(time.Millisecond) // polls
		}
	}
	cycle := func(n int) {
		for i := 0; i < n; i++ {
			id, err := sess.OpenConversation("", nil)
			if err != nil {
				t.Fatal(err)
			}
			input := map[bool]string{true: "hi", false: "hang"}[i%3 == 0]
			before := len(srv.Requests())
			if _, err := sess.SubmitTo(id, input); err != nil {
				t.Fatal(err)
			}
			switch i % 3 {
			case 0:
				sess.Wait()
			case 1:
				answering(before)
				sess.Cancel() // the user's interrupt
			case 2:
				answering(before) // closed while it runs
			}
			if err := sess.CloseConversation(id); err != nil {
				t.Fatal(err)
			}
			sess.Wait() // the closed task's end
		}
		sess.saver.flush()
		srv.ForgetRequests() // the fake server's own record is not ours
	}
	measure := func() (int, uint64) {
		var ms runtime.MemStats
		for i := 0; i < 3; i++ {
			runtime.GC()
		}
		runtime.ReadMemStats(&ms)
		return ourGoroutines(), ms.HeapAlloc
	}
	cycle(20) // warm up connections and caches
	g0, h0 := measure()
	cycle(1000)
	// Goroutines of finished work may take a moment to exit.
	deadline := time.Now().Add(10 * time.Second)
	g1, h1 := measure()
	for g1 > g0+2 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		g1, h1 = measure()
	}
	if g1 > g0+2 {
		t.Errorf("goroutines: %d before, %d after 1,000 conversations", g0, g1)
	}
	// 1,000 leaked histories would hold over 8 MB.
	if h1 > h0+2<<20 {
		t.Errorf("heap: %d KiB before, %d KiB after 1,000 conversations", h0>>10, h1>>10)
	}
	if n := len(sess.Conversations()); n != 1 {
		t.Errorf("%d conversations left, want the root", n)
	}
}

// ourGoroutines counts the goroutines other than idle HTTP connections:
// the provider's keep-alive connections and the fake server's side of them
// come and go with the load (a busy machine opens a second connection) and
// are not the session's.
func ourGoroutines() int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	count := 0
	for _, g := range strings.Split(string(buf), "\n\n") {
		idleConn := strings.Contains(g, "(*persistConn).readLoop") || strings.Contains(g, "(*persistConn).writeLoop") ||
			strings.Contains(g, "net/http.(*conn).serve")
		if strings.TrimSpace(g) != "" && !(idleConn && !strings.Contains(g, "coder-nvim/core")) {
			count++
		}
	}
	return count
}
