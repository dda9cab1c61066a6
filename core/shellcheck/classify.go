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

// classifyName is the table of known programs: each entry decides from
// the arguments or hands them to the program's own classifier.
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
		return w.chmod(name, rest)
	case "tee":
		return w.tee(rest)
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
		return rgCmd(rest)
	case "fd", "fdfind":
		return fdCmd(rest)
	case "tree":
		return w.treeCmd(rest)
	case "date":
		return dateCmd(rest)
	case "hostname":
		return unlessArg(rest, func(s string) bool {
			return !strings.HasPrefix(s, "-") || longOpt(s, "--file", 3) || longOpt(s, "--boot", 4) ||
				(isShortFlags(s) && strings.ContainsAny(s, "Fb"))
		}, effect{Unknown, "hostname may set the host name"})
	case "base64", "base32", "basenc":
		return w.base64Cmd(name, rest)
	case "less", "more":
		return pager(name, rest)
	case "man":
		return manCmd(rest)
	case "file":
		return unlessArg(rest, func(s string) bool {
			return longOpt(s, "--compile", 4) || (isShortFlags(s) && strings.Contains(s, "C"))
		}, effect{Unknown, "file -C compiles a magic file"})
	case "iconv":
		return w.iconvCmd(rest)
	case "ack", "ag":
		return unlessArg(rest, func(s string) bool {
			return strings.HasPrefix(s, "--pag") || strings.HasPrefix(s, "--output")
		}, effect{Unknown, name + " --pager runs a command"})
	case "printf", "read", "mapfile", "readarray":
		// They set variables: PATH or IFS would change what runs next.
		return unlessArg(rest, sensitiveVar, effect{Unknown, name + " sets a variable that changes what runs"})
	case "yq":
		return unlessArg(rest, func(s string) bool {
			return s == "-i" || strings.HasPrefix(s, "--inplace")
		}, effect{Unknown, "yq -i edits files in place"})
	case "curl":
		return effect{Unknown, "network access"}.max(w.outputFlag(rest, "-o", "--output"))
	case "wget":
		return w.wgetCmd(rest)
	case "git":
		return w.git(rest)
	case "go":
		return goCmd(rest)
	case "gofmt":
		return gofmtCmd(rest)
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

// unlessArg is read-only unless some argument cannot be resolved
// statically or is bad: then it is e.
func unlessArg(rest []arg, bad func(string) bool, e effect) effect {
	for _, a := range rest {
		if !a.lit || bad(a.s) {
			return e
		}
	}
	return readOnly
}

func isShortFlags(s string) bool {
	return len(s) > 1 && s[0] == '-' && s[1] != '-'
}
