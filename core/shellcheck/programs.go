package shellcheck

// Classifiers of programs whose options decide whether they write or run
// other programs: find, sed, sort, uniq, awk, date, pagers, man, go, rg,
// fd, tree, base64, iconv, wget. The table that picks them is
// classifyName in classify.go.

import (
	"path/filepath"
	"slices"
	"strings"
)

func (w *walker) find(rest []arg) effect {
	e := readOnly
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if !a.lit {
			return e.max(notLiteral)
		}
		switch a.s {
		case "-delete":
			return effect{Dangerous, "find -delete deletes every match"}
		case "-exec", "-execdir", "-ok", "-okdir":
			j := i + 1
			for j < len(rest) && rest[j].s != ";" && rest[j].s != "+" {
				j++
			}
			inner := rest[i+1 : j]
			if len(inner) > 0 {
				inner, wrap, _ := unwrap(inner)
				if len(inner) > 0 {
					switch filepath.Base(inner[0].s) {
					case "rm", "shred", "unlink", "rmdir":
						return effect{Dangerous, "find " + a.s + " " + inner[0].s + " deletes every match"}
					case "git":
						// {} and -execdir put git in directories the
						// repository check cannot see.
						e = e.max(effect{Unknown, "find " + a.s + " runs git in the directories it finds"})
					}
				}
				e = e.max(wrap).max(w.classify(inner))
			}
			i = j
		case "-fprint", "-fprint0", "-fprintf", "-fls":
			if i+1 < len(rest) {
				e = e.max(w.writeArg(rest[i+1]))
			}
		}
	}
	return e
}

func (w *walker) sed(rest []arg) effect {
	e := readOnly
	var scripts []string
	var ops []arg
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if !a.lit {
			return notLiteral
		}
		switch {
		case a.s == "-e" || a.s == "--expression":
			if i+1 < len(rest) {
				scripts = append(scripts, rest[i+1].s)
				i++
			}
		case strings.HasPrefix(a.s, "--expression="):
			scripts = append(scripts, strings.TrimPrefix(a.s, "--expression="))
		case a.s == "-f" || strings.HasPrefix(a.s, "--file"):
			return effect{Unknown, "sed reads its script from a file"}
		case a.s == "-l" || a.s == "--line-length":
			i++
		case strings.HasPrefix(a.s, "--in-place") || (isShortFlags(a.s) && strings.Contains(a.s, "i")):
			e = e.max(effect{Unknown, "sed -i edits files in place"})
		case strings.HasPrefix(a.s, "-") && len(a.s) > 1:
			// -n, -E, -r, -s, -z, -u, --posix, --debug ...
		default:
			ops = append(ops, a)
		}
	}
	if len(scripts) == 0 && len(ops) > 0 {
		scripts = append(scripts, ops[0].s)
		ops = ops[1:]
	}
	for _, s := range scripts {
		switch sedScriptEffect(s) {
		case "w":
			e = e.max(effect{Unknown, "sed script writes files (w)"})
		case "e":
			e = e.max(effect{Unknown, "sed script executes commands (e)"})
		case "r":
			e = e.max(effect{Unknown, "sed script reads other files (r, R), which may be outside the workspace"})
		case "?":
			e = e.max(effect{Unknown, "sed script not understood"})
		}
	}
	if e.class > ReadOnly {
		for _, o := range ops {
			if t := w.writeTarget(o.s); t.class == Dangerous {
				e = e.max(t)
			}
		}
	}
	return e
}

// sedScriptEffect scans a sed script and returns "w" if it writes files,
// "e" if it executes commands, "r" if it reads other files, "?" if it
// cannot be understood and "" if it is read-only.
func sedScriptEffect(s string) string {
	i := 0
	// skipDelimited skips a delimited section starting after the delimiter.
	skipDelimited := func(delim byte) bool {
		for i < len(s) {
			switch s[i] {
			case '\\':
				i += 2
				continue
			case delim:
				i++
				return true
			}
			i++
		}
		return false
	}
	toEOL := func() {
		for i < len(s) && s[i] != '\n' {
			if s[i] == '\\' {
				i++
			}
			i++
		}
	}
	toEnd := func() { // label or file name: up to ; or newline
		for i < len(s) && s[i] != '\n' && s[i] != ';' {
			i++
		}
	}
	address := func() bool {
		switch {
		case i < len(s) && (s[i] >= '0' && s[i] <= '9'):
			for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '~') {
				i++
			}
		case i < len(s) && s[i] == '$':
			i++
		case i < len(s) && s[i] == '/':
			i++
			if !skipDelimited('/') {
				return false
			}
			for i < len(s) && (s[i] == 'I' || s[i] == 'M') {
				i++
			}
		case i+1 < len(s) && s[i] == '\\':
			d := s[i+1]
			i += 2
			if !skipDelimited(d) {
				return false
			}
		}
		return true
	}
	for i < len(s) {
		c := s[i]
		if c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '}' {
			i++
			continue
		}
		if c == '#' {
			toEOL()
			continue
		}
		if !address() {
			return "?"
		}
		if i < len(s) && s[i] == ',' {
			i++
			if i < len(s) && (s[i] == '+' || s[i] == '~') {
				i++
			}
			if !address() {
				return "?"
			}
		}
		for i < len(s) && (s[i] == ' ' || s[i] == '!') {
			i++
		}
		if i >= len(s) {
			return "?"
		}
		c = s[i]
		i++
		switch c {
		case '{', '}', '=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z', 'F':
		case 'l', 'q', 'Q', 'L':
			for i < len(s) && (s[i] == ' ' || s[i] >= '0' && s[i] <= '9') {
				i++
			}
		case 'r', 'R':
			return "r"
		case ':', 'b', 't', 'T', 'v':
			toEnd()
		case 'a', 'i', 'c':
			toEOL()
		case 'w', 'W':
			return "w"
		case 'e':
			return "e"
		case 's', 'y':
			if i >= len(s) || s[i] == '\\' || s[i] == '\n' {
				return "?"
			}
			d := s[i]
			i++
			// Two delimited parts: the pattern, then the replacement
			// (s) or the target set (y).
			if !skipDelimited(d) {
				return "?"
			}
			if !skipDelimited(d) {
				return "?"
			}
			if c == 's' {
				for i < len(s) && s[i] != ';' && s[i] != '\n' && s[i] != '}' && s[i] != ' ' {
					switch s[i] {
					case 'w':
						return "w"
					case 'e':
						return "e"
					}
					i++
				}
			}
		default:
			return "?"
		}
	}
	return ""
}

func (w *walker) sortCmd(rest []arg) effect {
	for i, a := range rest {
		if !a.lit {
			return notLiteral
		}
		switch {
		case longOpt(a.s, "--compress-program", 4):
			return effect{Unknown, "sort --compress-program runs a program"}
		case a.s == "-o" || longOpt(a.s, "--output", 3):
			v, ok := optValue(a.s)
			return w.optionFile(v, ok, rest, i, readOnly)
		case isShortFlags(a.s) && strings.Contains(a.s, "o"):
			k := strings.IndexByte(a.s, 'o')
			return w.optionFile(a.s[k+1:], k+1 < len(a.s), rest, i, readOnly)
		}
	}
	return readOnly
}

// secondOperandWrites handles uniq and xxd, which write their second operand.
func (w *walker) secondOperandWrites(name string, rest []arg) effect {
	var ops []arg
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if !a.lit {
			return notLiteral
		}
		if strings.HasPrefix(a.s, "-") && len(a.s) > 1 {
			if slices.Contains([]string{"-f", "-s", "-w", "-c", "-l", "-g", "-o", "-n", "-s", "-C"}, a.s) && name == "xxd" || (name == "uniq" && (a.s == "-f" || a.s == "-s" || a.s == "-w")) {
				i++
			}
			continue
		}
		ops = append(ops, a)
	}
	if len(ops) > 1 {
		return w.writeArg(ops[1])
	}
	return readOnly
}

// awkSafeShort are awk/gawk short options that neither load code nor
// write files; -F and -v take values.
const awkSafeShort = "bcChnNOPrsStVMYL"

func awk(rest []arg) effect {
	var programs []string
	operands := false
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if !a.lit {
			return notLiteral
		}
		switch {
		case operands || a.s == "-" || !strings.HasPrefix(a.s, "-"):
			if len(programs) == 0 {
				programs = append(programs, a.s)
			}
			operands = true
		case a.s == "--":
			operands = true
		case a.s == "-e" || a.s == "--source":
			if i+1 < len(rest) {
				programs = append(programs, rest[i+1].s)
				i++
			}
		case strings.HasPrefix(a.s, "--source="):
			programs = append(programs, strings.TrimPrefix(a.s, "--source="))
		case strings.HasPrefix(a.s, "-e"):
			programs = append(programs, a.s[2:])
		case a.s == "-F" || a.s == "-v" || longOpt(a.s, "--assign", 4) || longOpt(a.s, "--field-separator", 4):
			if !strings.Contains(a.s, "=") {
				i++
			}
		case strings.HasPrefix(a.s, "-F") || strings.HasPrefix(a.s, "-v"):
		case strings.HasPrefix(a.s, "--"):
			switch name, _, _ := strings.Cut(a.s, "="); name {
			case "--posix", "--traditional", "--lint", "--sandbox", "--re-interval", "--characters-as-bytes",
				"--non-decimal-data", "--optimize", "--no-optimize", "--bignum", "--use-lc-numeric", "--version",
				"--help", "--copyright", "--csv":
			default:
				return effect{Unknown, "awk option " + a.s + " may load code or write files"}
			}
		default:
			if strings.Trim(a.s[1:], awkSafeShort) != "" {
				return effect{Unknown, "awk option " + a.s + " may load code or write files"}
			}
		}
	}
	for _, p := range programs {
		for _, bad := range []string{"system", "getline", "|", ">", "fflush", "close", "@"} {
			if strings.Contains(p, bad) {
				return effect{Unknown, "awk program may write files or run commands (" + bad + ")"}
			}
		}
	}
	return readOnly
}

// dateCmd: date sets the clock with -s/--set or an MMDDhhmm operand.
func dateCmd(rest []arg) effect {
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		switch {
		case !a.lit:
			return effect{Unknown, "date may set the clock"}
		case a.s == "-d" || a.s == "-f" || a.s == "-r" || a.s == "--date" || a.s == "--file" || a.s == "--reference":
			i++
		case longOpt(a.s, "--set", 4) || (isShortFlags(a.s) && strings.Contains(a.s, "s") && !strings.ContainsAny(a.s, "dfrI")):
			return effect{Unknown, "date -s sets the clock"}
		case strings.HasPrefix(a.s, "-") || strings.HasPrefix(a.s, "+"):
		default:
			return effect{Unknown, "date with an operand sets the clock"}
		}
	}
	return readOnly
}

// pager handles less and more: + commands (+!cmd runs a shell), log
// files and lesskey files can run commands or write files.
func pager(name string, rest []arg) effect {
	for _, a := range rest {
		switch {
		case !a.lit:
			return notLiteral
		case strings.HasPrefix(a.s, "+"):
			cmd := strings.TrimLeft(a.s, "+")
			if cmd != "" && cmd != "G" && cmd != "g" && cmd != "F" && !isDigits(cmd) &&
				!((cmd[0] == '/' || cmd[0] == '?') && !strings.ContainsAny(cmd, "\n\r")) {
				return effect{Unknown, name + " " + a.s + " runs pager commands"}
			}
		case strings.HasPrefix(a.s, "--log") || strings.HasPrefix(a.s, "--LOG") || strings.HasPrefix(a.s, "--lesskey"):
			return effect{Unknown, name + " " + a.s + " writes or loads files"}
		case isShortFlags(a.s) && strings.ContainsAny(a.s, "oOk"):
			return effect{Unknown, name + " " + a.s + " writes or loads files"}
		}
	}
	return readOnly
}

// manCmd: man runs its pager (-P), a browser (-H) or reads a config file.
func manCmd(rest []arg) effect {
	for _, a := range rest {
		switch {
		case !a.lit:
			return notLiteral
		case strings.HasPrefix(a.s, "--pag") || strings.HasPrefix(a.s, "--html") || strings.HasPrefix(a.s, "--config") ||
			strings.HasPrefix(a.s, "--gxditview") || strings.HasPrefix(a.s, "--preprocessor"):
			return effect{Unknown, "man " + a.s + " runs another program"}
		case isShortFlags(a.s) && strings.ContainsAny(a.s, "PHCXp"):
			return effect{Unknown, "man " + a.s + " runs another program"}
		}
	}
	return readOnly
}

// subcommand returns the first operand of a command, skipping options and
// the values of valueFlags.
func subcommand(rest []arg, valueFlags map[string]bool) string {
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if !a.lit {
			return ""
		}
		if strings.HasPrefix(a.s, "-") {
			if valueFlags[a.s] {
				i++
			}
			continue
		}
		return a.s
	}
	return ""
}
func rgCmd(rest []arg) effect {
	for _, a := range rest {
		if !a.lit {
			return notLiteral
		}
		if a.s == "--pre" || strings.HasPrefix(a.s, "--pre=") {
			return effect{Unknown, "rg --pre runs a preprocessor command"}
		}
		if strings.HasPrefix(a.s, "--hostname-bin") {
			return effect{Unknown, "rg --hostname-bin runs a program"}
		}
	}
	return readOnly
}

func fdCmd(rest []arg) effect {
	for _, a := range rest {
		if !a.lit {
			return notLiteral
		}
		if (isShortFlags(a.s) && strings.ContainsAny(a.s, "xX")) || strings.HasPrefix(a.s, "--exec") {
			return effect{Unknown, "fd --exec runs commands"}
		}
	}
	return readOnly
}

// treeCmd: tree writes HTML files with -R and its listing with -o.
func (w *walker) treeCmd(rest []arg) effect {
	for i, a := range rest {
		switch {
		case !a.lit:
			return notLiteral
		case isShortFlags(a.s) && strings.Contains(a.s, "R"):
			return effect{Unknown, "tree -R writes 00Tree.html files"}
		}
		if e, ok := w.outputOption(rest, i, 4, readOnly, readOnly); ok {
			return e
		}
	}
	return readOnly
}

// base64Cmd handles base64, base32 and basenc; BSD/macOS base64 writes
// its output file with -o / --output.
func (w *walker) base64Cmd(name string, rest []arg) effect {
	for i, a := range rest {
		if !a.lit {
			return notLiteral
		}
		if e, ok := w.outputOption(rest, i, 3, effect{Unknown, name + " -o writes a file"}, effect{Unknown, name + " --output writes a file"}); ok {
			return e
		}
	}
	return readOnly
}

func (w *walker) iconvCmd(rest []arg) effect {
	for i, a := range rest {
		switch {
		case !a.lit:
			return notLiteral
		case longOpt(a.s, "--output", 4):
			v, ok := optValue(a.s)
			return w.optionFile(v, ok, rest, i, readOnly)
		case isShortFlags(a.s) && strings.Contains(a.s, "o"):
			return effect{Unknown, "iconv -o writes a file"}
		}
	}
	return readOnly
}

// wgetCmd: wget is network access and writes the file -O names.
func (w *walker) wgetCmd(rest []arg) effect {
	e := effect{Unknown, "network access"}
	for i, a := range rest {
		if a.lit && (a.s == "-O" || a.s == "--output-document") && i+1 < len(rest) && rest[i+1].s != "-" {
			e = e.max(w.writeArg(rest[i+1]))
		}
	}
	return e
}
