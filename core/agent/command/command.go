// Package command is the user's command line (seed 001 §3, §4): the
// built-in `/` commands — names, arguments, help, "did you mean" — and
// their dispatch to a Runner, the engine that carries them out; the
// fixed form of a `!command`'s result; and the KEY=VALUE grammar of
// `/conversation`. Running a command is the Runner's: this package holds
// no session state and may not import core/agent.
package command

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/policy"
	"github.com/coder-nvim/coder-nvim/core/text"
	"github.com/coder-nvim/coder-nvim/core/tools"
)

// Runner carries out the commands; each method gets the command's
// argument, trimmed.
type Runner interface {
	Model(ctx context.Context, name string) (string, error)
	ModelAnyway(ctx context.Context, name string) (string, error)
	Permissions(ctx context.Context, preset string) (string, error)
	Mode(ctx context.Context, name string) (string, error)
	Conversation(ctx context.Context, arg string) (string, error)
	Status(ctx context.Context, arg string) (string, error)
	Tools(ctx context.Context, arg string) (string, error)
	Todos(ctx context.Context, arg string) (string, error)
	New(ctx context.Context, arg string) (string, error)
	Resume(ctx context.Context, id string) (string, error)
	Compact(ctx context.Context, arg string) (string, error)
	Skills(ctx context.Context, arg string) (string, error)
	Diff(ctx context.Context, arg string) (string, error)
	Undo(ctx context.Context, arg string) (string, error)
	Rewind(ctx context.Context, arg string) (string, error)
	Export(ctx context.Context, arg string) (string, error)
	Context(ctx context.Context, arg string) (string, error)
	MCP(ctx context.Context, arg string) (string, error)
}

// command is one built-in `/` command.
type command struct {
	name  string
	args  string
	help  string
	run   func(r Runner, ctx context.Context, arg string) (string, error)
	alias bool // listed under its target in /help
	// prompt, when set, makes the command a model turn on this built-in
	// prompt (Prompt) instead of a call to the Runner.
	prompt string
}

// commands is the built-in set (seed 001 §4), in /help order.
func commands() []command {
	modeCmd := func(m policy.Mode) func(Runner, context.Context, string) (string, error) {
		return func(r Runner, ctx context.Context, arg string) (string, error) {
			if arg != "" {
				return "", fmt.Errorf("/%s takes no argument", m)
			}
			return r.Mode(ctx, string(m))
		}
	}
	return []command{
		{name: "help", help: "show commands and input rules", run: func(Runner, context.Context, string) (string, error) { return helpText(), nil }},
		{name: "model", args: "[NAME]", help: "switch the model now and save it to .coder/config.json; without NAME, list the endpoint's models", run: Runner.Model},
		{name: "model!", args: "NAME", help: "same as /model NAME, also when the endpoint does not list NAME", run: Runner.ModelAnyway, alias: true},
		{name: "permissions", args: "[PRESET]", help: "show the permission matrix, or switch preset (strict, balanced, auto-edit, yolo)", run: Runner.Permissions},
		{name: "mode", args: "NAME", help: "switch mode: plan, default, auto-edit, yolo", run: Runner.Mode},
		{name: "plan", help: "same as /mode plan", run: modeCmd(policy.ModePlan), alias: true},
		{name: "default", help: "same as /mode default", run: modeCmd(policy.ModeDefault), alias: true},
		{name: "auto-edit", help: "same as /mode auto-edit", run: modeCmd(policy.ModeAutoEdit), alias: true},
		{name: "yolo", help: "same as /mode yolo", run: modeCmd(policy.ModeYolo), alias: true},
		{name: "conversation", args: "new|set ...", help: "open a conversation with its own instructions, model, MCP tools, storage and narrower permissions, or change one's context for later turns (/conversation help)", run: Runner.Conversation},
		{name: "status", help: "show the provider (and why), the model, the context, the last turn's tokens and each conversation's metrics", run: Runner.Status},
		{name: "context", help: "where the context window's tokens go: instructions, AGENTS.md, tool schemas, history by role, attachments, the biggest items, and what /compact would save", run: Runner.Context},
		{name: "tools", help: "list the tools the model can use now", run: Runner.Tools},
		{name: "mcp", args: "[login NAME|logout NAME]", help: "list the MCP servers with their state and authorization; sign in to a remote one (OAuth) or forget its token", run: Runner.MCP},
		{name: "todos", help: "show the todo list (read-only)", run: Runner.Todos},
		{name: "new", help: "start a new session with an empty context", run: Runner.New},
		{name: "resume", args: "[ID]", help: "continue a saved session; without ID, list the others", run: Runner.Resume},
		{name: "compact", help: "summarise the conversation now to free context", run: Runner.Compact},
		{name: "skills", help: "list the skills the model can load", run: Runner.Skills},
		{name: "diff", help: "summarise the workspace's changes (the full diff expands below)", run: Runner.Diff},
		{name: "undo", help: "take back every file change of the last turn (again: the turn before; /undo others: also the files it left alone)", run: Runner.Undo},
		{name: "rewind", args: "[N]", help: "list the session's turns; /rewind N takes the files and the conversation back to just before turn N (later turns kept as an abandoned branch)", run: Runner.Rewind},
		{name: "export", args: "[PATH|json]", help: "write the conversation as Markdown (default .coder/exports/SESSION-DATE.md); /export json: the replayable session file as it is", run: Runner.Export},
		{name: "init", args: "[NOTES]", help: "ask the model to study the repository and write or improve AGENTS.md (commands, layout, conventions)", prompt: initPrompt},
	}
}

// Prompt is the model prompt of a command that starts a turn (/init),
// with the user's notes after it; ok is false for any other line.
func Prompt(line string) (prompt string, ok bool) {
	line = strings.TrimSpace(line)
	if !strings.HasPrefix(line, "/") {
		return "", false
	}
	name, arg, _ := strings.Cut(line[1:], " ")
	for _, c := range commands() {
		if c.name == name && c.prompt != "" {
			if arg = strings.TrimSpace(arg); arg != "" {
				return c.prompt + "\n\nThe user adds: " + arg, true
			}
			return c.prompt, true
		}
	}
	return "", false
}

// Names lists the built-in commands (for completion and ACP's available
// commands).
func Names() []string {
	var names []string
	for _, c := range commands() {
		names = append(names, c.name)
	}
	return names
}

// Help returns the one-line help of each command, by name.
func Help() map[string]string {
	out := map[string]string{}
	for _, c := range commands() {
		out[c.name] = c.help
	}
	return out
}

// Run carries out a `/` command line through r.
func Run(ctx context.Context, r Runner, line string) (string, error) {
	name, arg, _ := strings.Cut(strings.TrimPrefix(line, "/"), " ")
	arg = strings.TrimSpace(arg)
	for _, c := range commands() {
		if c.name == name && c.run != nil {
			return c.run(r, ctx, arg)
		}
		if c.name == name {
			return "", fmt.Errorf("/%s starts a model turn: submit it as input", name)
		}
	}
	msg := fmt.Sprintf("unknown command /%s", name)
	if close := closest(name, Names()); len(close) > 0 {
		msg += "; did you mean " + "/" + strings.Join(close, ", /") + "?"
	}
	return "", fmt.Errorf("%s (/help lists the commands)", msg)
}

// helpText is /help. The descriptions start in one column; a usage too
// long for it has its description on the next line, in that column.
func helpText() string {
	var b strings.Builder
	b.WriteString("Commands:\n")
	var rows [][2]string
	for _, c := range commands() {
		if c.alias {
			continue
		}
		use := "/" + c.name
		if c.args != "" {
			use += " " + c.args
		}
		rows = append(rows, [2]string{use, c.help})
	}
	rows = append(rows, [2]string{"/plan /default /auto-edit /yolo", "shortcuts for /mode"})
	const widest = 32
	col := 0
	for _, r := range rows {
		if n := utf8.RuneCountInString(r[0]); n <= widest {
			col = max(col, n)
		}
	}
	for _, r := range rows {
		if utf8.RuneCountInString(r[0]) > col {
			fmt.Fprintf(&b, "  %s\n  %*s %s\n", r[0], col, "", r[1])
			continue
		}
		fmt.Fprintf(&b, "  %-*s %s\n", col, r[0], r[1])
	}
	b.WriteString("\n")
	b.WriteString("Input:\n")
	b.WriteString("  Neovim: Enter (Normal mode) or Ctrl+S (Insert mode) sends the input; Enter in Insert mode starts a new line.\n")
	b.WriteString("  exec: the prompt is the arguments, or stdin read to its end (Ctrl+D after the last line).\n")
	b.WriteString("  !COMMAND runs COMMAND in the workspace shell without approval; its output goes into the conversation.\n")
	b.WriteString("  Ctrl+C (Neovim: in the input or the transcript, or :Coder stop) interrupts streaming and the running turn.\n")
	return b.String()
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

// ShellResult is the fixed structure of a `!command` result.
func ShellResult(r tools.ShellResult) string {
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

// NearestModels are the n listed models nearest to name: those holding
// it ("claude-sonnet-4" in "anthropic/claude-sonnet-4") first, then by
// edit distance, ignoring case.
func NearestModels(name string, models []string, n int) []string {
	key := strings.ToLower(name)
	type scored struct {
		m string
		d int
	}
	out := make([]scored, 0, len(models))
	for _, m := range models {
		lm := strings.ToLower(m)
		d := text.EditDistance(key, lm)
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

// closest returns the names within edit distance 2 of name, or starting
// with it.
func closest(name string, names []string) []string {
	type scored struct {
		n string
		d int
	}
	var out []scored
	for _, n := range names {
		d := text.EditDistance(name, n)
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
