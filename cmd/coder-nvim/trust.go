package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/coder-nvim/coder-nvim/core/config"
)

// runTrust records (or, with --revoke, forgets) the user's trust in the
// workspace's .coder/config.json as it is now: only then do its settings
// that start programs, route the API key or widen permissions apply.
func runTrust(args []string) int {
	fs := flag.NewFlagSet("trust", flag.ContinueOnError)
	cwd := fs.String("cwd", ".", "workspace directory")
	revoke := fs.Bool("revoke", false, "forget the trust instead")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	root, err := filepath.Abs(*cwd)
	if err != nil {
		fmt.Fprintln(os.Stderr, "coder-nvim:", err)
		return 1
	}
	file := config.WorkspaceFile(root)
	if *revoke {
		if err := config.RevokeTrust(root, os.Getenv); err != nil {
			fmt.Fprintln(os.Stderr, "coder-nvim:", err)
			return 1
		}
		fmt.Printf("%s: no longer trusted (only its narrowing settings apply)\n", file)
		return 0
	}
	// What the file asks for, as it stands untrusted: the user sees what
	// trusting it enables.
	cfg, err := config.Load(root, os.Getenv)
	if err != nil {
		fmt.Fprintln(os.Stderr, "coder-nvim:", err)
		return 1
	}
	if cfg.Workspace.File == "" {
		fmt.Fprintf(os.Stderr, "coder-nvim: %s does not exist: nothing to trust\n", file)
		return 1
	}
	if cfg.Workspace.Invalid != "" {
		fmt.Fprintln(os.Stderr, "coder-nvim:", cfg.Workspace.Invalid)
		return 1
	}
	// Trust binds to the content the list below was made from.
	if err := config.TrustShown(root, os.Getenv, cfg.Workspace.Hash); err != nil {
		fmt.Fprintln(os.Stderr, "coder-nvim:", err)
		return 1
	}
	fmt.Printf("%s: trusted as it is now (any change makes it untrusted again)\n", file)
	if !cfg.Workspace.Trusted {
		for _, k := range cfg.Workspace.Ignored {
			fmt.Printf("  now applies: %s\n", k)
		}
	}
	return 0
}
