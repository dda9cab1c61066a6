package acp

import (
	"context"
	"os"
	"strings"
	"time"

	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/rpc/acp/termfollow"
	sdk "github.com/coder/acp-go-sdk"
)

// A client that offers `terminal` sees a running bash call's output in a
// terminal of its own. The command still runs here, in the sandbox and
// under the caps: the output deltas (core/event ToolOutputDelta, the same
// ones other clients get as text) are appended to a file, and the client's
// terminal runs the follower (termfollow), which prints that file and
// exits with the command's status. The call's content is the terminal
// from its first output on; a call that prints nothing, or a client whose
// terminal/create fails, gets text as before.

// terminalTimeout bounds terminal/create and the wait for the follower to
// finish printing: a client that does not answer gets text instead.
const terminalTimeout = 10 * time.Second

// terminalOutputLimit is the output the client keeps: the most the
// follower prints, with room for the closing lines.
const terminalOutputLimit = termfollow.MaxOutput + 64<<10

// terminal is a call's mirror (pump only).
type terminal struct {
	w        *termfollow.Writer // nil: the client's terminal/create failed
	id       string
	streamed strings.Builder // the output written, to find what the result adds
	limited  bool
}

// mirrorOutput sends a bash call's output delta to its terminal, opening
// one on the first; false when the call has none (text goes out instead).
func (s *session) mirrorOutput(tool *event.Tool, text string, limited bool) bool {
	m := s.terminals[tool.CallID]
	if m == nil {
		if !s.calls[tool.CallID] || !s.wantsTerminal(tool) {
			return false
		}
		m = s.openTerminal(tool.CallID)
		s.terminals[tool.CallID] = m
	}
	if m.w == nil {
		return false
	}
	if m.limited {
		return true
	}
	if err := m.w.Output(text); err != nil {
		s.srv.log.Warn("terminal output not written", "session", s.id, "err", err)
	}
	m.streamed.WriteString(text)
	if limited {
		m.limited = true
		m.w.Output("\n… (more output: the model gets the command's capped result)\n") //nolint:errcheck // as above
	}
	return true
}

// wantsTerminal: a built-in bash call, a client with terminals.
func (s *session) wantsTerminal(tool *event.Tool) bool {
	s.srv.mu.Lock()
	ok := s.srv.caps.Terminal
	s.srv.mu.Unlock()
	return ok && s.srv.self != "" && tool.Name == "bash" && tool.Server == ""
}

// openTerminal creates the output file and the client's terminal, and
// makes the terminal the call's content.
func (s *session) openTerminal(callID string) *terminal {
	if s.termDir == "" {
		dir, err := os.MkdirTemp("", "coder-nvim-terminals-")
		if err != nil {
			s.srv.log.Warn("no terminal output directory", "session", s.id, "err", err)
			return &terminal{}
		}
		s.termDir = dir
	}
	w, err := termfollow.Create(s.termDir)
	if err != nil {
		s.srv.log.Warn("no terminal output file", "session", s.id, "err", err)
		return &terminal{}
	}
	ctx, cancel := context.WithTimeout(s.srv.ctx, terminalTimeout)
	defer cancel()
	resp, err := s.srv.conn.CreateTerminal(ctx, sdk.CreateTerminalRequest{
		SessionId:       s.id,
		Command:         s.srv.self,
		Args:            []string{termfollow.Subcommand, w.Path()},
		Cwd:             &s.root,
		OutputByteLimit: sdk.Ptr(terminalOutputLimit),
	})
	if err != nil {
		s.srv.log.Warn("terminal/create failed; the output goes as text", "session", s.id, "err", err)
		w.Remove()
		return &terminal{}
	}
	s.send(sdk.SessionUpdate{ToolCallUpdate: &sdk.SessionToolCallUpdate{
		ToolCallId: sdk.ToolCallId(callID),
		Content:    []sdk.ToolCallContent{sdk.ToolTerminalRef(resp.TerminalId)},
	}})
	return &terminal{w: w, id: resp.TerminalId}
}

// endTerminal ends the call's terminal with what the result adds to the
// output (its exit code line, a sandbox note) and the command's status,
// and returns the call's final content: the terminal. nil when the call
// has no terminal.
func (s *session) endTerminal(tool *event.Tool) []sdk.ToolCallContent {
	m := s.terminals[tool.CallID]
	delete(s.terminals, tool.CallID)
	if m == nil || m.w == nil {
		return nil
	}
	if tail := resultTail(m.streamed.String(), tool.Output, m.limited); tail != "" {
		m.w.Output(tail) //nolint:errcheck // logged by the first write's failure
	}
	code := 0
	switch {
	case tool.ExitCode != nil:
		code = *tool.ExitCode
	case tool.Status != event.ToolCompleted:
		code = 1
	}
	s.release(m, code)
	return []sdk.ToolCallContent{sdk.ToolTerminalRef(m.id)}
}

// resultTail is what the result adds after the streamed output: the rest
// of it when it starts with that output, else its last line (the exit
// code, or how the command ended).
func resultTail(streamed, result string, limited bool) string {
	if rest, ok := strings.CutPrefix(result, streamed); ok && !limited {
		return rest
	}
	result = strings.TrimRight(result, "\n")
	tail := result[strings.LastIndexByte(result, '\n')+1:]
	if tail == "" {
		return ""
	}
	return "\n" + tail
}

// release writes the exit status, lets the follower print the rest and
// releases the terminal, away from the pump.
func (s *session) release(m *terminal, code int) {
	if err := m.w.End(code); err != nil {
		s.srv.log.Warn("terminal output not ended", "session", s.id, "err", err)
	}
	go func() {
		defer m.w.Remove()
		ctx, cancel := context.WithTimeout(s.srv.ctx, terminalTimeout)
		defer cancel()
		if _, err := s.srv.conn.WaitForTerminalExit(ctx, sdk.WaitForTerminalExitRequest{SessionId: s.id, TerminalId: m.id}); err != nil {
			s.srv.log.Debug("terminal/wait_for_exit", "session", s.id, "err", err)
		}
		ctx2, cancel2 := context.WithTimeout(s.srv.ctx, terminalTimeout)
		defer cancel2()
		if _, err := s.srv.conn.ReleaseTerminal(ctx2, sdk.ReleaseTerminalRequest{SessionId: s.id, TerminalId: m.id}); err != nil {
			s.srv.log.Debug("terminal/release", "session", s.id, "err", err)
		}
	}()
}

// closeTerminals ends the terminals of calls that never ended (an
// interrupted turn, a closed session) as failed.
func (s *session) closeTerminals() {
	for id, m := range s.terminals {
		delete(s.terminals, id)
		if m.w != nil {
			s.release(m, 1)
		}
	}
}
