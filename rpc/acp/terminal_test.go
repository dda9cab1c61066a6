package acp_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
	sdk "github.com/coder/acp-go-sdk"
)

// termHost runs a client's terminals as an editor does: the command
// terminal/create names, as a process of the client's.
type termHost struct {
	failCreate bool // answer terminal/create with an error

	mu       sync.Mutex
	creates  []sdk.CreateTerminalRequest
	terms    map[string]*term
	released []string
}

type term struct {
	cmd  *exec.Cmd
	out  lockedBuffer
	done chan struct{}
	code int
}

func (h *termHost) create(req sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.creates = append(h.creates, req)
	if h.failCreate {
		return sdk.CreateTerminalResponse{}, errors.New("terminals are broken in this client")
	}
	tm := &term{cmd: exec.Command(req.Command, req.Args...), done: make(chan struct{})}
	if req.Cwd != nil {
		tm.cmd.Dir = *req.Cwd
	}
	tm.cmd.Stdout, tm.cmd.Stderr = &tm.out, &tm.out
	if err := tm.cmd.Start(); err != nil {
		return sdk.CreateTerminalResponse{}, err
	}
	go func() {
		tm.cmd.Wait()
		tm.code = tm.cmd.ProcessState.ExitCode()
		close(tm.done)
	}()
	id := fmt.Sprintf("term-%d", len(h.creates))
	if h.terms == nil {
		h.terms = map[string]*term{}
	}
	h.terms[id] = tm
	return sdk.CreateTerminalResponse{TerminalId: id}, nil
}

func (h *termHost) get(id string) (*term, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if tm := h.terms[id]; tm != nil {
		return tm, nil
	}
	return nil, fmt.Errorf("no terminal %q", id)
}

func (h *termHost) kill(id string) error {
	tm, err := h.get(id)
	if err == nil {
		tm.cmd.Process.Kill()
	}
	return err
}

func (h *termHost) output(id string) (sdk.TerminalOutputResponse, error) {
	tm, err := h.get(id)
	if err != nil {
		return sdk.TerminalOutputResponse{}, err
	}
	return sdk.TerminalOutputResponse{Output: tm.out.String()}, nil
}

func (h *termHost) wait(ctx context.Context, id string) (sdk.WaitForTerminalExitResponse, error) {
	tm, err := h.get(id)
	if err != nil {
		return sdk.WaitForTerminalExitResponse{}, err
	}
	select {
	case <-tm.done:
		return sdk.WaitForTerminalExitResponse{ExitCode: sdk.Ptr(tm.code)}, nil
	case <-ctx.Done():
		return sdk.WaitForTerminalExitResponse{}, ctx.Err()
	}
}

func (h *termHost) release(id string) error {
	tm, err := h.get(id)
	if err != nil {
		return err
	}
	tm.cmd.Process.Kill() // as the spec says: a command still running is killed
	h.mu.Lock()
	h.released = append(h.released, id)
	h.mu.Unlock()
	return nil
}

func (h *termHost) state() (creates []sdk.CreateTerminalRequest, released []string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append(creates, h.creates...), append(released, h.released...)
}

// TestBashOutputInTerminal: a client that offers terminals gets a bash
// call's output live in one: terminal/create runs the agent's follower
// (the command itself runs in the agent), the call's content is the
// terminal, and the terminal ends with the result's exit line and the
// command's status before it is released.
func TestBashOutputInTerminal(t *testing.T) {
	terms := &termHost{}
	e := newEnv(t, envOptions{terms: terms})
	sid, _ := e.newSession()
	done := runGated(t, e, sid, 3)
	// Live: the first line is in the terminal, and the call's content is
	// the terminal, while the command waits for its gate.
	termOf := func(content []sdk.ToolCallContent) string {
		if len(content) == 1 && content[0].Terminal != nil {
			return content[0].Terminal.TerminalId
		}
		return ""
	}
	var id string
	e.client.waitFor(t, "the first line in a terminal while the command runs", func() bool {
		for _, u := range e.client.snapshot() {
			if c := u.Update.ToolCallUpdate; c != nil && c.ToolCallId == "b1" && termOf(c.Content) != "" {
				id = termOf(c.Content)
			}
		}
		if id == "" {
			return false
		}
		out, err := terms.output(id)
		return err == nil && out.Output == "first line\n"
	})
	if end := lastToolUpdate(e.client.snapshot(), "b1"); end != nil && *end.Status != sdk.ToolCallStatusInProgress {
		t.Fatalf("the call ended before its gate was opened: %+v", end)
	}
	creates, _ := terms.state()
	self, err := filepath.EvalSymlinks(binary)
	if err != nil {
		t.Fatal(err)
	}
	if len(creates) != 1 || creates[0].Command != self || len(creates[0].Args) != 2 || creates[0].Args[0] != "terminal-follow" ||
		creates[0].SessionId != sid || creates[0].Cwd == nil || *creates[0].Cwd != e.root {
		t.Fatalf("terminal/create requests %+v; want one running %s terminal-follow FILE in %s", creates, self, e.root)
	}

	if err := os.WriteFile(filepath.Join(e.root, "gate"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("session/prompt: %v", err)
	}
	end := lastToolUpdate(e.client.snapshot(), "b1")
	if end == nil || *end.Status != sdk.ToolCallStatusFailed || termOf(end.Content) != id {
		t.Fatalf("final update %+v; want failed (exit 3) with the terminal %s as its content", end, id)
	}
	waitTerminalReleased(t, terms, id)
	tm, _ := terms.get(id)
	if out := tm.out.String(); out != "first line\nsecond line\n[exit code 3]" || tm.code != 3 {
		t.Errorf("the terminal printed %q and exited %d; want the output, the exit line, and 3", out, tm.code)
	}
	// The command ran in the agent, once: the model got its result.
	if got := toolResult(e.llm.Requests(), "b1"); !strings.Contains(got, "first line\nsecond line\n[exit code 3]") {
		t.Errorf("the model got %q, not the command's result", got)
	}
	// The file goes once the release is answered: wait for it, bounded.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		_, err := os.Stat(creates[0].Args[1])
		if errors.Is(err, os.ErrNotExist) {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("the output file is left after the release: %v", err)
			break
		}
	}
}

// TestBashOutputTerminalRefused: a client whose terminal/create fails gets
// the output as text, as a client without terminals does.
func TestBashOutputTerminalRefused(t *testing.T) {
	terms := &termHost{failCreate: true}
	e := newEnv(t, envOptions{terms: terms})
	sid, _ := e.newSession()
	e.llm.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("b1", "bash", map[string]any{"command": "echo hi"})}},
		fakellm.Reply{Content: "Done."},
	)
	e.mustPrompt(sid, "run it", sdk.StopReasonEndTurn)
	if creates, _ := terms.state(); len(creates) != 1 {
		t.Errorf("terminal/create requests: %d, want 1", len(creates))
	}
	end := lastToolUpdate(e.client.snapshot(), "b1")
	if end == nil || contentText(end.Content) != "hi\n[exit code 0]" {
		t.Fatalf("final update %+v; want the result as text", end)
	}
}

func waitTerminalReleased(t *testing.T, h *termHost, id string) {
	t.Helper()
	deadline := time.Now().Add(minWait)
	for {
		_, released := h.state()
		if slices.Contains(released, id) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("terminal %s never released", id)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
