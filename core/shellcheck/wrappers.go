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
	// context marks wrappers that change who the command runs as: an
	// approval of the bare command must not cover it (see Command.Context).
	context bool
	// dashC marks wrappers whose -c/--command value is a shell command
	// (su -c, script -c, flock -c); without one, su and script start a shell.
	dashC bool
	// joined marks wrappers that join their operands and give them to sh -c.
	joined bool
}

func set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

var (
	elevated = effect{Unknown, "runs with elevated privileges"}
	isolated = effect{Unknown, "runs a command in another environment"}
)

var wrappers = map[string]wrapperSpec{
	"sudo":    {valueFlags: set("-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-U", "-T", "-R", "--user", "--group", "--host", "--prompt", "--close-from", "--chdir", "--role", "--type", "--other-user", "--command-timeout", "--chroot"), floor: elevated, context: true},
	"doas":    {valueFlags: set("-u", "-C"), floor: elevated, context: true},
	"pkexec":  {valueFlags: set("--user"), floor: elevated, context: true},
	"run0":    {valueFlags: set("-u", "--user", "-g", "--group", "-D", "--chdir", "--setenv", "--property", "--description", "--slice", "--unit", "--nice"), floor: elevated, context: true},
	"su":      {valueFlags: set("-s", "--shell", "-g", "--group", "-G", "--supp-group", "-w", "--whitelist-environment"), floor: elevated, context: true, dashC: true},
	"runuser": {valueFlags: set("-u", "-s", "--shell", "-g", "--group", "-G", "--supp-group", "-w", "--whitelist-environment"), floor: elevated, context: true, dashC: true},
	"sg":      {floor: elevated, context: true, dashC: true, positional: 1},
	"env":     {valueFlags: set("-u", "--unset", "-C", "--chdir", "-P", "-S", "--split-string", "-a", "--argv0")},
	// -e, -i and -l take optional values that must be attached.
	"xargs":            {valueFlags: set("-I", "-n", "-P", "-L", "-s", "-d", "-E", "-a", "--arg-file", "--delimiter", "--max-args", "--max-procs", "--replace", "--max-lines", "--eof", "--max-chars", "--process-slot-var")},
	"timeout":          {valueFlags: set("-s", "-k", "--signal", "--kill-after"), positional: 1},
	"nice":             {valueFlags: set("-n", "--adjustment")},
	"nohup":            {},
	"command":          {},
	"builtin":          {},
	"exec":             {valueFlags: set("-a")},
	"time":             {valueFlags: set("-f", "--format", "-o", "--output")},
	"stdbuf":           {valueFlags: set("-i", "-o", "-e", "--input", "--output", "--error")},
	"ionice":           {valueFlags: set("-c", "-n", "--class", "--classdata")},
	"setsid":           {},
	"chronic":          {},
	"unbuffer":         {},
	"eatmydata":        {},
	"fakeroot":         {valueFlags: set("-l", "--lib", "--faked", "-s", "-i", "-b")},
	"caffeinate":       {valueFlags: set("-t", "-w")},
	"dbus-run-session": {},
	"xvfb-run":         {valueFlags: set("-n", "-s", "-f", "-e", "-p", "--server-num", "--server-args", "--auth-file", "--error-file", "--xauth-protocol")},
	"proxychains":      {valueFlags: set("-f")},
	"proxychains4":     {valueFlags: set("-f")},
	"torsocks":         {valueFlags: set("-u", "-p", "-a", "-P")},
	"valgrind":         {},
	"strace":           {valueFlags: set("-o", "-e", "-p", "-s", "-u", "-E", "-a", "-b", "-I", "-O", "-P", "-S", "-X", "-U"), floor: effect{Unknown, "traces another command"}},
	"ltrace":           {valueFlags: set("-o", "-e", "-p", "-s", "-u", "-a", "-n", "-l", "-A", "-D", "-F", "-x", "-L"), floor: effect{Unknown, "traces another command"}},
	"chroot":           {valueFlags: set("--userspec", "--groups"), positional: 1, floor: isolated},
	"unshare":          {valueFlags: set("-S", "-G", "-w", "--setuid", "--setgid", "--wd"), floor: isolated},
	"nsenter":          {valueFlags: set("-t", "--target", "-S", "-G", "--setuid", "--setgid", "-w"), floor: isolated},
	"firejail":         {floor: isolated},
	"systemd-run":      {valueFlags: set("-p", "--property", "-u", "--unit", "-E", "--setenv", "-M", "--machine", "-H", "--host", "--description", "--slice", "--uid", "--gid", "--nice", "-d", "--working-directory", "--on-active", "--on-calendar"), floor: isolated},
	"flock":            {valueFlags: set("-w", "--timeout", "-E", "--conflict-exit-code"), positional: 1, dashC: true},
	"script":           {valueFlags: set("-E", "--echo", "-I", "--log-in", "-O", "--log-out", "-B", "--log-io", "-T", "--log-timing", "-m", "--logging-format", "-o", "--output-limit"), dashC: true, floor: effect{Unknown, "script records a session to a file"}},
	"watch":            {valueFlags: set("-n", "--interval", "-q", "--equexit"), joined: true},
}

// clusterValue parses a getopt-style short option cluster such as -Eu or
// -vSfoo. It returns the first letter that takes a value, and the value
// when attached to the cluster; ok is false if no letter takes a value.
func clusterValue(s string, valueFlags map[string]bool) (letter byte, value string, attached, ok bool) {
	for j := 1; j < len(s); j++ {
		if valueFlags["-"+s[j:j+1]] {
			return s[j], s[j+1:], j+1 < len(s), true
		}
	}
	return 0, "", false, false
}

// takesValue reports whether the long option a (without "=") names, or
// abbreviates, a long option that takes a separate value.
func takesValue(a string, valueFlags map[string]bool) bool {
	if valueFlags[a] {
		return true
	}
	if !strings.HasPrefix(a, "--") || len(a) < 4 || strings.Contains(a, "=") {
		return false
	}
	for f := range valueFlags {
		if strings.HasPrefix(f, a) {
			return true
		}
	}
	return false
}

// unwrap looks through wrapper commands and returns the wrapped command
// with the strictest effect any wrapper adds (sudo, or a file written by
// `time -o`), and the context words an approval key must keep (sudo,
// sensitive environment settings).
func unwrap(args []arg) ([]arg, effect, []string) {
	floor := readOnly
	var context []string
	for range len(args) + 1 {
		if len(args) == 0 || !args[0].lit {
			return args, floor, context
		}
		name := filepath.Base(args[0].s)
		spec, ok := wrappers[name]
		if !ok {
			return args, floor, context
		}
		floor = floor.max(spec.floor)
		if spec.context {
			context = append(context, name)
		}
		rest := args[1:]
		if spec.dashC {
			if script, found := dashCommand(rest); found {
				return []arg{{s: "sh", lit: true}, {s: "-c", lit: true}, script}, floor, context
			}
			if name == "su" || name == "script" || (name == "runuser" && !hasWord(rest, "-u")) {
				// Without -c these start an interactive shell.
				return args[:1], floor.max(effect{Unknown, name + " starts a shell"}), context
			}
		}
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
				if v := strings.SplitN(a.s, "=", 2)[0]; sensitiveVar(v) {
					floor = floor.max(effect{Unknown, "sets " + v + ", which changes what runs"})
					context = append(context, a.s)
				}
				i++
			case name == "env" && envOpt(a.s, "--chdir", 'C'):
				// env -C DIR: the command runs elsewhere, which the path
				// and repository checks cannot follow.
				floor = floor.max(effect{Unknown, "env -C runs the command in another directory"})
				if _, _, attached, _ := clusterValue(a.s, spec.valueFlags); attached || strings.Contains(a.s, "=") {
					i++
				} else {
					i += 2
				}
			case name == "env" && envOpt(a.s, "--split-string", 'S'):
				// env -S splits one string into the command and its args.
				val := ""
				if k := strings.IndexByte(a.s, '='); k >= 0 && strings.HasPrefix(a.s, "--") {
					val = a.s[k+1:]
					i++
				} else if _, v, attached, _ := clusterValue(a.s, spec.valueFlags); attached && !strings.HasPrefix(a.s, "--") {
					val = v
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
			case name == "command" && isShortFlags(a.s) && strings.ContainsAny(a.s, "vV"):
				// command -v only looks the name up.
				return []arg{{s: "command", lit: true}, a}, floor, context
			case name == "time" && (a.s == "-o" || a.s == "--output") && i+1 < len(rest):
				floor = floor.max(writeTargetStatic(rest[i+1]))
				i += 2
			case name == "nice" && len(a.s) > 1 && a.s[0] == '-' && isDigits(strings.TrimPrefix(a.s[1:], "-")):
				i++
			case strings.HasPrefix(a.s, "--"):
				if takesValue(a.s, spec.valueFlags) {
					i += 2
				} else {
					i++
				}
			case strings.HasPrefix(a.s, "-") && len(a.s) > 1:
				if _, _, attached, ok := clusterValue(a.s, spec.valueFlags); ok && !attached {
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
				return []arg{{s: "echo", lit: true}}, floor, context
			default:
				return args[:1], floor, context
			}
		}
		if spec.joined {
			// watch gives its operands, joined by spaces, to sh -c.
			script := arg{lit: true}
			parts := make([]string, len(rest))
			for k, r := range rest {
				parts[k] = r.s
				script.lit = script.lit && r.lit
				script.dl = script.dl || r.dl
			}
			script.s = strings.Join(parts, " ")
			return []arg{{s: "sh", lit: true}, {s: "-c", lit: true}, script}, floor, context
		}
		args = rest
	}
	return args, floor, context
}

// envOpt reports whether s is env's option long (or an abbreviation of at
// least two letters) or, in a cluster of short options, letter.
func envOpt(s, long string, letter byte) bool {
	if strings.HasPrefix(s, "--") {
		return longOpt(s, long, 4)
	}
	l, _, _, ok := clusterValue(s, wrappers["env"].valueFlags)
	return ok && l == letter
}

func hasWord(args []arg, w string) bool {
	for _, a := range args {
		if a.lit && a.s == w {
			return true
		}
	}
	return false
}

// dashCommand finds the shell command of su -c, script -qc, flock -c and
// similar wrappers.
func dashCommand(rest []arg) (arg, bool) {
	for i, a := range rest {
		if !a.lit {
			continue
		}
		if a.s == "--" {
			break
		}
		if v, ok := strings.CutPrefix(a.s, "--command="); ok {
			return arg{s: v, lit: true}, true
		}
		if a.s == "--command" || (isShortFlags(a.s) && strings.HasSuffix(a.s, "c")) {
			if i+1 < len(rest) {
				return rest[i+1], true
			}
			return arg{}, false
		}
		if v, ok := strings.CutPrefix(a.s, "-c"); ok && v != "" {
			return arg{s: v, lit: true}, true
		}
	}
	return arg{}, false
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
	if name == "source" || name == "." {
		return len(args) > 1 && args[1].lit && (args[1].s == "/dev/stdin" || args[1].s == "/dev/fd/0")
	}
	if !shells[name] && !interpreters[name] && !strings.HasPrefix(name, "python") {
		return false
	}
	for _, a := range args[1:] {
		if !a.lit {
			return true
		}
		if a.s == "-" || a.s == "-s" || a.s == "/dev/stdin" || a.s == "/dev/fd/0" {
			return true
		}
		if !strings.HasPrefix(a.s, "-") {
			return false
		}
		if a.s == "-c" || (a.s == "-e" && !shells[name]) || (shells[name] && strings.HasPrefix(a.s, "-") && !strings.HasPrefix(a.s, "--") && strings.Contains(a.s, "c")) {
			return false
		}
	}
	return true
}
