package agent

import (
	"context"
	"fmt"
	"time"

	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/policy"
	"github.com/coder-nvim/coder-nvim/core/tools"
	"github.com/coder-nvim/coder-nvim/core/verify"
)

// verifyTimeout bounds one auto-verify run.
const verifyTimeout = 10 * time.Minute

// autoVerify runs after the model answered without tool calls (seed 001
// §6). It reports whether the turn goes on: a retryable failure injects a
// "fix it and verify again" message for the model.
func (s *Session) autoVerify(ctx context.Context, t *task, input string) (more bool) {
	if len(t.edited) == 0 {
		return false // nothing new to verify since the last run
	}
	cfg := s.opts.Config.Workflow
	mode := s.Mode()
	retries := max(0, t.verifyRuns-1)
	ok, why := verify.ShouldVerify(verify.TriggerInput{
		EditedPaths:   t.edited,
		AutoVerify:    cfg.AutoVerifyAfterEdit,
		BashAvailable: s.offered(t.conv, "bash"),
		Attempts:      retries,
		MaxAttempts:   cfg.MaxVerifyAttempts,
		Mode:          string(mode),
		UserInput:     input,
	})
	t.edited = nil
	if !ok {
		if why != verify.NoEditReason && (mode == policy.ModeAutoEdit || mode == policy.ModeYolo || verify.UserAskedToVerify(input)) {
			s.skipNotice(t, why)
		}
		return false
	}
	choice := verify.Choose(s.root, input, cfg.VerifyCommands)
	if choice.Command == "" {
		s.skipNotice(t, choice.Reason)
		return false
	}

	// The command goes through policy and approval like any bash call
	// (yolo skips both, as for the model's own bash calls).
	callID := fmt.Sprintf("verify_%s_%d", t.id[:8], t.verifyRuns+1)
	confine := s.confinement(ctx, mode) // in the sandbox, as the model's commands
	if mode != policy.ModeYolo {
		action := policy.Action{Tool: "bash", Kind: string(tools.KindExecute), Command: choice.Command, Conversation: string(t.conv.ID),
			Sandboxed: s.sandboxFull(ctx, confine), Protected: s.userDirs}
		v := policy.Evaluate(mode, s.policyFor(t.conv), action, s.root)
		switch v.Decision {
		case policy.Deny:
			s.skipNotice(t, "bash may not run `"+choice.Command+"`: "+v.Reason)
			return false
		case policy.Ask:
			inv := &tools.Invocation{Tool: "bash", Kind: tools.KindExecute, Title: "verify: " + choice.Command, Command: choice.Command, Confine: confine}
			if ok, _ := s.approve(ctx, t, llm.ToolCall{ID: callID}, inv, action, v); !ok {
				s.skipNotice(t, "running `"+choice.Command+"` was not approved")
				return false
			}
		}
	}

	t.verifyRuns++
	s.mu.Lock()
	s.verifySkip = "" // it runs: a later skip is news again
	s.mu.Unlock()
	info := &event.Tool{CallID: callID, Name: "bash", Kind: string(tools.KindExecute), Title: "verify: " + choice.Command, Arguments: choice.Reason}
	t.emit(event.Event{Kind: event.ToolCallBegin, Tool: info})
	var res tools.ShellResult
	end := s.ws.BeginConfined(confine)
	s.trackCommand(ctx, t, func() {
		// In the workspace, but on the host's cleaned PATH: a verify
		// command's `go` or `make` is never the repository's bin/ one.
		path := []string{"PATH=" + s.ws.Programs().Path}
		res = s.ws.Shells().RunConfined(ctx, confine, choice.Command, verifyTimeout, 0, path, nil)
	})
	out := res.Output() + end(ctx)
	info.Output = verify.Cap(out, verify.CapHead, verify.CapTail)
	info.DurationMS = res.Duration.Milliseconds()
	if res.Canceled || ctx.Err() != nil {
		info.Status, info.Summary = event.ToolAborted, "interrupted"
		t.emit(event.Event{Kind: event.ToolCallEnd, Tool: info})
		return false
	}
	outcome, reason := verify.Diagnose(res.ExitCode, res.TimedOut, out)
	limit := verify.EffectiveMax(cfg.MaxVerifyAttempts) + 1 // the first run plus the retries
	switch outcome {
	case verify.Passed:
		info.Status, info.Summary = event.ToolCompleted, fmt.Sprintf("passed (%s)", res.Duration.Round(time.Millisecond))
		t.emit(event.Event{Kind: event.ToolCallEnd, Tool: info})
		s.notice(t, fmt.Sprintf("auto-verify passed: `%s`", choice.Command))
		return false
	case verify.EnvError:
		info.Status, info.Summary = event.ToolFailed, reason
		t.emit(event.Event{Kind: event.ToolCallEnd, Tool: info})
		s.notice(t, verify.EnvWarning(choice.Command, reason))
		return false
	}
	info.Status, info.Summary = event.ToolFailed, fmt.Sprintf("failed, exit %d (attempt %d of %d)", res.ExitCode, t.verifyRuns, limit)
	t.emit(event.Event{Kind: event.ToolCallEnd, Tool: info})
	s.appendMessage(t.conv, llm.Message{Role: llm.RoleUser, Content: verify.FixPrompt(choice.Command, out, t.verifyRuns, limit)})
	return true
}

// skipNotice says why auto-verify did not run, unless the last turn that
// edited said the same.
func (s *Session) skipNotice(t *task, why string) {
	s.mu.Lock()
	same := s.verifySkip == why
	s.verifySkip = why
	s.mu.Unlock()
	if !same {
		s.notice(t, verify.SkipNotice(why))
	}
}

func (s *Session) notice(t *task, text string) {
	t.emit(event.Event{Kind: event.Notice, Text: text})
}
