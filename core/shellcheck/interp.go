package shellcheck

import (
	"path/filepath"
	"strings"
)

// oneLiners are the options with which an interpreter runs code given on
// its command line, by interpreter; a shell's are any short-option
// cluster holding "c".
var oneLiners = map[string]map[string]bool{
	"python": set("-c"),
	"perl":   set("-e", "-E"),
	"ruby":   set("-e"),
	"node":   set("-e", "--eval", "-p", "--print"),
	"php":    set("-r", "--run", "-B", "--process-begin", "-R", "--process-code", "-E", "--process-end"),
	"lua":    set("-e"),
	"deno":   set("-e", "--eval"),
	"bun":    set("-e", "--eval", "-p", "--print"),
	"tclsh":  set(),
	"pwsh":   set("-c", "-command", "-Command", "-e", "-EncodedCommand", "-ec"),
}

// interpValueFlags are options taking a value as the next word, before
// the script: that word is not the script.
var interpValueFlags = map[string]map[string]bool{
	"python": set("-W", "-X", "-Q"),
	"perl":   set("-I", "-M", "-m", "-x"),
	"ruby":   set("-I", "-r", "-E", "-C", "-x"),
	"node":   set("-r", "--require", "--import", "--loader", "--experimental-loader", "-C", "--conditions", "--env-file", "--inspect-port", "--title", "--input-type"),
	"php":    set("-c", "-d", "-z", "-t"),
	"lua":    set("-l"),
	"deno":   set("--config", "-c", "--import-map", "--lock", "--cert", "--location", "--seed", "--env-file"),
	"bun":    set("-r", "--preload", "--cwd", "--config", "-c", "--env-file", "--tsconfig-override"),
	"shell":  set("-o", "+o", "-O", "+O", "--rcfile", "--init-file"),
	"go":     set("-C", "-tags", "-ldflags", "-gcflags", "-asmflags", "-mod", "-modfile", "-o", "-p", "-exec", "-overlay", "-pgo", "-buildmode", "-compiler", "-gccgoflags", "-installsuffix", "-pkgdir", "-toolexec", "-covermode", "-coverpkg"),
}

// interpreterFamily names the interpreter a program is ("python" for
// python3.12, "shell" for bash), "go" for `go run`; "" for others.
func interpreterFamily(args []string) string {
	base := filepath.Base(args[0])
	switch {
	case strings.HasPrefix(base, "python"):
		return "python"
	case shells[base]:
		return "shell"
	case base == "go" && len(args) > 1 && args[1] == "run":
		return "go"
	case base == "deno" && len(args) > 1 && (args[1] == "eval" || args[1] == "repl"):
		return "deno-eval"
	case (base == "deno" || base == "bun") && len(args) > 1 && args[1] != "run" && namesNoScript(args[1]):
		return "" // deno task, bun install: keyed by arity
	case interpreters[base]:
		return base
	}
	return ""
}

// interpreterKey is the "always" key of an interpreter's command: the
// interpreter, the options before the script and the script (or
// python's -m module), so that approving `python3 a.py` never covers
// `python3 -c …` or `python3 b.py`. ok is false for a program that is no
// interpreter; key is nil where nothing may be remembered: a one-liner
// (-c, -e, …), code from stdin or a REPL, a script word that is not a
// plain literal.
func interpreterKey(args []string) (key []string, ok bool) {
	family := interpreterFamily(args)
	switch family {
	case "":
		return nil, false
	case "deno-eval":
		return nil, true
	}
	key = []string{args[0]}
	i := 1
	if family == "go" || (family == "deno" || family == "bun") && len(args) > 1 && args[1] == "run" {
		key, i = append(key, args[1]), 2
	}
	values := interpValueFlags[family]
	for ; i < len(args); i++ {
		a := args[i]
		if !keyWord(a) {
			return nil, true
		}
		switch {
		case a == "-" || a == "--":
			return nil, true // code from stdin (or what follows is not known)
		case family == "shell" && strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "c"):
			return nil, true
		case oneLiners[family][a] || family != "shell" && attachedOneLiner(family, a):
			return nil, true
		case family == "python" && a == "-m":
			if i+1 >= len(args) || !keyWord(args[i+1]) {
				return nil, true
			}
			return append(key, a, args[i+1]), true
		case strings.HasPrefix(a, "-") || family == "shell" && strings.HasPrefix(a, "+"):
			key = append(key, a)
			if values[a] && i+1 < len(args) {
				i++
				key = append(key, args[i])
			}
		default:
			return append(key, a), true // the script
		}
	}
	return nil, true // no script: a REPL or stdin
}

// namesNoScript: a word that names no script (no extension, no path).
func namesNoScript(a string) bool {
	return !strings.HasPrefix(a, "-") && !strings.ContainsAny(a, "./")
}

// attachedOneLiner: `-ecode`, `--eval=code` and the like.
func attachedOneLiner(family, a string) bool {
	for o := range oneLiners[family] {
		if len(a) > len(o) && strings.HasPrefix(a, o) && (strings.HasPrefix(o, "--") && a[len(o)] == '=' || !strings.HasPrefix(o, "--") && len(o) == 2) {
			return true
		}
	}
	return false
}

// keyWord is a literal a key may hold: no expansion, quoting or
// pattern (paths are fine).
func keyWord(a string) bool {
	return a != "" && !strings.ContainsAny(a, "$`*?[]{}|;&<>()'\"\\ \t\n")
}
