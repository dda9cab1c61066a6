package shellcheck

import (
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

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
		return unresolved(w.source(r.Word)), false
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
