package shellcheck

import (
	"path/filepath"
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
