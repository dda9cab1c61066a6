package shellcheck

import "strings"

// shell handles sh/bash/... : -c strings are analysed recursively.
func (w *walker) shell(name string, rest []arg) effect {
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if !a.lit {
			break
		}
		if a.s == "-o" || a.s == "+o" || a.s == "-O" || a.s == "+O" {
			i++
			continue
		}
		if isShortFlags(a.s) && strings.Contains(a.s, "c") {
			if i+1 >= len(rest) {
				return effect{Unknown, name + " -c without a command"}
			}
			return w.nested(name+" -c", rest[i+1])
		}
		if strings.HasPrefix(a.s, "-") || strings.HasPrefix(a.s, "+") {
			continue
		}
		return effect{Unknown, "runs the script " + a.s}
	}
	return effect{Unknown, name + " runs commands from its input"}
}

func (w *walker) eval(rest []arg) effect {
	if len(rest) == 0 {
		return readOnly
	}
	parts := make([]string, len(rest))
	joined := arg{lit: true}
	for i, a := range rest {
		parts[i] = a.s
		joined.lit = joined.lit && a.lit
		joined.dl = joined.dl || a.dl
	}
	joined.s = strings.Join(parts, " ")
	// eval runs in the current shell: a cd inside it moves later commands.
	return w.nestedIn("eval", joined, true)
}

// nested analyses a script string given to eval or sh -c and returns an
// effect summarising it (its commands are recorded as well).
func (w *walker) nested(what string, script arg) effect {
	return w.nestedIn(what, script, false)
}

// nestedIn is nested; sameShell keeps the script's cd (eval) instead of
// restoring the directory as for a child shell.
func (w *walker) nestedIn(what string, script arg, sameShell bool) effect {
	if script.dl {
		return effect{Dangerous, what + " runs a downloaded script"}
	}
	if !script.lit {
		return effect{Unknown, what + " runs a script that cannot be resolved statically"}
	}
	if w.depth >= maxDepth {
		return effect{Unknown, what + " nested too deeply to analyse"}
	}
	start := len(w.out.Commands)
	parseErr := w.out.ParseError
	if sameShell {
		w.parse(script.s, w.depth+1)
	} else {
		// A child shell: its cd does not leak.
		w.scoped(func() { w.parse(script.s, w.depth+1) })
	}
	if w.out.ParseError != parseErr {
		return effect{Unknown, what + " script cannot be parsed"}
	}
	e := readOnly
	for _, c := range w.out.Commands[start:] {
		if c.Class > e.class {
			e = effect{c.Class, what + " runs `" + strings.Join(c.Args, " ") + "`: " + c.Reason}
		}
	}
	if e.class == ReadOnly {
		return readOnly
	}
	return e
}
