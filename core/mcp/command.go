package mcp

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/coder-nvim/coder-nvim/core/hostpath"
)

// WorkspaceVar in a server's args, env or cwd is the workspace path.
const WorkspaceVar = "${workspace}"

// command is the process of a stdio server: the command found on the
// cleaned PATH, in the server's cwd, or without one in the neutral
// directory (the workspace for a trusted project file's server), with
// ${workspace} expanded and a "." argument, which meant the workspace
// when every server started there, made the workspace's path.
func (p *Pool) command(c ServerConfig) *exec.Cmd {
	expand := func(s string) string { return strings.ReplaceAll(s, WorkspaceVar, p.opts.Root) }
	args := make([]string, len(c.Args))
	for i, a := range c.Args {
		args[i] = expand(a)
		if a == "." && c.Cwd == "" && !c.FromProject {
			args[i] = p.opts.Root
		}
	}
	cmd := p.opts.Programs.Command(expand(c.Command), args...)
	cmd.Dir = neutralDir(p.opts.Root, p.opts.Dir, os.TempDir(), string(filepath.Separator))
	if c.FromProject {
		cmd.Dir = p.opts.Root
	}
	if c.Cwd != "" {
		// The user's own config (or a project file the user trusted)
		// chose it.
		cmd.Dir = expand(c.Cwd)
		if !filepath.IsAbs(cmd.Dir) {
			cmd.Dir = filepath.Join(p.opts.Root, cmd.Dir)
		}
	}
	env := p.opts.Programs.Env(os.Environ())
	for i, kv := range env {
		// Module paths the user's environment gives that lead into the
		// workspace go as PATH's do: node and python would load the
		// repository's code from them.
		if k, v, _ := strings.Cut(kv, "="); k == "NODE_PATH" || k == "PYTHONPATH" {
			clean, _ := hostpath.Clean(v, p.opts.Root)
			env[i] = k + "=" + clean
		}
	}
	for _, k := range sortedNames(c.Env) {
		env = append(env, k+"="+expand(c.Env[k]))
	}
	cmd.Env = env
	return cmd
}

// neutralDir is the first of dirs that is a directory outside root.
func neutralDir(root string, dirs ...string) string {
	for _, d := range dirs {
		if d == "" || !filepath.IsAbs(d) {
			continue
		}
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			continue
		}
		if clean, _ := hostpath.Clean(d, root); clean == "" {
			continue // d is root or lies in it
		}
		return d
	}
	return string(filepath.Separator)
}
