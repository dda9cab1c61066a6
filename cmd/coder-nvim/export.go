package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/coder-nvim/coder-nvim/core/export"
	"github.com/coder-nvim/coder-nvim/core/store"
	"github.com/google/uuid"
)

// runExport is `coder-nvim export [--cwd DIR] [--json] SESSION_ID`: a
// saved session as Markdown (or its file as it is) on stdout.
func runExport(args []string) int {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	cwd := fs.String("cwd", ".", "workspace directory")
	asJSON := fs.Bool("json", false, "print the session file as it is (replayable) instead of Markdown")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: coder-nvim export [--cwd DIR] [--json] SESSION_ID")
		return 2
	}
	id := fs.Arg(0)
	if _, err := uuid.Parse(id); err != nil {
		fmt.Fprintf(os.Stderr, "coder-nvim export: %q is not a session id (a UUID; /resume lists them)\n", id)
		return 2
	}
	root, err := filepath.Abs(*cwd)
	if err != nil {
		fmt.Fprintln(os.Stderr, "coder-nvim export:", err)
		return 1
	}
	if *asJSON {
		data, err := os.ReadFile(filepath.Join(store.Dir(root), id+".json"))
		if err != nil {
			fmt.Fprintln(os.Stderr, "coder-nvim export:", err)
			return 1
		}
		os.Stdout.Write(data)
		return 0
	}
	snap, err := store.Load(store.Dir(root), id)
	if err != nil {
		fmt.Fprintln(os.Stderr, "coder-nvim export:", err)
		return 1
	}
	fmt.Print(export.Markdown(snap))
	return 0
}
