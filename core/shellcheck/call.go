package shellcheck

import (
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

func (w *walker) pipeline(b *syntax.BinaryCmd, inh effect) {
	var stages []*syntax.Stmt
	var flatten func(s *syntax.Stmt)
	flatten = func(s *syntax.Stmt) {
		if bc, ok := s.Cmd.(*syntax.BinaryCmd); ok && len(s.Redirs) == 0 && (bc.Op == syntax.Pipe || bc.Op == syntax.PipeAll) {
			flatten(bc.X)
			flatten(bc.Y)
			return
		}
		stages = append(stages, s)
	}
	flatten(b.X)
	flatten(b.Y)

	downloaded := false
	for _, s := range stages {
		if call, ok := s.Cmd.(*syntax.CallExpr); ok {
			if args := w.unwrapped(call); len(args) > 0 && args[0].lit && isDownloader(filepath.Base(args[0].s)) {
				downloaded = true
				continue
			}
		}
		if downloaded {
			w.forceStdinScripts(s, effect{Dangerous, "runs a downloaded script (download piped into a shell)"})
		}
	}
	for _, s := range stages {
		w.scoped(func() { w.stmt(s, inh) })
	}
}

// unwrapped returns the literal view of call's arguments after wrappers,
// without recording anything (used to look ahead in pipelines).
func (w *walker) unwrapped(call *syntax.CallExpr) []arg {
	args := make([]arg, len(call.Args))
	for i, word := range call.Args {
		s, ok := wordLit(word)
		args[i] = arg{s: s, lit: ok}
	}
	inner, _, _ := unwrap(args)
	return inner
}

// sensitiveVars change which programs run or how the shell behaves.
var sensitiveVars = map[string]bool{
	"PATH": true, "BASH_ENV": true, "ENV": true, "IFS": true, "PROMPT_COMMAND": true,
	"SHELLOPTS": true, "BASHOPTS": true, "PAGER": true, "EDITOR": true, "VISUAL": true,
	"MANPAGER": true, "MANOPT": true, "BROWSER": true, "HOME": true, "XDG_CONFIG_HOME": true,
	"GOFLAGS": true, "GOTOOLCHAIN": true, "GOENV": true, "RIPGREP_CONFIG_PATH": true,
	"ACK_PAGER": true, "ACK_PAGER_COLOR": true, "ACKRC": true, "PERL5OPT": true, "PERL5LIB": true,
	"PYTHONSTARTUP": true, "PYTHONPATH": true, "NODE_OPTIONS": true, "RUBYOPT": true,
	"AWKPATH": true, "AWKLIBPATH": true, "CDPATH": true, "SHELL": true, "TAR_OPTIONS": true,
}

// sensitiveVarPrefixes cover families of such variables: git's (GIT_DIR,
// GIT_CONFIG_*, GIT_EXTERNAL_DIFF, GIT_PAGER, ...), the dynamic loader's,
// less's input preprocessor (LESSOPEN) and exported bash functions.
var sensitiveVarPrefixes = []string{"GIT_", "LD_", "DYLD_", "LESS", "BASH_FUNC_"}

func sensitiveVar(name string) bool {
	if sensitiveVars[name] {
		return true
	}
	for _, p := range sensitiveVarPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

func (w *walker) assigns(list []*syntax.Assign) (effect, []string) {
	e := readOnly
	var context []string
	for _, a := range list {
		w.substs(a)
		if a.Name != nil && sensitiveVar(a.Name.Value) {
			e = e.max(effect{Unknown, "sets " + a.Name.Value + ", which changes what runs"})
			context = append(context, w.source(a))
		}
	}
	return e, context
}

func (w *walker) decl(d *syntax.DeclClause, inh effect) {
	ae, _ := w.assigns(d.Args)
	e := inh.max(ae)
	args := []string{d.Variant.Value}
	for _, a := range d.Args {
		src := w.source(a)
		args = append(args, src)
		if strings.HasPrefix(src, "-") && strings.Contains(src, "n") {
			// declare -n r=PATH makes later r=... assignments set PATH.
			e = e.max(effect{Unknown, d.Variant.Value + " -n declares a name reference"})
		}
	}
	w.record(Command{Args: args, Class: e.class, Reason: e.reason})
}

func (w *walker) call(c *syntax.CallExpr, inh effect) {
	ae, context := w.assigns(c.Assigns)
	floor := inh.max(ae)
	if f, ok := w.forced[c]; ok {
		floor = floor.max(f)
	}
	if len(c.Args) == 0 {
		if floor.class > ReadOnly {
			w.record(Command{Class: floor.class, Reason: floor.reason})
		}
		return
	}
	args := make([]arg, len(c.Args))
	for i, word := range c.Args {
		dl := w.substs(word)
		s, ok := wordLit(word)
		if !ok {
			s = w.source(word)
		}
		args[i] = arg{s: s, lit: ok, dl: dl, proc: isProcSubst(word)}
	}
	inner, wrap, wctx := unwrap(args)
	context = append(context, wctx...)
	floor = floor.max(wrap)
	e := w.classify(inner)
	if viaXargs(args, inner) && len(inner) > 0 && filepath.Base(inner[0].s) == "git" {
		// xargs -I X git -C X ...: the directory comes from standard input.
		e = e.max(effect{Unknown, "xargs runs git with arguments from standard input"})
	}
	e = floor.max(e)
	out := make([]string, len(inner))
	for i, a := range inner {
		out[i] = a.s
	}
	cmd := Command{Args: out, Context: context, Class: e.class, Reason: e.reason}
	if e.class == ReadOnly {
		cmd.Reason = ""
		cmd.Outside = w.outsideReads(args, inner)
	}
	w.record(cmd)
	if len(inner) > 0 {
		w.chdir(inner)
	}
}

// chdir tracks cd so that later relative redirections resolve correctly.
func (w *walker) chdir(args []arg) {
	switch args[0].s {
	case "cd", "pushd":
		w.moved = true
	case "popd":
		w.cwd, w.moved = "", true
		return
	default:
		if w.funcs[args[0].s] {
			w.cwd, w.moved = "", true // the function may have changed directory
		}
		return
	}
	var dir *arg
	for i := 1; i < len(args); i++ {
		if args[i].lit && strings.HasPrefix(args[i].s, "-") && args[i].s != "-" {
			continue
		}
		dir = &args[i]
		break
	}
	switch {
	case (dir == nil && args[0].s == "cd") || (dir != nil && dir.lit && (dir.s == "~" || dir.s == "~/")):
		// The home directory itself: relative writes land outside the
		// workspace (writeTarget treats ~/x as outside as well).
		w.cwd = homeDir
	case dir == nil || !dir.lit || dir.s == "-" || strings.HasPrefix(dir.s, "~") ||
		(args[0].s == "pushd" && (strings.HasPrefix(dir.s, "+") || strings.HasPrefix(dir.s, "-"))):
		// pushd +N / -N rotates the directory stack.
		w.cwd = ""
	case filepath.IsAbs(dir.s):
		w.cwd = filepath.Clean(dir.s)
	case w.cwd == homeDir:
		w.cwd = "" // somewhere under ~, possibly the workspace
	case w.cwd != "":
		w.cwd = filepath.Join(w.cwd, dir.s)
	}
}
