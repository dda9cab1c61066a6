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

// redirect classifies a redirection; dl reports an input redirection
// whose content is downloaded (< <(curl ...), <<< "$(curl ...)").
func (w *walker) redirect(r *syntax.Redirect) (e effect, dl bool) {
	if r.Word != nil {
		dl = w.substs(r.Word)
	}
	if r.Hdoc != nil {
		dl = w.substs(r.Hdoc) || dl
	}
	switch r.Op {
	case syntax.RdrIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
		return readOnly, dl
	case syntax.DplIn:
		return readOnly, false
	case syntax.DplOut:
		if lit, ok := wordLit(r.Word); ok && (lit == "-" || isDigits(lit)) {
			return readOnly, false
		}
	}
	if r.Word == nil {
		return effect{Unknown, "redirection without a target"}, false
	}
	target, ok := wordLit(r.Word)
	if !ok {
		return effect{Unknown, "redirects output to `" + w.source(r.Word) + "`, which cannot be resolved statically"}, false
	}
	return w.writeTarget(target), false
}

// hdocText returns the body of a here-document without its closing
// delimiter line.
func (w *walker) hdocText(r *syntax.Redirect) string {
	text := w.source(r.Hdoc)
	delim, _ := wordLit(r.Word)
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	if n := len(lines); n > 0 && delim != "" && strings.TrimLeft(lines[n-1], "\t") == delim {
		lines = lines[:n-1]
	}
	return strings.Join(lines, "\n")
}

func (w *walker) force(call *syntax.CallExpr, e effect) {
	if w.forced == nil {
		w.forced = map[*syntax.CallExpr]effect{}
	}
	w.forced[call] = w.forced[call].max(e)
}

// forceStdinScripts marks the commands of s that run a script read from
// standard input (sh, { sh; }, (cd x && bash)) with e.
func (w *walker) forceStdinScripts(s *syntax.Stmt, e effect) {
	switch c := s.Cmd.(type) {
	case *syntax.CallExpr:
		args := w.unwrapped(c)
		if len(args) > 0 && args[0].lit && readsScriptFromStdin(filepath.Base(args[0].s), args) {
			w.force(c, e)
		}
	case *syntax.Block:
		for _, st := range c.Stmts {
			w.forceStdinScripts(st, e)
		}
	case *syntax.Subshell:
		for _, st := range c.Stmts {
			w.forceStdinScripts(st, e)
		}
	case *syntax.BinaryCmd:
		w.forceStdinScripts(c.X, e)
		if c.Op != syntax.Pipe && c.Op != syntax.PipeAll {
			w.forceStdinScripts(c.Y, e)
		}
	}
}

// writeTarget classifies writing to the file p.
func (w *walker) writeTarget(p string) effect {
	switch {
	case p == "/dev/null" || p == "/dev/stdout" || p == "/dev/stderr" || p == "/dev/tty" || strings.HasPrefix(p, "/dev/fd/"):
		return readOnly
	case p == "":
		return effect{Unknown, "writes to an empty path"}
	case strings.HasPrefix(p, "~") || (w.cwd == homeDir && !filepath.IsAbs(p)):
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
		if strings.EqualFold(part, ".git") { // case-insensitive file systems
			return effect{Dangerous, "writes into .git/: " + p}
		}
		if namesAgentDir(part) {
			return effect{Dangerous, "writes into .coder/, the agent's own configuration: " + p}
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
