package agent

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/policy"
	"github.com/coder-nvim/coder-nvim/core/store"
	"github.com/coder-nvim/coder-nvim/core/tools"
	"github.com/google/uuid"
)

// command is one built-in `/` command.
type command struct {
	name  string
	args  string
	help  string
	run   func(s *Session, ctx context.Context, t *task, arg string) (string, error)
	alias bool // listed under its target in /help
}

// commands is the built-in set (seed 001 §4), in /help order.
func commands() []command {
	modeCmd := func(m policy.Mode) func(*Session, context.Context, *task, string) (string, error) {
		return func(s *Session, _ context.Context, _ *task, arg string) (string, error) {
			if arg != "" {
				return "", fmt.Errorf("/%s takes no argument", m)
			}
			return s.switchMode(string(m))
		}
	}
	return []command{
		{name: "help", help: "show commands and input rules", run: (*Session).cmdHelp},
		{name: "model", args: "[NAME]", help: "switch the model now and save it to .coder/config.json; without NAME, list the endpoint's models", run: (*Session).cmdModel},
		{name: "model!", args: "NAME", help: "same as /model NAME, also when the endpoint does not list NAME", run: (*Session).cmdModelAnyway, alias: true},
		{name: "permissions", args: "[PRESET]", help: "show the permission matrix, or switch preset (strict, balanced, auto-edit, yolo)", run: (*Session).cmdPermissions},
		{name: "mode", args: "NAME", help: "switch mode: plan, default, auto-edit, yolo", run: func(s *Session, _ context.Context, _ *task, arg string) (string, error) { return s.switchMode(arg) }},
		{name: "plan", help: "same as /mode plan", run: modeCmd(policy.ModePlan), alias: true},
		{name: "default", help: "same as /mode default", run: modeCmd(policy.ModeDefault), alias: true},
		{name: "auto-edit", help: "same as /mode auto-edit", run: modeCmd(policy.ModeAutoEdit), alias: true},
		{name: "yolo", help: "same as /mode yolo", run: modeCmd(policy.ModeYolo), alias: true},
		{name: "conversation", args: "new|set ...", help: "open a conversation with its own instructions, model, MCP tools, storage and narrower permissions, or change one's context for later turns (/conversation help)", run: (*Session).cmdConversation},
		{name: "status", help: "show the provider (and why), the model, the context, the last turn's tokens and each conversation's metrics", run: (*Session).cmdStatus},
		{name: "tools", help: "list the tools the model can use now", run: (*Session).cmdTools},
		{name: "todos", help: "show the todo list (read-only)", run: (*Session).cmdTodos},
		{name: "new", help: "start a new session with an empty context", run: (*Session).cmdNew},
		{name: "resume", args: "[ID]", help: "continue a saved session; without ID, list the others", run: (*Session).cmdResume},
		{name: "compact", help: "summarise the conversation now to free context", run: (*Session).cmdCompact},
		{name: "skills", help: "list the skills the model can load", run: (*Session).cmdSkills},
		{name: "diff", help: "summarise the workspace's changes (the full diff expands below)", run: (*Session).cmdDiff},
		{name: "undo", help: "take back every file change of the last turn (again: the turn before; /undo others: also the files it left alone)", run: (*Session).cmdUndo},
	}
}

// CommandNames lists the built-in commands (for completion and ACP's
// available commands).
func CommandNames() []string {
	var names []string
	for _, c := range commands() {
		names = append(names, c.name)
	}
	return names
}

// CommandHelp returns the one-line help of each command, by name.
func CommandHelp() map[string]string {
	out := map[string]string{}
	for _, c := range commands() {
		out[c.name] = c.help
	}
	return out
}

func (s *Session) runCommand(ctx context.Context, t *task, line string) (string, error) {
	name, arg, _ := strings.Cut(strings.TrimPrefix(line, "/"), " ")
	arg = strings.TrimSpace(arg)
	for _, c := range commands() {
		if c.name == name {
			return c.run(s, ctx, t, arg)
		}
	}
	msg := fmt.Sprintf("unknown command /%s", name)
	if close := closest(name, CommandNames()); len(close) > 0 {
		msg += "; did you mean " + "/" + strings.Join(close, ", /") + "?"
	}
	return "", fmt.Errorf("%s (/help lists the commands)", msg)
}

func (s *Session) cmdHelp(_ context.Context, _ *task, _ string) (string, error) {
	var b strings.Builder
	b.WriteString("Commands:\n")
	for _, c := range commands() {
		if c.alias {
			continue
		}
		use := "/" + c.name
		if c.args != "" {
			use += " " + c.args
		}
		fmt.Fprintf(&b, "  %-26s %s\n", use, c.help)
	}
	b.WriteString("  /plan /default /auto-edit /yolo  shortcuts for /mode\n\n")
	b.WriteString("Input:\n")
	b.WriteString("  Enter sends the input (Ctrl+S in insert mode in Neovim); Ctrl+D or an empty line on stdin ends input in exec.\n")
	b.WriteString("  !COMMAND runs COMMAND in the workspace shell without approval; its output goes into the conversation.\n")
	b.WriteString("  Ctrl+C (Neovim: <C-c> in the input, :Coder stop) interrupts streaming and the running turn.\n")
	return b.String(), nil
}

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

func (s *Session) cmdModel(ctx context.Context, t *task, arg string) (string, error) {
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
		if near := nearestModels(arg, models, 3); len(near) > 0 {
			msg += "; did you mean " + strings.Join(near, ", ") + "?"
		}
		return "", fmt.Errorf("%s (/model! %s uses and saves it anyway)", msg, arg)
	}
	return s.cmdModelAnyway(ctx, t, arg)
}

// cmdModelAnyway switches to arg and saves it, listed or not (/model!).
func (s *Session) cmdModelAnyway(_ context.Context, t *task, arg string) (string, error) {
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

func (s *Session) cmdPermissions(_ context.Context, t *task, arg string) (string, error) {
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

// cmdStatus is /status: the provider and settings, the last turn's
// tokens, then each conversation's metrics.
func (s *Session) cmdStatus(_ context.Context, t *task, arg string) (string, error) {
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
	fmt.Fprintf(&b, "\nmode: %s, permissions: %s\ncontext: %d of %d tokens", st.Mode, st.Preset, st.ContextTokens, s.ContextWindow())
	b.WriteString("\n" + TurnLine(st.Turn) + "\n")
	s.writeConversationStats(&b, t)
	return b.String(), nil
}

// TurnLine says a turn's token accounting in one line: tokens in and out,
// the share of the prompt served from the cache, the reported cost.
func TurnLine(u *event.TurnUsage) string {
	if u == nil || u.Calls == 0 {
		return "last turn: no model call yet"
	}
	if u.In == 0 && u.Out == 0 {
		return fmt.Sprintf("last turn: %d model calls; the endpoint reported no usage", u.Calls)
	}
	line := fmt.Sprintf("last turn: %d model calls, %d tokens in (%.0f%% cached), %d out", u.Calls, u.In, 100*u.CacheShare(), u.Out)
	if u.Cost > 0 {
		line += fmt.Sprintf(", cost $%.4f", u.Cost)
	}
	return line
}

func (s *Session) cmdTools(_ context.Context, t *task, _ string) (string, error) {
	s.mu.Lock()
	offered := s.offeredToolsLocked(t.conv)
	mode := s.mode
	s.mu.Unlock()
	var b strings.Builder
	fmt.Fprintf(&b, "Tools in %s mode:\n", mode)
	for _, t := range offered {
		spec := t.Spec().Function
		// Wide enough for the longest name (conv_history), so rows align.
		fmt.Fprintf(&b, "  %-13s %-8s %s\n", spec.Name, t.Kind(), firstLine(spec.Description))
	}
	b.WriteString(s.mcpReport(t.conv, mode))
	return b.String(), nil
}

func (s *Session) cmdTodos(_ context.Context, _ *task, _ string) (string, error) {
	return formatTodos(s.Todos()), nil
}

func (s *Session) cmdNew(_ context.Context, t *task, _ string) (string, error) {
	old := s.ID()
	s.reset(uuid.NewString())
	s.recordOrigin(s.ID())
	s.setLock(nil) // the old session is free; the new one locks at its first save
	s.mu.Lock()
	t.conv = s.rootConv
	st := s.statusLocked()
	s.mu.Unlock()
	t.emit(event.Event{Kind: event.StatusChanged, Status: &st})
	return fmt.Sprintf("new session %s (previous: %s, resume it with /resume %s)", s.ID(), old, old), nil
}

func (s *Session) cmdResume(_ context.Context, t *task, arg string) (string, error) {
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
			fmt.Fprintf(&b, "  %s  %s  %s  (%d messages)\n", sum.ID, sum.UpdatedAt.Local().Format(time.DateTime), truncate(firstLine(sum.FirstPrompt), 60), sum.Messages)
		}
		return b.String(), nil
	}
	if err := s.load(arg); err != nil {
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
	return fmt.Sprintf("resumed session %s (%d messages)%s", arg, n, note), nil
}

// OtherSessions lists the saved sessions /resume offers, newest first: not
// this one, and not runs that never got an answer (a failed first request).
func (s *Session) OtherSessions() ([]store.Summary, error) {
	list, err := store.List(store.Dir(s.root))
	if err != nil {
		return nil, err
	}
	id := s.ID()
	out := list[:0]
	for _, sum := range list {
		if sum.ID != id && sum.Answered {
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
	text := formatShellResult(res)
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

// formatShellResult is the fixed structure of a `!command` result.
func formatShellResult(r tools.ShellResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "command: %s\nexit code: %d\n", r.Command, r.ExitCode)
	if r.TimedOut {
		b.WriteString("note: timed out and was killed\n")
	}
	if r.Canceled {
		b.WriteString("note: interrupted by the user\n")
	}
	fmt.Fprintf(&b, "stdout:\n%s\nstderr:\n%s", strings.TrimRight(r.Stdout, "\n"), strings.TrimRight(r.Stderr, "\n"))
	return b.String()
}

// closest returns the names within edit distance 2 of name, or starting
// with it.
// nearestModels are the n listed models nearest to name: those holding
// it ("claude-sonnet-4" in "anthropic/claude-sonnet-4") first, then by
// edit distance, ignoring case.
func nearestModels(name string, models []string, n int) []string {
	key := strings.ToLower(name)
	type scored struct {
		m string
		d int
	}
	out := make([]scored, 0, len(models))
	for _, m := range models {
		lm := strings.ToLower(m)
		d := distance(key, lm)
		if key != "" && (strings.Contains(lm, key) || strings.Contains(key, lm)) {
			d = -1
		}
		out = append(out, scored{m, d})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].d < out[j].d })
	var names []string
	for i := 0; i < len(out) && i < n; i++ {
		names = append(names, out[i].m)
	}
	return names
}

func closest(name string, names []string) []string {
	type scored struct {
		n string
		d int
	}
	var out []scored
	for _, n := range names {
		d := distance(name, n)
		if strings.HasPrefix(n, name) && name != "" {
			d = 0
		}
		if d <= 2 {
			out = append(out, scored{n, d})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].d < out[j].d })
	var names2 []string
	for _, o := range out {
		names2 = append(names2, o.n)
	}
	return names2
}

// distance is the Levenshtein distance.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur := make([]int, len(rb)+1)
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(rb)]
}
