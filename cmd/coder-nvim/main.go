// Command coder-nvim is the coder-nvim host: with no arguments (or `nvim`)
// it serves the Neovim plugin over msgpack-RPC on stdio; `exec` runs one
// turn headless; `acp` speaks the Agent Client Protocol on stdio.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"os/user"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/coder-nvim/coder-nvim/core/agent"
	"github.com/coder-nvim/coder-nvim/core/backend"
	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/policy"
	"github.com/coder-nvim/coder-nvim/core/sandbox"
	"github.com/coder-nvim/coder-nvim/core/store"
	"github.com/coder-nvim/coder-nvim/core/worktree"
	"github.com/coder-nvim/coder-nvim/rpc/acp"
	"github.com/coder-nvim/coder-nvim/rpc/acp/termfollow"
	"github.com/coder-nvim/coder-nvim/rpc/cli"
	nvimhost "github.com/coder-nvim/coder-nvim/rpc/nvim"
)

// version is set by the Makefile from the VERSION file.
var version = "dev"

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	if len(args) > 0 && args[0] == sandbox.Subcommand {
		// The sandbox launcher: before anything else, it confines itself
		// and becomes the command.
		return sandbox.Main(args[1:])
	}
	if len(args) > 0 && args[0] == termfollow.Subcommand {
		// An ACP client's terminal mirroring a command's output: it only
		// prints the file it is given, so nothing else may run first.
		return termfollow.Main(args[1:], os.Stdout, os.Stderr)
	}
	if len(args) > 0 && (args[0] == "--version" || args[0] == "-version" || args[0] == "version") {
		fmt.Println("coder-nvim", version)
		return 0
	}
	if note := findHome(os.Getenv, os.Setenv, user.Current); note != "" {
		fmt.Fprintln(os.Stderr, "coder-nvim:", note)
	}
	sub := "nvim"
	if len(args) > 0 {
		sub, args = args[0], args[1:]
	}
	switch sub {
	case "exec":
		return runExec(args)
	case "trust":
		return runTrust(args)
	case "export":
		return runExport(args)
	case "tasks":
		return runTasks(args)
	case "nvim":
		return serve("nvim", nvimhost.Serve)
	case "acp":
		return serve("acp", acp.Serve)
	case "-h", "--help", "help":
		fmt.Fprint(os.Stderr, usage)
		return 0
	}
	fmt.Fprintf(os.Stderr, "coder-nvim: unknown command %q\n%s", sub, usage)
	return 2
}

// serve runs a stdio front end. Nothing but protocol messages may reach
// stdout, so logs go to stderr.
func serve(name string, f func(ctx context.Context, in io.Reader, out io.Writer, log io.Writer, version, launcher string) error) int {
	ctx, stop := stopSignals()
	defer stop()
	if err := f(ctx, os.Stdin, os.Stdout, os.Stderr, version, launcher()); err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintf(os.Stderr, "coder-nvim %s: %v\n", name, err)
		return 1
	}
	return 0
}

// stopSignals is a context ended by SIGINT, SIGTERM (how Neovim stops its
// jobs) or SIGHUP (the terminal went away): the running turn is cancelled,
// every tool call gets its result and the session is saved before exit. A
// second signal kills at once.
func stopSignals() (context.Context, context.CancelFunc) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	context.AfterFunc(ctx, stop)
	return ctx, stop
}

const usage = `usage:
  coder-nvim                 serve the Neovim plugin (msgpack-RPC on stdio)
  coder-nvim exec [--cwd DIR] [--mode MODE] [--model M] [--resume ID] [--yes] PROMPT
  coder-nvim exec --worktree [--from REF] [--cwd DIR] [--mode MODE] [--yes] PROMPT
                             run the turn as a task in a new git worktree; prints its path and branch last
  coder-nvim tasks [--cwd DIR]
                             list the workspace's tasks (parallel work in git worktrees)
  coder-nvim acp             Agent Client Protocol agent on stdio
  coder-nvim trust [--cwd DIR] [--revoke]
                             trust (or stop trusting) the workspace's .coder/config.json as it is now
  coder-nvim export [--cwd DIR] [--json] SESSION_ID
                             a saved session as Markdown (or its file as it is) on stdout
  coder-nvim --version
`

func runExec(args []string) int {
	fs := flag.NewFlagSet("exec", flag.ContinueOnError)
	cwd := fs.String("cwd", ".", "workspace directory")
	mode := fs.String("mode", "", "mode: plan, default, auto-edit, yolo")
	model := fs.String("model", "", "model name")
	resume := fs.String("resume", "", "continue the saved session with this id")
	yes := fs.Bool("yes", false, "allow every tool call that would ask for approval")
	inWorktree := fs.Bool("worktree", false, "run the turn as a task in a new git worktree on its own branch; its path and branch are printed last")
	from := fs.String("from", "", "with --worktree: the commit the task's branch starts from (default HEAD)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	prompt := strings.Join(fs.Args(), " ")
	if prompt == "" || prompt == "-" {
		data, err := io.ReadAll(os.Stdin)
		if err != nil {
			fmt.Fprintln(os.Stderr, "coder-nvim: read stdin:", err)
			return 1
		}
		prompt = string(data)
	}
	if strings.TrimSpace(prompt) == "" {
		fmt.Fprintln(os.Stderr, "coder-nvim: empty prompt")
		return 2
	}
	root, err := filepath.Abs(*cwd)
	if err != nil {
		fmt.Fprintln(os.Stderr, "coder-nvim:", err)
		return 1
	}
	cfg, err := config.Load(root, os.Getenv)
	if err != nil {
		fmt.Fprintln(os.Stderr, "coder-nvim:", err)
		return 1
	}
	// Restricted, exec goes on: it says what it ignored and how to trust.
	fmt.Fprint(os.Stderr, cfg.Workspace.Notice(root))
	if *mode != "" {
		if _, err := policy.ParseMode(*mode); err != nil {
			fmt.Fprintln(os.Stderr, "coder-nvim:", err)
			return 2
		}
		cfg.Mode = *mode
	}
	if *model != "" {
		cfg.SetModel(*model)
	}
	be, err := backend.New(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "coder-nvim:", err)
		return 1
	}
	defer be.Close()
	cfg = be.Config // after detection
	fmt.Fprintf(os.Stderr, "provider: %s, model %s (%s)\n", be.Name, cfg.Model, be.Reason)

	printer := &cli.Printer{Out: os.Stdout, Err: os.Stderr, Demo: be.Demo}
	opts := agent.Options{Config: cfg, Root: root, Provider: be.Provider, Demo: be.Demo, OnEvent: printer.Handle, AllowAsks: *yes, ModeFromFlag: *mode != "", Models: be.Models, Launcher: launcher()}
	if *inWorktree {
		return execWorktree(opts, printer, worktree.StartArgs{Prompt: prompt, Mode: cfg.Mode, ModeFromUser: *mode != "", From: *from})
	}
	var sess *agent.Session
	if *resume != "" {
		sess, err = agent.Resume(opts, agent.SessionID(*resume))
	} else {
		sess, err = agent.Open(opts)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "coder-nvim:", err)
		return 1
	}
	defer sess.Close() // the lock goes, the file stays
	ctx, stop := stopSignals()
	defer stop()
	// @path and #diff in the prompt are attached (:help coder-context);
	// the printer names each on stderr.
	_, err = sess.RunMentions(ctx, prompt)
	lateOllama(be)
	// A /command alone (exec "/diff") saves no session: name none.
	if store.Exists(store.Dir(root), string(sess.ID())) {
		fmt.Fprintln(os.Stderr, "session:", sess.ID())
	}
	switch {
	case errors.Is(err, agent.ErrBusy):
		fmt.Fprintln(os.Stderr, "coder-nvim:", err)
		return 1
	case printer.Failure() != "":
		// The reason was printed as it happened ("error: …"); only an
		// interrupt has not been said yet.
		if printer.Failure() == "interrupted" {
			fmt.Fprintln(os.Stderr, "coder-nvim: interrupted")
		}
		return 1
	}
	return 0
}

// lateOllama says on stderr that an Ollama answered the start-up probe
// only after the run had begun on the demo: exec runs one turn, so it is
// not switched to (a session in Neovim or ACP uses it from its next turn).
func lateOllama(be *backend.Backend) {
	select {
	case nb, ok := <-be.Later:
		if ok {
			fmt.Fprintf(os.Stderr, "note: Ollama at %s answered after start-up (later than %v), so this run used the demo; set \"provider\": \"ollama\" to always use it\n",
				strings.TrimSuffix(nb.Config.BaseURL, "/v1"), backend.OllamaProbeWait)
		}
	default:
	}
}

// launcher runs the sandbox (`sandbox-exec`): coder-nvim-sandbox beside
// this binary, else this binary; "" when it cannot be found, and commands
// then run unconfined.
func launcher() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	return sandbox.Launcher(exe)
}
