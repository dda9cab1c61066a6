package shellcheck

import (
	"path/filepath"
	"slices"
	"strings"
)

// plainReadOnly are commands with no option that writes files or runs
// other commands, so any arguments keep them read-only.
var plainReadOnly = set(
	"ls", "cat", "head", "tail", "wc", "pwd", "echo", "true", "false", ":", "test", "[",
	"which", "whoami", "id", "uname", "basename", "dirname", "realpath", "readlink", "stat",
	"du", "df", "grep", "egrep", "fgrep", "zgrep", "zcat", "cut", "tr", "nl", "od", "hexdump", "md5sum", "sha1sum",
	"sha256sum", "sha512sum", "cksum", "b2sum", "comm", "cmp", "diff", "column", "fmt", "fold", "paste",
	"join", "expand", "unexpand", "seq", "yes", "sleep", "whereis", "type", "ps", "free", "uptime",
	"nproc", "printenv", "tac", "rev", "strings", "jq", "cd", "pushd", "popd", "dirs",
	"exit", "return", "shift", "wait", "getconf", "arch", "groups", "who", "locale", "tty",
	"cal", "factor", "expr", "lscpu", "lsblk", "env", "look", "numfmt", "lsof", "help", "vmstat", "uniq_count", "shasum", "sum", "tsort",
)

// Readers with options that run commands or write files are handled in
// classifyName: less, more, man, file, iconv, ack, ag, printf, read.

// longOpt reports whether a is the long option full, or an abbreviation
// of it that getopt_long and git accept, of at least min characters
// (dashes included); a value after "=" is ignored.
func longOpt(a, full string, min int) bool {
	name, _, _ := strings.Cut(a, "=")
	return len(name) >= min && strings.HasPrefix(name, "--") && strings.HasPrefix(full, name)
}

// optValue returns the value of long option a given as --opt=value.
func optValue(a string) (string, bool) {
	_, v, ok := strings.Cut(a, "=")
	return v, ok
}

// destructive always counts as dangerous.
var destructive = map[string]string{
	"dd":       "dd writes raw data to files or devices",
	"shred":    "shred destroys file contents",
	"wipefs":   "wipefs erases filesystem signatures",
	"fdisk":    "fdisk edits partition tables",
	"sfdisk":   "sfdisk edits partition tables",
	"gdisk":    "gdisk edits partition tables",
	"parted":   "parted edits partition tables",
	"mkswap":   "mkswap formats a device",
	"shutdown": "shuts the machine down",
	"reboot":   "reboots the machine",
	"halt":     "halts the machine",
	"poweroff": "powers the machine off",
	"mke2fs":   "formats a filesystem",
}

// classify decides the class of one simple command after unwrapping.
func (w *walker) classify(args []arg) effect {
	if len(args) == 0 {
		return readOnly
	}
	if !args[0].lit {
		return effect{Unknown, "command name `" + args[0].s + "` is not a literal"}
	}
	name := args[0].s
	base := filepath.Base(name)
	for _, f := range w.inFunc {
		if f == name {
			return effect{Dangerous, "function calls itself (fork bomb pattern)"}
		}
	}
	if w.funcs[name] {
		return effect{Unknown, "calls shell function " + name}
	}
	e := w.classifyName(base, args)
	if strings.Contains(name, "/") && e.class == ReadOnly && !isSystemPath(name) {
		return effect{Unknown, "runs " + name + ", not a system command"}
	}
	return e
}

func isSystemPath(name string) bool {
	dir := filepath.Dir(name)
	switch dir {
	case "/bin", "/usr/bin", "/usr/local/bin", "/sbin", "/usr/sbin":
		return true
	}
	return false
}

// allLit reports whether every argument is literal; options hidden in
// expansions could turn a read-only command into a writing one.
func allLit(args []arg) bool {
	for _, a := range args {
		if !a.lit {
			return false
		}
	}
	return true
}

var notLiteral = effect{Unknown, "arguments that cannot be resolved statically may add writing options"}

func (w *walker) classifyName(name string, args []arg) effect {
	if r, ok := destructive[name]; ok {
		return effect{Dangerous, r}
	}
	if strings.HasPrefix(name, "mkfs") {
		return effect{Dangerous, "formats a filesystem"}
	}
	if plainReadOnly[name] {
		return readOnly
	}
	rest := args[1:]
	switch name {
	case "rm":
		return w.rm(rest)
	case "rmdir", "unlink", "touch", "mkdir", "truncate":
		return w.targets(name, rest, set("-m", "--mode", "-s", "--size", "-r", "--reference", "-d", "--date", "-t", "-o", "--io-blocks"), 0)
	case "mv":
		return w.targets(name, rest, set("-S", "--suffix"), 0)
	case "cp", "ln", "install":
		return w.destination(name, rest)
	case "chmod", "chown", "chgrp":
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
	case "tee":
		e := readOnly
		for _, a := range rest {
			if a.lit && strings.HasPrefix(a.s, "-") {
				continue
			}
			e = e.max(w.writeArg(a))
		}
		return e
	case "find":
		return w.find(rest)
	case "sed":
		return w.sed(rest)
	case "sort":
		return w.sortCmd(rest)
	case "uniq", "xxd":
		return w.secondOperandWrites(name, rest)
	case "awk", "gawk", "mawk", "nawk":
		return awk(rest)
	case "rg":
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
	case "fd", "fdfind":
		for _, a := range rest {
			if !a.lit {
				return notLiteral
			}
			if (isShortFlags(a.s) && strings.ContainsAny(a.s, "xX")) || strings.HasPrefix(a.s, "--exec") {
				return effect{Unknown, "fd --exec runs commands"}
			}
		}
		return readOnly
	case "tree":
		for i, a := range rest {
			switch {
			case !a.lit:
				return notLiteral
			case isShortFlags(a.s) && strings.Contains(a.s, "R"):
				return effect{Unknown, "tree -R writes 00Tree.html files"}
			case isShortFlags(a.s) && strings.Contains(a.s, "o"):
				if v := a.s[strings.IndexByte(a.s, 'o')+1:]; v != "" {
					return w.writeTarget(v)
				}
				if i+1 < len(rest) {
					return w.writeArg(rest[i+1])
				}
			case longOpt(a.s, "--output", 4):
				if v, ok := optValue(a.s); ok {
					return w.writeTarget(v)
				}
				if i+1 < len(rest) {
					return w.writeArg(rest[i+1])
				}
			}
		}
		return readOnly
	case "date":
		return dateCmd(rest)
	case "hostname":
		for _, a := range rest {
			if !a.lit || !strings.HasPrefix(a.s, "-") || longOpt(a.s, "--file", 3) || longOpt(a.s, "--boot", 4) ||
				(isShortFlags(a.s) && strings.ContainsAny(a.s, "Fb")) {
				return effect{Unknown, "hostname may set the host name"}
			}
		}
		return readOnly
	case "base64", "base32", "basenc":
		// BSD/macOS base64 writes its output file with -o / --output.
		for i, a := range rest {
			switch {
			case !a.lit:
				return notLiteral
			case longOpt(a.s, "--output", 3):
				if v, ok := optValue(a.s); ok {
					return w.writeTarget(v)
				}
				if i+1 < len(rest) {
					return w.writeArg(rest[i+1])
				}
				return effect{Unknown, name + " --output writes a file"}
			case isShortFlags(a.s) && strings.Contains(a.s, "o"):
				if v := a.s[strings.IndexByte(a.s, 'o')+1:]; v != "" {
					return w.writeTarget(v)
				}
				if i+1 < len(rest) {
					return w.writeArg(rest[i+1])
				}
				return effect{Unknown, name + " -o writes a file"}
			}
		}
		return readOnly
	case "less", "more":
		return pager(name, rest)
	case "man":
		return manCmd(rest)
	case "file":
		for _, a := range rest {
			if !a.lit || longOpt(a.s, "--compile", 4) || (isShortFlags(a.s) && strings.Contains(a.s, "C")) {
				return effect{Unknown, "file -C compiles a magic file"}
			}
		}
		return readOnly
	case "iconv":
		for i, a := range rest {
			switch {
			case !a.lit:
				return notLiteral
			case longOpt(a.s, "--output", 4):
				if v, ok := optValue(a.s); ok {
					return w.writeTarget(v)
				}
				if i+1 < len(rest) {
					return w.writeArg(rest[i+1])
				}
			case isShortFlags(a.s) && strings.Contains(a.s, "o"):
				return effect{Unknown, "iconv -o writes a file"}
			}
		}
		return readOnly
	case "ack", "ag":
		for _, a := range rest {
			if !a.lit || strings.HasPrefix(a.s, "--pag") || strings.HasPrefix(a.s, "--output") {
				return effect{Unknown, name + " --pager runs a command"}
			}
		}
		return readOnly
	case "printf", "read", "mapfile", "readarray":
		// They set variables: PATH or IFS would change what runs next.
		for _, a := range rest {
			if !a.lit || sensitiveVar(a.s) {
				return effect{Unknown, name + " sets a variable that changes what runs"}
			}
		}
		return readOnly
	case "yq":
		for _, a := range rest {
			if !a.lit || a.s == "-i" || strings.HasPrefix(a.s, "--inplace") {
				return effect{Unknown, "yq -i edits files in place"}
			}
		}
		return readOnly
	case "curl":
		return effect{Unknown, "network access"}.max(w.outputFlag(rest, "-o", "--output"))
	case "wget":
		e := effect{Unknown, "network access"}
		for i, a := range rest {
			if a.lit && (a.s == "-O" || a.s == "--output-document") && i+1 < len(rest) && rest[i+1].s != "-" {
				e = e.max(w.writeArg(rest[i+1]))
			}
		}
		return e
	case "git":
		return w.git(rest)
	case "go":
		return goCmd(rest)
	case "eval":
		return w.eval(rest)
	case "source", ".":
		for _, a := range rest {
			if a.dl {
				return effect{Dangerous, "runs a downloaded script"}
			}
		}
		return effect{Unknown, "runs a script file"}
	case "kill":
		for _, a := range rest {
			if a.lit && (a.s == "-1" || a.s == "-9-1") {
				return effect{Dangerous, "kill -1 signals every process"}
			}
		}
		return effect{Unknown, "sends signals to processes"}
	case "init", "telinit":
		if len(rest) > 0 && (rest[0].s == "0" || rest[0].s == "6") {
			return effect{Dangerous, "shuts down or reboots the machine"}
		}
	case "systemctl":
		for _, a := range rest {
			switch a.s {
			case "poweroff", "reboot", "halt", "kexec", "suspend", "hibernate", "rescue", "emergency":
				return effect{Dangerous, "systemctl " + a.s + " stops the machine"}
			}
		}
	case "crontab":
		for _, a := range rest {
			if isShortFlags(a.s) && strings.Contains(a.s, "r") {
				return effect{Dangerous, "crontab -r deletes the crontab"}
			}
		}
	case "kubectl":
		if sub := subcommand(rest, prefixValueFlags["kubectl"]); sub == "delete" {
			return effect{Dangerous, "kubectl delete removes cluster resources"}
		}
	case "terraform", "tofu":
		sub := subcommand(rest, nil)
		if sub == "destroy" || (sub == "apply" && hasArg(rest, eq("-destroy", "--destroy"))) {
			return effect{Dangerous, "terraform destroy removes infrastructure"}
		}
	case "command":
		// Only reached as `command -v name` (see unwrap).
		return readOnly
	}
	if shells[name] || interpreters[name] || strings.HasPrefix(name, "python") {
		for _, a := range rest {
			if a.dl {
				return effect{Dangerous, name + " runs a downloaded script"}
			}
		}
	}
	if shells[name] {
		return w.shell(name, rest)
	}
	return effect{Unknown, "not known to be read-only"}
}

func isShortFlags(s string) bool {
	return len(s) > 1 && s[0] == '-' && s[1] != '-'
}

func (w *walker) writeArg(a arg) effect {
	if !a.lit {
		return effect{Unknown, "writes to `" + a.s + "`, which cannot be resolved statically"}
	}
	return w.writeTarget(a.s)
}

func (w *walker) rm(rest []arg) effect {
	e := effect{Unknown, "deletes files"}
	flags := true
	for _, a := range rest {
		if !a.lit {
			e = e.max(effect{Unknown, "deletes `" + a.s + "`, which cannot be resolved statically"})
			continue
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
			if v, ok := optValue(a.s); ok {
				return w.writeTarget(v)
			}
			if i+1 < len(rest) {
				return w.writeArg(rest[i+1])
			}
		case isShortFlags(a.s) && strings.Contains(a.s, "o"):
			k := strings.IndexByte(a.s, 'o')
			if k+1 < len(a.s) {
				return w.writeTarget(a.s[k+1:])
			}
			if i+1 < len(rest) {
				return w.writeArg(rest[i+1])
			}
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

func goCmd(rest []arg) effect {
	if len(rest) == 0 || !allLit(rest) {
		return effect{Unknown, "not known to be read-only"}
	}
	switch rest[0].s {
	case "list":
		for _, a := range rest[1:] {
			name, _, _ := strings.Cut(strings.TrimLeft(a.s, "-"), "=")
			switch name {
			case "toolexec", "exec", "mod", "modfile", "export", "compiled", "overlay", "pkgdir", "pgo", "a", "x", "n", "work", "o":
				return effect{Unknown, "go list " + a.s + " builds or runs tools"}
			}
		}
		return readOnly
	case "version", "doc", "help":
		return readOnly
	case "env":
		for _, a := range rest[1:] {
			if a.s == "-w" || a.s == "-u" {
				return effect{Unknown, "go env -w changes the Go configuration"}
			}
		}
		return readOnly
	}
	return effect{Unknown, "not known to be read-only"}
}

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
