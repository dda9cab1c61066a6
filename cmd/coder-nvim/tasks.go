package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/coder-nvim/coder-nvim/core/agent"
	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/worktree"
	"github.com/coder-nvim/coder-nvim/rpc/cli"
)

// execWorktree runs exec's turn as a task: a new worktree and branch, the
// turn in a Session there, everything it left committed to the branch,
// then the worktree's path and branch printed last on stdout, so that
// scripts can run several at once and merge later.
func execWorktree(base agent.Options, printer *cli.Printer, a worktree.StartArgs) int {
	ctx, stop := stopSignals()
	defer stop()
	changed := make(chan struct{}, 1)
	m, err := worktree.New(ctx, worktree.Options{
		Root: base.Root, StateDir: base.Config.StateDir, Copy: base.Config.Tasks.Copy,
		Open: func(_ context.Context, o worktree.OpenArgs) (*agent.Session, error) {
			opts := base
			opts.Root, opts.OnEvent = o.Root, o.OnEvent
			opts.Config.Mode = o.Mode
			if o.Resume != "" {
				return agent.Resume(opts, agent.SessionID(o.Resume))
			}
			return agent.Open(opts)
		},
		OnEvent: func(_ int, ev event.Event) { printer.Handle(ev) },
		OnChange: func(worktree.Record) {
			select {
			case changed <- struct{}{}:
			default:
			}
		},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "coder-nvim:", err)
		return 1
	}
	defer m.Close()
	rec, err := m.Start(ctx, a)
	if err != nil {
		fmt.Fprintln(os.Stderr, "coder-nvim:", err)
		return 1
	}
	fmt.Fprintf(os.Stderr, "task %d: worktree %s, branch %s\n", rec.N, rec.Path, rec.Branch)
	for rec.State.Active() {
		select {
		case <-changed:
		case <-ctx.Done():
			m.Stop(rec.N) //nolint:errcheck // this process holds it
			ctx = context.Background()
		}
		rec, _ = m.Get(rec.N)
	}
	code := 0
	if rec.State != worktree.Done {
		fmt.Fprintf(os.Stderr, "coder-nvim: task %d %s %s\n", rec.N, rec.State, rec.Error)
		code = 1
	}
	if err := m.Commit(context.Background(), rec.N); err != nil {
		fmt.Fprintln(os.Stderr, "coder-nvim:", err)
		code = 1
	}
	if rec.Session != "" {
		fmt.Fprintln(os.Stderr, "session:", rec.Session)
	}
	fmt.Fprintf(os.Stdout, "worktree: %s\nbranch: %s\n", rec.Path, rec.Branch)
	return code
}

// runTasks lists the workspace's tasks: `coder-nvim tasks [--cwd DIR]`.
func runTasks(args []string) int {
	fs := flag.NewFlagSet("tasks", flag.ContinueOnError)
	cwd := fs.String("cwd", ".", "workspace directory")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	root, err := filepath.Abs(*cwd)
	if err != nil {
		fmt.Fprintln(os.Stderr, "coder-nvim:", err)
		return 1
	}
	ctx, stop := stopSignals()
	defer stop()
	m, err := worktree.New(ctx, worktree.Options{Root: root, StateDir: config.StateDir(os.Getenv),
		Open: func(context.Context, worktree.OpenArgs) (*agent.Session, error) {
			return nil, fmt.Errorf("tasks only lists")
		}})
	if err != nil {
		fmt.Fprintln(os.Stderr, "coder-nvim:", err)
		return 1
	}
	defer m.Close()
	list := m.List()
	if len(list) == 0 {
		fmt.Println("no tasks in", m.Repository())
		return 0
	}
	fmt.Println(worktree.Header())
	for _, r := range list {
		fmt.Println(worktree.Line(r, time.Now()))
	}
	fmt.Println(worktree.Total(list))
	return 0
}
