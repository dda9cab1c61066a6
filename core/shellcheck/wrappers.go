package shellcheck

import (
	"path/filepath"
	"strings"
)

// wrapperSpec describes a command that runs another command given as its
// arguments.
type wrapperSpec struct {
	valueFlags map[string]bool // short or long flags taking a separate value
	positional int             // leading operands before the command (timeout's duration)
	floor      effect
}

func set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

var wrappers = map[string]wrapperSpec{
	"sudo":    {valueFlags: set("-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-U", "-T", "--user", "--group", "--host", "--prompt", "--close-from", "--chdir", "--role", "--type", "--other-user", "--command-timeout"), floor: effect{Unknown, "runs with elevated privileges"}},
	"doas":    {valueFlags: set("-u", "-C"), floor: effect{Unknown, "runs with elevated privileges"}},
	"env":     {valueFlags: set("-u", "--unset", "-C", "--chdir", "-P", "-S", "--split-string", "-a", "--argv0")},
	"xargs":   {valueFlags: set("-I", "-n", "-P", "-L", "-l", "-s", "-d", "-E", "-e", "-a", "--arg-file", "--delimiter", "--max-args", "--max-procs", "--replace", "--max-lines", "--eof", "--max-chars", "--process-slot-var")},
	"timeout": {valueFlags: set("-s", "-k", "--signal", "--kill-after"), positional: 1},
	"nice":    {valueFlags: set("-n", "--adjustment")},
	"nohup":   {},
	"command": {},
	"builtin": {},
	"exec":    {valueFlags: set("-a")},
	"time":    {valueFlags: set("-f", "--format", "-o", "--output")},
	"stdbuf":  {valueFlags: set("-i", "-o", "-e", "--input", "--output", "--error")},
	"ionice":  {valueFlags: set("-c", "-n", "--class", "--classdata")},
	"setsid":  {},
	"chronic": {},
}

// unwrap looks through wrapper commands and returns the wrapped command
// with the strictest effect any wrapper adds (sudo, or a file written by
// `time -o`).
func unwrap(args []arg) ([]arg, effect) {
	floor := readOnly
	for range len(args) + 1 {
		if len(args) == 0 || !args[0].lit {
			return args, floor
		}
		name := filepath.Base(args[0].s)
		spec, ok := wrappers[name]
		if !ok {
			return args, floor
		}
		floor = floor.max(spec.floor)
		rest := args[1:]
		positional := spec.positional
		i := 0
	scan:
		for i < len(rest) {
			a := rest[i]
			if !a.lit {
				break
			}
			switch {
			case a.s == "--":
				i++
				break scan
			case name == "env" && strings.Contains(a.s, "=") && !strings.HasPrefix(a.s, "-"):
				if v := strings.SplitN(a.s, "=", 2)[0]; sensitiveVars[v] {
					floor = floor.max(effect{Unknown, "sets " + v + ", which changes what runs"})
				}
				i++
			case name == "env" && (a.s == "-S" || strings.HasPrefix(a.s, "--split-string")):
				// env -S splits one string into the command and its args.
				val := ""
				if k := strings.IndexByte(a.s, '='); k >= 0 {
					val = a.s[k+1:]
					i++
				} else if i+1 < len(rest) {
					val = rest[i+1].s
					i += 2
				} else {
					i++
				}
				var split []arg
				for _, f := range strings.Fields(val) {
					split = append(split, arg{s: f, lit: true})
				}
				rest = append(split, rest[i:]...)
				i = 0
				break scan
			case name == "command" && (a.s == "-v" || a.s == "-V"):
				// command -v only looks the name up.
				return []arg{{s: "command", lit: true}, a}, floor
			case name == "time" && (a.s == "-o" || a.s == "--output") && i+1 < len(rest):
				floor = floor.max(writeTargetStatic(rest[i+1]))
				i += 2
			case name == "nice" && len(a.s) > 1 && a.s[0] == '-' && isDigits(a.s[1:]):
				i++
			case strings.HasPrefix(a.s, "-") && len(a.s) > 1:
				if spec.valueFlags[a.s] {
					i += 2
				} else {
					i++
				}
			case positional > 0:
				positional--
				i++
			default:
				break scan
			}
		}
		if i > len(rest) {
			i = len(rest)
		}
		rest = rest[i:]
		if len(rest) == 0 {
			// The wrapper alone: sudo -v, env (prints), xargs (runs echo).
			switch name {
			case "xargs":
				return []arg{{s: "echo", lit: true}}, floor
			default:
				return args[:1], floor
			}
		}
		args = rest
	}
	return args, floor
}

// writeTargetStatic classifies a write without workspace context; used
// only for rarely seen wrapper flags, so it just refuses to call it safe.
func writeTargetStatic(a arg) effect {
	if a.lit && a.s == "/dev/null" {
		return readOnly
	}
	return effect{Unknown, "writes " + a.s}
}

func isDownloader(name string) bool {
	switch filepath.Base(name) {
	case "curl", "wget", "fetch", "aria2c", "http", "https", "xh":
		return true
	}
	return false
}

var shells = set("sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "ash", "busybox")

var interpreters = set("python", "python2", "python3", "perl", "ruby", "node", "php", "lua", "deno", "bun", "tclsh", "osascript", "pwsh")

// readsScriptFromStdin reports whether the command runs code read from
// its standard input: a shell or interpreter without a script operand.
func readsScriptFromStdin(name string, args []arg) bool {
	if !shells[name] && !interpreters[name] && !strings.HasPrefix(name, "python") {
		return false
	}
	for _, a := range args[1:] {
		if !a.lit {
			return true
		}
		if a.s == "-" || a.s == "-s" {
			return true
		}
		if !strings.HasPrefix(a.s, "-") {
			return false
		}
		if a.s == "-c" || a.s == "-e" || (shells[name] && strings.HasPrefix(a.s, "-") && !strings.HasPrefix(a.s, "--") && strings.Contains(a.s, "c")) {
			return false
		}
	}
	return true
}
