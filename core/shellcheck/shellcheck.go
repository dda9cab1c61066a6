// Package shellcheck classifies shell commands as read-only, unknown or
// dangerous by walking their bash syntax tree (mvdan.cc/sh/v3).
//
// The analysis is static and conservative: anything it cannot prove
// read-only is at least unknown, and a compound command takes the class of
// its most dangerous part. It looks through command lists, pipelines,
// subshells, command and process substitutions, the strings given to eval
// and sh/bash -c (recursively, bounded), and wrappers such as sudo, env,
// xargs, timeout, nice, command, nohup and time.
package shellcheck

import (
	"fmt"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Class is the risk class of a command. Classes are ordered so that the
// class of a compound command is the max of its parts.
type Class int

const (
	ReadOnly Class = iota
	Unknown
	Dangerous
)

func (c Class) String() string {
	switch c {
	case ReadOnly:
		return "read-only"
	case Unknown:
		return "unknown"
	case Dangerous:
		return "dangerous"
	}
	return fmt.Sprintf("Class(%d)", int(c))
}

// Command is one simple command of an analysed command line.
type Command struct {
	// Args are the words after looking through wrappers (sudo, env, ...).
	// Literal words are unquoted; non-literal words keep their source text.
	Args []string
	// Context lists what the command runs under that an approval of Args
	// alone must not cover: privilege wrappers (sudo, doas) and settings
	// of variables that change what runs (PATH=..., LD_PRELOAD=...).
	Context []string
	Class   Class
	Reason  string // why the command is not read-only; empty when it is
	// Outside lists what a read-only command reads outside the workspace
	// (path operands, input redirections, paths it cannot resolve), so
	// the policy can ask as the file tools refuse; see reads.go.
	Outside []string
}

// Analysis is the result of Analyze.
type Analysis struct {
	Class      Class
	Reasons    []string  // one line per non-read-only part
	Commands   []Command // every simple command, in source order
	ParseError string    // set when the input is not valid bash
}

// homeDir is the walker's cwd after cd ~: outside the workspace.
const homeDir = "~"

// maxDepth bounds the recursion into eval / sh -c strings.
const maxDepth = 4

// Analyze classifies command, a bash command line that would run with
// workspaceRoot as its working directory. workspaceRoot may be empty, in
// which case relative paths count as inside the workspace and absolute
// paths as outside.
func Analyze(command, workspaceRoot string) Analysis {
	return AnalyzeProtected(command, workspaceRoot, nil)
}

// AnalyzeProtected is Analyze with the user's own directories (their
// config, the host's state, Copilot's tokens): a command that may write
// into one, by name or by the file a name resolves to, is dangerous
// wherever the workspace is.
func AnalyzeProtected(command, workspaceRoot string, protected []string) Analysis {
	root := ""
	if workspaceRoot != "" {
		if abs, err := filepath.Abs(workspaceRoot); err == nil {
			root = abs
		} else {
			root = filepath.Clean(workspaceRoot)
		}
	}
	var a Analysis
	w := &walker{out: &a, root: root, cwd: root, funcs: map[string]bool{}, protected: realPaths(protected),
		dotglob: strings.Contains(command, "dotglob") || strings.Contains(command, "GLOBIGNORE")}
	w.parse(command, 0)
	if a.ParseError != "" {
		a.Class = max(a.Class, Unknown)
		a.Reasons = append([]string{"cannot parse command: " + a.ParseError}, a.Reasons...)
	}
	return a
}

// effect is a class with its reason, used for redirections and floors.
type effect struct {
	class  Class
	reason string
}

func (e effect) max(o effect) effect {
	if o.class > e.class {
		return o
	}
	return e
}

var readOnly = effect{}

// arg is one word of a simple command.
type arg struct {
	s    string // unquoted literal, or source text when !lit
	lit  bool
	dl   bool // contains a substitution that downloads (curl, wget)
	proc bool // a process substitution <(...): a pipe, not a file
}

type walker struct {
	out   *Analysis
	root  string
	cwd   string // "" when unknown (after an unresolvable cd)
	depth int
	src   string
	funcs map[string]bool
	// inFunc names the functions whose bodies are being walked, to spot
	// self-recursion (fork bombs).
	inFunc []string
	// forced marks calls whose class is decided by their context, such as
	// a shell reading a downloaded script from a pipe.
	forced map[*syntax.CallExpr]effect
	// moved is set once a cd may have left the starting directory (needed
	// when root is empty and cwd cannot tell).
	moved bool
	// stdinReads are the input redirections from outside the workspace of
	// the statements being walked.
	stdinReads []string
	// realRoot caches the workspace root with symlinks resolved.
	realRoot string
	// dotglob is set when the command may make globs match leading dots
	// (shopt -s dotglob, GLOBIGNORE).
	dotglob bool
	// protected are the user's own directories, by real path.
	protected []string
}

func (w *walker) parse(src string, depth int) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		if w.out.ParseError == "" {
			w.out.ParseError = err.Error()
		}
		w.out.Class = max(w.out.Class, Unknown)
		return
	}
	saved := w.src
	savedDepth := w.depth
	w.src, w.depth = src, depth
	w.stmts(f.Stmts, readOnly)
	w.src, w.depth = saved, savedDepth
}

func (w *walker) record(c Command) {
	if c.Class == Unknown && w.touchesAgentDir(c) {
		c.Class, c.Reason = Dangerous, "may change .coder/, the agent's own configuration: "+c.Reason
	}
	w.out.Commands = append(w.out.Commands, c)
	w.out.Class = max(w.out.Class, c.Class)
	if c.Class > ReadOnly {
		w.out.Reasons = append(w.out.Reasons, fmt.Sprintf("%s `%s`: %s", c.Class, strings.Join(c.Args, " "), c.Reason))
	}
}

func (w *walker) source(n syntax.Node) string {
	s, e := n.Pos().Offset(), n.End().Offset()
	if s <= e && e <= uint(len(w.src)) {
		return w.src[s:e]
	}
	return "?"
}

func (w *walker) stmts(list []*syntax.Stmt, inh effect) {
	for _, s := range list {
		w.stmt(s, inh)
	}
}

// scoped runs fn with the current directory restored afterwards, for
// constructs that run in a subshell.
func (w *walker) scoped(fn func()) {
	cwd, moved := w.cwd, w.moved
	fn()
	w.cwd, w.moved = cwd, moved
}

func (w *walker) stmt(s *syntax.Stmt, inh effect) {
	dlIn := false
	var stdinScript *arg // here-document or here-string text
	if len(s.Redirs) > 0 {
		saved := w.stdinReads
		w.stdinReads = append(w.stdinReads[:len(w.stdinReads):len(w.stdinReads)], w.redirectReads(s.Redirs)...)
		defer func() { w.stdinReads = saved }()
	}
	for _, r := range s.Redirs {
		e, dl := w.redirect(r)
		inh = inh.max(e)
		dlIn = dlIn || dl
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			if r.Hdoc != nil {
				stdinScript = &arg{s: w.hdocText(r), lit: true}
			}
		case syntax.WordHdoc:
			text, ok := wordLit(r.Word)
			if !ok {
				text = w.source(r.Word)
			}
			stdinScript = &arg{s: text, lit: true}
		case syntax.RdrIn:
			stdinScript = nil
		}
	}
	if dlIn {
		w.forceStdinScripts(s, effect{Dangerous, "runs a downloaded script (download redirected into a shell)"})
	} else if stdinScript != nil {
		// bash <<'EOF' ... EOF runs the here-document: analyse it.
		if call, ok := s.Cmd.(*syntax.CallExpr); ok {
			args := w.unwrapped(call)
			if len(args) > 0 && args[0].lit && shells[filepath.Base(args[0].s)] && readsScriptFromStdin(filepath.Base(args[0].s), args) {
				if e := w.nested(filepath.Base(args[0].s)+" <<", *stdinScript); e.class > ReadOnly {
					w.force(call, e)
				}
			}
		}
	}
	switch c := s.Cmd.(type) {
	case nil:
		if inh.class > ReadOnly {
			w.record(Command{Class: inh.class, Reason: inh.reason})
		} else if len(w.stdinReads) > 0 {
			// $(< FILE) reads FILE without a command.
			w.record(Command{Args: []string{w.source(s)}, Outside: w.stdinReads})
		}
	case *syntax.CallExpr:
		w.call(c, inh)
	case *syntax.BinaryCmd:
		if c.Op == syntax.Pipe || c.Op == syntax.PipeAll {
			w.pipeline(c, inh)
			return
		}
		w.stmt(c.X, inh)
		w.stmt(c.Y, inh)
	case *syntax.Subshell:
		w.scoped(func() { w.stmts(c.Stmts, inh) })
	case *syntax.Block:
		w.stmts(c.Stmts, inh)
	case *syntax.IfClause:
		for ic := c; ic != nil; ic = ic.Else {
			w.stmts(ic.Cond, inh)
			w.stmts(ic.Then, inh)
		}
	case *syntax.WhileClause:
		w.stmts(c.Cond, inh)
		w.stmts(c.Do, inh)
	case *syntax.ForClause:
		w.substs(c.Loop)
		w.stmts(c.Do, inh)
	case *syntax.CaseClause:
		w.substs(c.Word)
		for _, item := range c.Items {
			for _, p := range item.Patterns {
				w.substs(p)
			}
			w.stmts(item.Stmts, inh)
		}
	case *syntax.FuncDecl:
		name := ""
		if c.Name != nil {
			name = c.Name.Value
			w.funcs[name] = true
		}
		w.inFunc = append(w.inFunc, name)
		w.scoped(func() { w.stmt(c.Body, inh) })
		w.inFunc = w.inFunc[:len(w.inFunc)-1]
	case *syntax.ArithmCmd, *syntax.TestClause, *syntax.LetClause:
		w.substs(c)
		if inh.class > ReadOnly {
			w.record(Command{Args: []string{w.source(c)}, Class: inh.class, Reason: inh.reason})
		}
	case *syntax.DeclClause:
		w.decl(c, inh)
	case *syntax.TimeClause:
		if c.Stmt != nil {
			w.stmt(c.Stmt, inh)
		}
	case *syntax.CoprocClause:
		w.scoped(func() { w.stmt(c.Stmt, inh) })
	default:
		w.substs(c)
		w.record(Command{Args: []string{w.source(c)}, Class: max(Unknown, inh.class), Reason: "unsupported shell construct"})
	}
}
