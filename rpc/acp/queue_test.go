package acp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
	sdk "github.com/coder/acp-go-sdk"
)

type promptOutcome struct {
	resp sdk.PromptResponse
	err  error
}

func (e *env) promptAsync(sid sdk.SessionId, text string) chan promptOutcome {
	ch := make(chan promptOutcome, 1)
	go func() {
		r, err := e.prompt(sid, text)
		ch <- promptOutcome{r, err}
	}()
	return ch
}

// waitOutcome waits for a prompt's answer and checks its stop reason.
func waitOutcome(t *testing.T, what string, ch chan promptOutcome, want sdk.StopReason) {
	t.Helper()
	select {
	case o := <-ch:
		if o.err != nil || o.resp.StopReason != want {
			t.Fatalf("%s: %+v, %v; want %s", what, o.resp, o.err, want)
		}
	case <-time.After(minWait):
		t.Fatalf("%s never returned", what)
	}
}

// TestPromptsQueue: a session/prompt sent while a turn runs a command
// waits for it: the command finishes, the first prompt ends normally, then
// the second runs. Before, the second cancelled the first and killed its
// bash.
func TestPromptsQueue(t *testing.T) {
	e := newEnv(t, envOptions{})
	sid, _ := e.newSession()
	gate, done := filepath.Join(e.root, "go.txt"), filepath.Join(e.root, "first.txt")
	cmd := "while [ ! -f go.txt ]; do sleep 0.05; done; echo ran > first.txt"
	e.llm.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("b", "bash", map[string]string{"command": cmd})}},
		fakellm.Reply{Content: "First done."},
		fakellm.Reply{Content: "Second done."},
	)
	first := e.promptAsync(sid, "first")
	e.client.waitFor(t, "the command running", func() bool {
		u := lastToolUpdate(e.client.snapshot(), "b")
		return u != nil && *u.Status == sdk.ToolCallStatusInProgress
	})
	second := e.promptAsync(sid, "second")
	// The second is queued: it stops nothing while the first runs.
	e.client.waitFor(t, "the second prompt queued", func() bool {
		return strings.Contains(e.proc.stderr.String(), "prompt queued behind the running turn")
	})
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	waitOutcome(t, "the first prompt", first, sdk.StopReasonEndTurn)
	if _, err := os.Stat(done); err != nil {
		t.Errorf("the first turn's command did not finish: %v", err)
	}
	waitOutcome(t, "the second prompt", second, sdk.StopReasonEndTurn)
	reqs := e.llm.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests, want 3", len(reqs))
	}
	last := reqs[2].Messages
	if m := last[len(last)-1]; m.Role != llm.RoleUser || !strings.Contains(m.Content, "second") {
		t.Errorf("the last request ends with %+v, want the second prompt after the first turn", m)
	}
	checkPaired(t, reqs[2])
}

// TestCancelThenPrompt: a client that cancels the running turn and sends
// its next prompt right after (Zed) gets the first cancelled and the
// second run.
func TestCancelThenPrompt(t *testing.T) {
	e := newEnv(t, envOptions{})
	sid, _ := e.newSession()
	slow := fakellm.Reply{Content: strings.Repeat("word ", 400), Chunk: 5, Delay: 20 * time.Millisecond}
	e.llm.Enqueue(slow, fakellm.Reply{Content: "Second."})
	first := e.promptAsync(sid, "first")
	e.client.waitFor(t, "the first chunk", func() bool { return agentText(e.client.snapshot()) != "" })
	start := time.Now()
	if err := e.conn.Cancel(ctxT(t), sdk.CancelNotification{SessionId: sid}); err != nil {
		t.Fatal(err)
	}
	second := e.promptAsync(sid, "second")
	waitOutcome(t, "the cancelled prompt", first, sdk.StopReasonCancelled)
	if d := time.Since(start); d > stopBound {
		t.Errorf("the first turn took %v to stop, want at most %v", d, stopBound)
	}
	waitOutcome(t, "the prompt after the cancel", second, sdk.StopReasonEndTurn)
	reqs := e.llm.Requests()
	checkPaired(t, reqs[len(reqs)-1])
}
