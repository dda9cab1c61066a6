package shellcheck

import (
	"path/filepath"
	"strings"
)

// writeTarget classifies writing to the file p, a literal word: each
// brace alternative, glob components as any name they may match, and the
// path as written and as its symbolic links resolve.
func (w *walker) writeTarget(p string) effect {
	alts, ok := braceAlternatives(p)
	if !ok {
		return effect{Dangerous, "writes to " + p + ", whose brace expansion is too large to judge"}
	}
	e := readOnly
	for _, alt := range alts {
		e = e.max(w.writeOne(alt))
	}
	if e.class == Dangerous && len(alts) > 1 {
		e.reason += " (from " + p + ")"
	}
	return e
}

func (w *walker) writeOne(p string) effect {
	switch {
	case p == "/dev/null" || p == "/dev/stdout" || p == "/dev/stderr" || p == "/dev/tty" || strings.HasPrefix(p, "/dev/fd/"):
		return readOnly
	case p == "":
		return effect{Unknown, "writes to an empty path"}
	case strings.HasPrefix(p, "~") || (w.cwd == homeDir && !filepath.IsAbs(p)):
		return effect{Dangerous, "writes outside the workspace: " + p}
	case strings.ContainsAny(p, "$`"):
		return unresolved(p)
	}
	var abs string
	switch {
	case filepath.IsAbs(p):
		abs = filepath.Clean(p)
	case w.root == "":
		abs = filepath.Join("/nonexistent-workspace", p)
	case w.cwd == "":
		return effect{Dangerous, "writes to " + p + " after a cd that cannot be resolved statically, which may be into .git/ or .coder/"}
	default:
		abs = filepath.Join(w.cwd, p)
	}
	real := abs // the path as its links resolve
	switch {
	case filepath.IsAbs(p):
		real = realPath(p)
	case w.root != "":
		real = realPath(w.cwd + "/" + p) // unclean: a link before .. counts
	}
	if d := w.userDir(abs, real); d != "" {
		return effect{Dangerous, "writes the user's own configuration or the host's state (" + d + "): " + p}
	}
	root := w.root
	if root == "" {
		root = "/nonexistent-workspace"
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return effect{Dangerous, "writes outside the workspace: " + p}
	}
	if why := protectedPath(rel, w.dotglob); why != "" {
		return effect{Dangerous, why + ": " + p}
	}
	if w.root != "" {
		// A link in the workspace may lead into .git/ or out of it.
		if rrel, err := filepath.Rel(w.resolvedRoot(), real); err != nil || rrel == ".." || strings.HasPrefix(rrel, "../") {
			return effect{Dangerous, "writes outside the workspace through a symbolic link: " + p}
		} else if why := protectedPath(rrel, w.dotglob); why != "" {
			return effect{Dangerous, why + " through a symbolic link: " + p}
		}
	}
	return effect{Unknown, "writes " + p}
}

// userDir returns the protected directory of the user's that a write to
// abs (lexically; real with links resolved) may reach, or "".
func (w *walker) userDir(abs, real string) string {
	for _, d := range w.protected {
		if w.mayBeWithin(d, abs) || w.mayBeWithin(d, real) {
			return d
		}
	}
	return ""
}

// mayBeWithin reports whether p, whose components may be glob patterns,
// may name dir or a path below it.
func (w *walker) mayBeWithin(dir, p string) bool {
	dp, pp := strings.Split(filepath.ToSlash(dir), "/"), strings.Split(filepath.ToSlash(p), "/")
	if len(pp) < len(dp) {
		return false
	}
	for i, name := range dp {
		if !mayName(pp[i], name, w.dotglob) {
			return false
		}
	}
	return true
}

// realPaths resolves each path's links (as far as it exists).
func realPaths(paths []string) []string {
	var out []string
	for _, p := range paths {
		if p == "" {
			continue
		}
		if abs, err := filepath.Abs(p); err == nil {
			out = append(out, filepath.Clean(abs))
			if r := realPath(abs); r != filepath.Clean(abs) {
				out = append(out, r)
			}
		}
	}
	return out
}

// protectedPath says why writing rel, a path relative to the workspace
// root, is dangerous, or "" when it is not.
func protectedPath(rel string, dotglob bool) string {
	for _, part := range strings.Split(filepath.ToSlash(rel), "/") {
		if why := protectedPart(part, dotglob); why != "" {
			return why
		}
	}
	return ""
}

// unresolved is the effect of writing to a word the shell expands at run
// time (a variable, a command substitution): it may name any path.
func unresolved(word string) effect {
	return effect{Dangerous, "writes to `" + word + "`, which cannot be resolved statically and may name .git/, .coder/ or a path outside the workspace"}
}

func (w *walker) writeArg(a arg) effect {
	if !a.lit {
		return unresolved(a.s)
	}
	return w.writeTarget(a.s)
}

func (w *walker) rm(rest []arg) effect {
	e := effect{Unknown, "deletes files"}
	flags := true
	for _, a := range rest {
		if !a.lit {
			return effect{Dangerous, "deletes `" + a.s + "`, which cannot be resolved statically and may name .git/, .coder/ or a path outside the workspace"}
		}
		if flags && a.s == "--" {
			flags = false
			continue
		}
		if flags && (longOpt(a.s, "--recursive", 3) || longOpt(a.s, "--force", 3) || longOpt(a.s, "--no-preserve-root", 4)) {
			return effect{Dangerous, "rm " + a.s + " deletes without confirmation"}
		}
		if flags && isShortFlags(a.s) {
			if strings.ContainsAny(a.s, "rRf") {
				return effect{Dangerous, "rm " + a.s + " deletes recursively or forcibly"}
			}
			continue
		}
		if flags && strings.HasPrefix(a.s, "--") {
			continue
		}
		t := w.writeTarget(a.s)
		if t.class == Dangerous {
			return effect{Dangerous, "deletes outside the workspace or in .git/: " + a.s}
		}
	}
	return e
}

// targets treats every operand as a file the command writes; skip drops
// leading operands that are not files (chmod's mode, chown's owner).
func (w *walker) targets(name string, rest []arg, valueFlags map[string]bool, skip int) effect {
	e := effect{Unknown, name + " changes files"}
	flags := true
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if a.lit && flags && a.s == "--" {
			flags = false
			continue
		}
		if a.lit && flags && strings.HasPrefix(a.s, "-") && len(a.s) > 1 {
			if t, n, ok := targetDir(rest, i); ok {
				e = e.max(w.writeArg(t))
				i += n - 1
				continue
			}
			if valueFlags[a.s] {
				i++
			}
			continue
		}
		if skip > 0 {
			skip--
			continue
		}
		e = e.max(w.writeArg(a))
	}
	return e
}

// destination checks the file cp/ln/install write: -t DIR or the last operand.
func (w *walker) destination(name string, rest []arg) effect {
	e := effect{Unknown, name + " writes files"}
	var ops []arg
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if t, _, ok := targetDir(rest, i); ok {
			return e.max(w.writeArg(t))
		}
		if a.lit && strings.HasPrefix(a.s, "-") && len(a.s) > 1 {
			if a.s == "-S" || a.s == "--suffix" || a.s == "-m" || a.s == "-o" || a.s == "-g" || a.s == "--mode" || a.s == "--owner" || a.s == "--group" {
				i++
			}
			continue
		}
		ops = append(ops, a)
	}
	if len(ops) > 0 {
		e = e.max(w.writeArg(ops[len(ops)-1]))
	}
	if name == "ln" {
		// A link to .git/ (or out of the workspace) made here lets a
		// later write in the same command go through it unseen.
		for _, a := range ops {
			if t := w.writeArg(a); t.class == Dangerous {
				return effect{Dangerous, "links to a protected path: " + t.reason}
			}
		}
	}
	return e
}

// targetDir recognises the -t DIR option of cp, mv, ln and install in
// its forms -t DIR, -tDIR, -rt DIR, --target-directory=DIR and
// abbreviations; n is how many words it takes.
func targetDir(rest []arg, i int) (dir arg, n int, ok bool) {
	a := rest[i]
	if !a.lit {
		return arg{}, 0, false
	}
	next := func() (arg, int, bool) {
		if i+1 < len(rest) {
			return rest[i+1], 2, true
		}
		return arg{s: "", lit: true}, 1, true
	}
	switch {
	case longOpt(a.s, "--target-directory", 4):
		if v, ok := optValue(a.s); ok {
			return arg{s: v, lit: true}, 1, true
		}
		return next()
	case isShortFlags(a.s):
		k := strings.IndexByte(a.s, 't')
		if k < 0 || strings.ContainsAny(a.s[1:k], "Sm") { // -S SUFFIX, -m MODE take the rest
			return arg{}, 0, false
		}
		if k+1 < len(a.s) {
			return arg{s: a.s[k+1:], lit: true}, 1, true
		}
		return next()
	}
	return arg{}, 0, false
}

func (w *walker) outputFlag(rest []arg, short, long string) effect {
	e := readOnly
	for i, a := range rest {
		if !a.lit {
			continue
		}
		switch {
		case a.s == short || (long != "" && a.s == long):
			if i+1 < len(rest) {
				e = e.max(w.writeArg(rest[i+1]))
			}
		case long != "" && strings.HasPrefix(a.s, long+"="):
			e = e.max(w.writeTarget(strings.TrimPrefix(a.s, long+"=")))
		case short != "" && strings.HasPrefix(a.s, short) && !strings.HasPrefix(a.s, "--") && len(a.s) > len(short):
			e = e.max(w.writeTarget(a.s[len(short):]))
		}
	}
	return e
}

// optionFile is the effect of an option naming the file a command writes:
// its value attached (v, when attached) or else the word after it at i;
// missing when the option ends the command line.
func (w *walker) optionFile(v string, attached bool, rest []arg, i int, missing effect) effect {
	if attached {
		return w.writeTarget(v)
	}
	if i+1 < len(rest) {
		return w.writeArg(rest[i+1])
	}
	return missing
}

// outputOption is the effect of rest[i] when it is -o or --output (long
// forms of at least min characters) naming the file the command writes:
// its value, else the next word; with neither, missingShort or
// missingLong. ok is false when rest[i] is not such an option.
func (w *walker) outputOption(rest []arg, i, min int, missingShort, missingLong effect) (e effect, ok bool) {
	a := rest[i]
	switch {
	case isShortFlags(a.s) && strings.Contains(a.s, "o"):
		v := a.s[strings.IndexByte(a.s, 'o')+1:]
		return w.optionFile(v, v != "", rest, i, missingShort), true
	case longOpt(a.s, "--output", min):
		v, ok := optValue(a.s)
		return w.optionFile(v, ok, rest, i, missingLong), true
	}
	return effect{}, false
}

// chmod handles chmod, chown and chgrp: -R changes a whole tree; the
// first operand is the mode or owner unless --reference gives it.
func (w *walker) chmod(name string, rest []arg) effect {
	for _, a := range rest {
		if a.lit && (a.s == "-R" || longOpt(a.s, "--recursive", 3) || (isShortFlags(a.s) && strings.Contains(a.s, "R"))) {
			return effect{Dangerous, name + " -R changes a whole tree"}
		}
	}
	skip := 1
	for _, a := range rest {
		if a.lit && strings.HasPrefix(a.s, "--reference") {
			skip = 0
		}
	}
	return w.targets(name, rest, set("--reference"), skip)
}

// tee writes every operand.
func (w *walker) tee(rest []arg) effect {
	e := readOnly
	for _, a := range rest {
		if a.lit && strings.HasPrefix(a.s, "-") {
			continue
		}
		e = e.max(w.writeArg(a))
	}
	return e
}
