package agent

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/coder-nvim/coder-nvim/core/agent/command"
	"github.com/coder-nvim/coder-nvim/core/agent/todo"
	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/policy"
	"github.com/coder-nvim/coder-nvim/core/reviewcomments"
	"github.com/coder-nvim/coder-nvim/core/store"
	"github.com/coder-nvim/coder-nvim/core/text"
	"github.com/coder-nvim/coder-nvim/core/tools"
	"github.com/google/uuid"
)

// slash carries out the `/` commands typed in task t (command.Runner):
// they run as that task, in its conversation.
type slash struct {
	s *Session
	t *task
}

// Mode is /mode NAME.
func (c slash) Mode(_ context.Context, name string) (string, error) { return c.s.switchMode(name) }

func (s *Session) switchMode(arg string) (string, error) {
	m, err := policy.ParseMode(arg)
	if err != nil {
		return "", err
	}
	s.SetMode(m)
	return fmt.Sprintf("mode: %s", m), nil
}

// modelsTimeout bounds the endpoint's GET /models for /model.
const modelsTimeout = 5 * time.Second

// endpointModels lists the endpoint's models, keeping the context windows
// the list gives; nil when it lists none (no lister, or an endpoint
// without /models).
func (s *Session) endpointModels(ctx context.Context) []string {
	list := s.currentEndpoint().models
	if list == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, modelsTimeout)
	defer cancel()
	models, err := list(ctx)
	if err != nil {
		return nil
	}
	s.noteWindows(models)
	names := make([]string, 0, len(models))
	for _, m := range models {
		names = append(names, m.ID)
	}
	return names
}

func (c slash) Model(ctx context.Context, arg string) (string, error) {
	s, t := c.s, c.t
	current := s.Status().Model
	models := s.endpointModels(ctx)
	if arg == "" {
		if len(models) == 0 {
			return fmt.Sprintf("current model: %s (the endpoint lists no models; /model NAME switches)", current), nil
		}
		t.emit(event.Event{Kind: event.ModelChoices, Paths: models, Text: current})
		return fmt.Sprintf("current model: %s\nthe endpoint's models (/model NAME switches):\n  %s", current, strings.Join(models, "\n  ")), nil
	}
	if len(models) > 0 && !slices.Contains(models, arg) {
		msg := fmt.Sprintf("the endpoint does not list the model %q; still on %s", arg, current)
		if near := command.NearestModels(arg, models, 3); len(near) > 0 {
			msg += "; did you mean " + strings.Join(near, ", ") + "?"
		}
		return "", fmt.Errorf("%s (/model! %s uses and saves it anyway)", msg, arg)
	}
	return c.ModelAnyway(ctx, arg)
}

// ModelAnyway switches to arg and saves it, listed or not (/model!).
func (c slash) ModelAnyway(_ context.Context, arg string) (string, error) {
	s, t := c.s, c.t
	if arg == "" {
		return "", fmt.Errorf("usage: /model! NAME (current model: %s)", s.Status().Model)
	}
	s.mu.Lock()
	s.model = arg
	st := s.statusLocked()
	window := s.windowLocked(arg)
	s.mu.Unlock()
	t.emit(event.Event{Kind: event.StatusChanged, Status: &st})
	s.save()
	head := fmt.Sprintf("model: %s, context window %d tokens", arg, window)
	// seed 001 §9: the switch stands even if it cannot be saved.
	if err := config.SetWorkspaceKey(s.root, s.opts.Config.StateDir, "model", arg); err != nil {
		return fmt.Sprintf("%s (for this session only: saving it failed: %v)", head, err), nil
	}
	if ws := s.opts.Config.Workspace; ws.File != "" && !ws.Trusted {
		return fmt.Sprintf("%s (saved to %s, which applies in later sessions once you trust it: coder-nvim trust)", head, config.WorkspaceFile(s.root)), nil
	}
	return fmt.Sprintf("%s (saved to %s)", head, config.WorkspaceFile(s.root)), nil
}

func (c slash) Permissions(_ context.Context, arg string) (string, error) {
	s, t := c.s, c.t
	if arg != "" {
		p, err := policy.ParsePreset(arg)
		if err != nil {
			return "", err
		}
		s.mu.Lock()
		s.policy.Preset = p
		st := s.statusLocked()
		s.mu.Unlock()
		t.emit(event.Event{Kind: event.StatusChanged, Status: &st})
	}
	s.mu.Lock()
	pol, mode := s.policy, s.mode
	s.mu.Unlock()
	return fmt.Sprintf("preset: %s, mode: %s\n%s", pol.Preset, mode, pol.Matrix(mode)), nil
}

// Status is /status: the provider and settings, the last turn's
// tokens, then each conversation's metrics.
func (c slash) Status(_ context.Context, arg string) (string, error) {
	s, t := c.s, c.t
	if arg != "" {
		return "", errors.New("/status takes no argument")
	}
	st := s.Status()
	cfg := s.currentEndpoint().cfg
	var b strings.Builder
	fmt.Fprintf(&b, "provider: %s", cfg.Provider)
	if cfg.BaseURL != "" && !st.Demo {
		fmt.Fprintf(&b, " at %s", cfg.BaseURL)
	}
	if cfg.ProviderReason != "" {
		fmt.Fprintf(&b, " (%s)", cfg.ProviderReason)
	}
	fmt.Fprintf(&b, "\nmodel: %s", st.Model)
	if cfg.WireAPI != "" {
		fmt.Fprintf(&b, ", wire API %s", cfg.WireAPI)
	}
	if cfg.ReasoningEffort != "" {
		fmt.Fprintf(&b, ", reasoning effort %s", cfg.ReasoningEffort)
	}
	if !st.Demo {
		b.WriteString("\ncost: " + costBasis(cfg, st.Model))
	}
	fmt.Fprintf(&b, "\nmode: %s, permissions: %s\nsandbox: %s\ncontext: %d of %d tokens", st.Mode, st.Preset, s.SandboxStatus(context.Background()), st.ContextTokens, s.ContextWindow())
	b.WriteString("\n" + command.TurnLine(st.Turn) + "\n")
	b.WriteString("project instructions: " + s.agentsStatus(t.conv) + "\n")
	if hs := s.Hooks(); len(hs) > 0 {
		b.WriteString("hooks (:help coder-hooks):\n")
		for _, h := range hs {
			b.WriteString("  " + h + "\n")
		}
	}
	if line := reviewcomments.Summary(s.ReviewComments()); line != "" {
		b.WriteString(line + "\n")
	}
	s.writeConversationStats(&b, t)
	return b.String(), nil
}

// costBasis says where the cost shown for model's calls comes from.
func costBasis(cfg config.Config, model string) string {
	p, source, ok := cfg.PriceOf(model)
	if !ok {
		return "tokens only, unless the endpoint reports a cost (OpenRouter does); no price known for this model (config key prices)"
	}
	cached := p.CachedInput
	if cached == 0 {
		cached = p.Input
	}
	return fmt.Sprintf("at %s: $%g input, $%g cached input, $%g output per million tokens, unless the endpoint reports a cost", source, p.Input, cached, p.Output)
}

func (c slash) Tools(_ context.Context, _ string) (string, error) {
	s, t := c.s, c.t
	s.mu.Lock()
	offered := s.offeredToolsLocked(t.conv)
	mode := s.mode
	s.mu.Unlock()
	var b strings.Builder
	fmt.Fprintf(&b, "Tools in %s mode:\n", mode)
	for _, t := range offered {
		spec := t.Spec().Function
		// Wide enough for the longest name (conv_history), so rows align.
		fmt.Fprintf(&b, "  %-13s %-8s %s\n", spec.Name, t.Kind(), text.FirstLine(spec.Description))
	}
	b.WriteString(s.mcpReport(t.conv, mode))
	return b.String(), nil
}

func (c slash) Todos(_ context.Context, _ string) (string, error) {
	s := c.s
	return todo.Format(s.Todos()), nil
}

func (c slash) New(_ context.Context, _ string) (string, error) {
	s, t := c.s, c.t
	old := s.ID()
	s.reset(SessionID(uuid.NewString()))
	s.recordOrigin(s.ID())
	s.setLock(nil) // the old session is free; the new one locks at its first save
	s.startHooks("clear")
	s.mu.Lock()
	t.conv = s.rootConv
	st := s.statusLocked()
	s.mu.Unlock()
	t.emit(event.Event{Kind: event.StatusChanged, Status: &st})
	return fmt.Sprintf("new session %s (previous: %s, resume it with /resume %s)%s", s.ID(), old, old, agentsNote(t.conv)), nil
}

func (c slash) Resume(_ context.Context, arg string) (string, error) {
	s, t := c.s, c.t
	if arg == "" {
		list, err := s.OtherSessions()
		if err != nil {
			return "", err
		}
		if len(list) == 0 {
			return "", fmt.Errorf("usage: /resume ID (no other saved sessions in %s)", store.Dir(s.root))
		}
		var b strings.Builder
		b.WriteString("usage: /resume ID; saved sessions:\n")
		for _, sum := range list {
			fmt.Fprintf(&b, "  %s  %s  %s  (%d messages)\n", sum.ID, sum.UpdatedAt.Local().Format(time.DateTime), text.Truncate(text.FirstLine(sum.FirstPrompt), 60), sum.Messages)
		}
		return b.String(), nil
	}
	if err := s.load(SessionID(arg)); err != nil {
		return "", fmt.Errorf("cannot resume %q: %w", arg, err)
	}
	s.mu.Lock()
	t.conv = s.rootConv
	st := s.statusLocked()
	note := s.resumeNote
	s.resumeNote = ""
	s.mu.Unlock()
	n := t.conv.messageCount()
	t.emit(event.Event{Kind: event.StatusChanged, Status: &st})
	if note != "" {
		note = "\n" + note
	}
	return fmt.Sprintf("resumed session %s (%d messages)%s%s", arg, n, note, agentsNote(t.conv)), nil
}

// OtherSessions lists the saved sessions /resume offers, newest first: not
// this one, and not runs that never got an answer (a failed first request).
func (s *Session) OtherSessions() ([]store.Summary, error) {
	dir, err := store.WorkspaceDir(s.root)
	if err != nil {
		return nil, err
	}
	list, err := store.List(dir)
	if err != nil {
		return nil, err
	}
	id := s.ID()
	out := list[:0]
	for _, sum := range list {
		if sum.ID != string(id) && sum.Answered {
			out = append(out, sum)
		}
	}
	return out, nil
}

// runBang runs a user's `!command`: no policy, no approval (the user typed
// it), in the workspace, and writes the result into the conversation in a
// fixed structure so the model sees it next turn (seed 001 §3).
func (s *Session) runBang(ctx context.Context, t *task, cmd string) {
	if cmd == "" {
		t.emit(event.Event{Kind: event.Error, Text: "usage: !COMMAND"})
		return
	}
	info := &event.Tool{CallID: "user_" + string(t.id[:8]), Name: "bash", Kind: string(tools.KindExecute), Title: "!" + cmd}
	t.emit(event.Event{Kind: event.ToolCallBegin, Tool: info})
	res := tools.RunShellSplit(ctx, s.root, cmd, 10*time.Minute, 64<<10)
	text := command.ShellResult(res)
	info.Status = event.ToolCompleted
	if res.ExitCode != 0 || res.TimedOut || res.Canceled {
		info.Status = event.ToolFailed
	}
	info.Summary = fmt.Sprintf("exit %d (%s)", res.ExitCode, res.Duration.Round(time.Millisecond))
	info.Output = text
	info.DurationMS = res.Duration.Milliseconds()
	t.emit(event.Event{Kind: event.ToolCallEnd, Tool: info})
	s.appendMessage(t.conv, llm.Message{Role: llm.RoleUser, Content: "I ran a shell command myself:\n" + text})
}
