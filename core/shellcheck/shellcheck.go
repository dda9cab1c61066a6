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
	Args   []string
	Class  Class
	Reason string // why the command is not read-only; empty when it is
}

// Analysis is the result of Analyze.
type Analysis struct {
	Class      Class
	Reasons    []string  // one line per non-read-only part
	Commands   []Command // every simple command, in source order
	ParseError string    // set when the input is not valid bash
}

// maxDepth bounds the recursion into eval / sh -c strings.
const maxDepth = 4

// Analyze classifies command, a bash command line that would run with
// workspaceRoot as its working directory. workspaceRoot may be empty, in
// which case relative paths count as inside the workspace and absolute
// paths as outside.
func Analyze(command, workspaceRoot string) Analysis {
	root := ""
	if workspaceRoot != "" {
		if abs, err := filepath.Abs(workspaceRoot); err == nil {
			root = abs
		} else {
			root = filepath.Clean(workspaceRoot)
		}
	}
	var a Analysis
	w := &walker{out: &a, root: root, cwd: root, funcs: map[string]bool{}}
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
	s   string // unquoted literal, or source text when !lit
	lit bool
	dl  bool // contains a substitution that downloads (curl, wget)
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
	cwd := w.cwd
	fn()
	w.cwd = cwd
}

func (w *walker) stmt(s *syntax.Stmt, inh effect) {
	for _, r := range s.Redirs {
		inh = inh.max(w.redirect(r))
	}
	switch c := s.Cmd.(type) {
	case nil:
		if inh.class > ReadOnly {
			w.record(Command{Class: inh.class, Reason: inh.reason})
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

// substs analyses every command and process substitution inside n.
// It reports whether one of them downloads something.
func (w *walker) substs(n syntax.Node) bool {
	if n == nil {
		return false
	}
	dl := false
	syntax.Walk(n, func(node syntax.Node) bool {
		var list []*syntax.Stmt
		switch x := node.(type) {
		case *syntax.CmdSubst:
			list = x.Stmts
		case *syntax.ProcSubst:
			list = x.Stmts
		default:
			return true
		}
		start := len(w.out.Commands)
		w.scoped(func() { w.stmts(list, readOnly) })
		for _, c := range w.out.Commands[start:] {
			if len(c.Args) > 0 && isDownloader(c.Args[0]) {
				dl = true
			}
		}
		return false
	})
	return dl
}

func (w *walker) redirect(r *syntax.Redirect) effect {
	if r.Word != nil {
		w.substs(r.Word)
	}
	if r.Hdoc != nil {
		w.substs(r.Hdoc)
	}
	switch r.Op {
	case syntax.RdrIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc, syntax.DplIn:
		return readOnly
	case syntax.DplOut:
		if lit, ok := wordLit(r.Word); ok && (lit == "-" || isDigits(lit)) {
			return readOnly
		}
	}
	if r.Word == nil {
		return effect{Unknown, "redirection without a target"}
	}
	target, ok := wordLit(r.Word)
	if !ok {
		return effect{Unknown, "redirects output to `" + w.source(r.Word) + "`, which cannot be resolved statically"}
	}
	return w.writeTarget(target)
}

// writeTarget classifies writing to the file p.
func (w *walker) writeTarget(p string) effect {
	switch {
	case p == "/dev/null" || p == "/dev/stdout" || p == "/dev/stderr" || p == "/dev/tty" || strings.HasPrefix(p, "/dev/fd/"):
		return readOnly
	case p == "":
		return effect{Unknown, "writes to an empty path"}
	case strings.HasPrefix(p, "~"):
		return effect{Dangerous, "writes outside the workspace: " + p}
	case strings.ContainsAny(p, "$`"):
		return effect{Unknown, "writes to `" + p + "`, which cannot be resolved statically"}
	}
	var abs string
	switch {
	case filepath.IsAbs(p):
		abs = filepath.Clean(p)
	case w.root == "":
		abs = filepath.Join("/nonexistent-workspace", p)
	case w.cwd == "":
		return effect{Unknown, "writes to " + p + " after a cd that cannot be resolved statically"}
	default:
		abs = filepath.Join(w.cwd, p)
	}
	root := w.root
	if root == "" {
		root = "/nonexistent-workspace"
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return effect{Dangerous, "writes outside the workspace: " + p}
	}
	for _, part := range strings.Split(rel, "/") {
		if part == ".git" {
			return effect{Dangerous, "writes into .git/: " + p}
		}
	}
	return effect{Unknown, "writes " + p}
}

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
		call, ok := s.Cmd.(*syntax.CallExpr)
		if !ok {
			continue
		}
		args := w.unwrapped(call)
		if len(args) == 0 || !args[0].lit {
			continue
		}
		name := filepath.Base(args[0].s)
		if isDownloader(name) {
			downloaded = true
			continue
		}
		if downloaded && readsScriptFromStdin(name, args) {
			if w.forced == nil {
				w.forced = map[*syntax.CallExpr]effect{}
			}
			w.forced[call] = effect{Dangerous, "runs a downloaded script (download piped into " + name + ")"}
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
	inner, _ := unwrap(args)
	return inner
}

// sensitiveVars change which programs run or how the shell behaves.
var sensitiveVars = map[string]bool{
	"PATH": true, "LD_PRELOAD": true, "LD_LIBRARY_PATH": true, "BASH_ENV": true, "ENV": true,
	"IFS": true, "PROMPT_COMMAND": true, "SHELLOPTS": true, "BASHOPTS": true, "GIT_DIR": true,
	"GIT_WORK_TREE": true, "GIT_SSH_COMMAND": true, "GIT_EXTERNAL_DIFF": true, "PAGER": true,
	"GIT_PAGER": true, "EDITOR": true, "VISUAL": true, "DYLD_INSERT_LIBRARIES": true,
}

func (w *walker) assigns(list []*syntax.Assign) effect {
	e := readOnly
	for _, a := range list {
		w.substs(a)
		if a.Name != nil && sensitiveVars[a.Name.Value] {
			e = e.max(effect{Unknown, "sets " + a.Name.Value + ", which changes what runs"})
		}
	}
	return e
}

func (w *walker) decl(d *syntax.DeclClause, inh effect) {
	e := inh.max(w.assigns(d.Args))
	args := []string{d.Variant.Value}
	for _, a := range d.Args {
		args = append(args, w.source(a))
	}
	w.record(Command{Args: args, Class: e.class, Reason: e.reason})
}

func (w *walker) call(c *syntax.CallExpr, inh effect) {
	floor := inh.max(w.assigns(c.Assigns))
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
		args[i] = arg{s: s, lit: ok, dl: dl}
	}
	inner, wrap := unwrap(args)
	floor = floor.max(wrap)
	e := w.classify(inner)
	e = floor.max(e)
	out := make([]string, len(inner))
	for i, a := range inner {
		out[i] = a.s
	}
	if e.class == ReadOnly {
		e.reason = ""
	}
	w.record(Command{Args: out, Class: e.class, Reason: e.reason})
	if len(inner) > 0 {
		w.chdir(inner)
	}
}

// chdir tracks cd so that later relative redirections resolve correctly.
func (w *walker) chdir(args []arg) {
	switch args[0].s {
	case "cd", "pushd":
	case "popd":
		w.cwd = ""
		return
	default:
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
	case dir == nil || !dir.lit || dir.s == "-" || strings.HasPrefix(dir.s, "~"):
		w.cwd = ""
	case filepath.IsAbs(dir.s):
		w.cwd = filepath.Clean(dir.s)
	case w.cwd != "":
		w.cwd = filepath.Join(w.cwd, dir.s)
	}
}

// wordLit returns the unquoted value of a word made only of literal parts.
func wordLit(word *syntax.Word) (string, bool) {
	if word == nil {
		return "", false
	}
	var b strings.Builder
	for _, part := range word.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			b.WriteString(unescape(p.Value, false))
		case *syntax.SglQuoted:
			if p.Dollar {
				return "", false
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			if p.Dollar {
				return "", false
			}
			for _, dp := range p.Parts {
				lit, ok := dp.(*syntax.Lit)
				if !ok {
					return "", false
				}
				b.WriteString(unescape(lit.Value, true))
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// unescape removes shell backslash escapes from a literal. Inside double
// quotes only \$ \` \" \\ and \newline are escapes.
func unescape(s string, dquoted bool) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		next := s[i+1]
		if dquoted && !strings.ContainsRune("$`\"\\\n", rune(next)) {
			b.WriteByte('\\')
			continue
		}
		i++
		if next != '\n' {
			b.WriteByte(next)
		}
	}
	return b.String()
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
