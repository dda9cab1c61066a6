package shellcheck

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Reads outside the workspace and foreign repositories.
//
// A read-only command may still show what the file tools refuse to
// (cat ~/.ssh/id_rsa, head /etc/shadow): the walker lists what such a
// command reads outside the workspace in Command.Outside and the policy
// asks. Paths are resolved from the tracked working directory; where the
// workspace exists on disk, symbolic links are resolved too. Anything that
// cannot be resolved statically ($VAR, $(...), brace expansions, xargs
// operands) counts as outside.

// nonReaders are read-only commands whose operands are not files.
var nonReaders = set("echo", "printf", "true", "false", ":", "pwd", "seq", "yes", "sleep", "expr", "factor",
	"basename", "dirname", "which", "whereis", "type", "whoami", "id", "uname", "arch", "nproc", "date", "cal",
	"tty", "locale", "getconf", "exit", "return", "shift", "wait", "cd", "pushd", "popd", "dirs", "help", "groups",
	"who", "uptime", "free", "ps", "printenv", "env", "numfmt", "hostname", "test", "[", "command", "read",
	"mapfile", "readarray", "tr", "lscpu", "lsblk", "vmstat")

// patternFirst are readers whose first operand is a pattern or program,
// unless one was given with -e / -f (or --regexp, --expression, --file).
var patternFirst = set("grep", "egrep", "fgrep", "zgrep", "rg", "ag", "ack", "sed", "awk", "gawk", "mawk", "nawk", "jq", "yq", "look")

// valueLetters are short options whose separate value is not a path
// (cut -d /, sort -t /, grep -e /x/).
var valueLetters = map[string]string{
	"cut": "bcdf", "sort": "tk", "paste": "d", "join": "t", "column": "s",
	"grep": "eABCm", "egrep": "eABCm", "fgrep": "eABCm", "zgrep": "eABCm", "rg": "eABCmMtT",
	"sed": "el", "awk": "Fv", "gawk": "Fv", "mawk": "Fv", "nawk": "Fv", "head": "nc", "tail": "nc",
}

// safeDevices may be read wherever the workspace is.
var safeDevices = set("/dev/null", "/dev/stdin", "/dev/stdout", "/dev/stderr", "/dev/zero", "/dev/random", "/dev/urandom", "/dev/tty")

func isProcSubst(word *syntax.Word) bool {
	if word == nil || len(word.Parts) != 1 {
		return false
	}
	_, ok := word.Parts[0].(*syntax.ProcSubst)
	return ok
}

// redirectReads lists the input redirections of a statement that read
// outside the workspace.
func (w *walker) redirectReads(redirs []*syntax.Redirect) []string {
	var out []string
	for _, r := range redirs {
		if r.Op != syntax.RdrIn && r.Op != syntax.RdrInOut {
			continue
		}
		if isProcSubst(r.Word) {
			continue
		}
		p, ok := wordLit(r.Word)
		if !ok {
			out = append(out, "< "+w.source(r.Word)+" (cannot be resolved statically)")
			continue
		}
		if w.outsidePath(p) {
			out = append(out, "< "+p)
		}
	}
	return out
}

// outsideReads lists what the read-only command inner (args after
// unwrapping all, the words as written) reads outside the workspace.
func (w *walker) outsideReads(all, inner []arg) []string {
	out := append([]string(nil), w.stdinReads...)
	if len(inner) == 0 || !inner[0].lit {
		return out
	}
	name := filepath.Base(inner[0].s)
	if nonReaders[name] {
		return out
	}
	if viaXargs(all, inner) {
		out = append(out, "operands that xargs reads from standard input")
	}
	if name != "git" && !w.cwdInside() {
		// ls, find, grep -r and friends read the current directory.
		where := w.cwd
		if where == "" || where == homeDir {
			where = "a directory that cannot be resolved statically"
		}
		out = append(out, "files in "+where)
	}
	pattern := patternFirst[name]
	explicit := false // -e / -f gave the pattern: every operand is a file
	for i := 1; i < len(inner); i++ {
		a := inner[i]
		switch {
		case a.proc:
			continue
		case !a.lit:
			out = append(out, a.s+" (cannot be resolved statically)")
			continue
		}
		s := a.s
		if s == "-" || s == "--" || s == ";" || s == "+" || s == "{}" {
			continue
		}
		if strings.HasPrefix(s, "-") {
			if pattern && (longOpt(s, "--regexp", 4) || longOpt(s, "--expression", 4) || longOpt(s, "--file", 4) ||
				longOpt(s, "--from-file", 4) || (isShortFlags(s) && strings.ContainsAny(s, "ef"))) {
				explicit = true
			}
			if v, ok := optValue(s); ok && strings.HasPrefix(s, "--") {
				if w.outsidePath(v) {
					out = append(out, s)
				}
				continue
			}
			if isShortFlags(s) {
				if len(s) == 2 && strings.Contains(valueLetters[name], s[1:]) {
					i++ // the value is not a path
					continue
				}
				// An attached value: -f/etc/patterns, -C~/x.
				if k := strings.IndexAny(s[2:], "/~."); k >= 0 {
					if v := s[2+k:]; v != "/" && w.outsidePath(v) {
						out = append(out, s)
					}
				}
			}
			continue
		}
		if pattern && !explicit {
			pattern = false // the pattern operand
			continue
		}
		if w.outsidePath(s) {
			out = append(out, s)
		}
	}
	return out
}

// viaXargs reports whether the wrappers in front of inner include xargs,
// which adds operands read from standard input.
func viaXargs(all, inner []arg) bool {
	for _, a := range all[:max(0, len(all)-len(inner))] {
		if a.lit && filepath.Base(a.s) == "xargs" {
			return true
		}
	}
	return false
}

// cwdInside reports whether the tracked directory is known and inside
// the workspace.
func (w *walker) cwdInside() bool {
	if w.root == "" {
		return !w.moved
	}
	return w.cwd != "" && w.cwd != homeDir && !w.outsideAbs(w.cwd)
}

// outsidePath reports whether reading p may reach outside the workspace.
func (w *walker) outsidePath(p string) bool {
	switch {
	case p == "" || p == "-":
		return false
	case safeDevices[p] || strings.HasPrefix(p, "/dev/fd/"):
		return false
	case strings.HasPrefix(p, "~"):
		return true
	case strings.Contains(p, "{") && strings.Contains(p, "}") && strings.ContainsAny(p, ",."):
		return true // brace expansion: {..,x}/secret
	}
	for _, part := range strings.Split(p, "/") {
		// .* and .? match .. in older bash.
		if len(part) > 1 && part[0] == '.' && strings.ContainsAny(part[1:], "*?[") {
			return true
		}
	}
	if filepath.IsAbs(p) {
		return w.outsideAbs(p)
	}
	if w.root == "" {
		return w.moved || p == ".." || strings.HasPrefix(filepath.Clean(p), "../")
	}
	if w.cwd == "" || w.cwd == homeDir {
		return true
	}
	return w.outsideAbs(w.cwd + "/" + p)
}

// outsideAbs reports whether the absolute path p (not yet cleaned: a
// symlink before .. counts) is outside the workspace.
func (w *walker) outsideAbs(p string) bool {
	if w.root == "" {
		return true
	}
	if !within(w.root, filepath.Clean(p)) {
		return true
	}
	return !within(w.resolvedRoot(), realPath(p))
}

func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

func (w *walker) resolvedRoot() string {
	if w.realRoot == "" {
		w.realRoot = realPath(w.root)
	}
	return w.realRoot
}

// realPath resolves the symbolic links of the longest existing prefix of
// the absolute path p, as the kernel would (a link before .. is followed
// first), and appends the rest lexically.
func realPath(p string) string {
	parts := strings.Split(p, "/")
	for n := len(parts); n > 1; n-- {
		prefix := strings.Join(parts[:n], "/")
		if prefix == "" {
			break
		}
		if r, err := filepath.EvalSymlinks(prefix); err == nil {
			return filepath.Join(append([]string{r}, parts[n:]...)...)
		}
	}
	return filepath.Clean(p)
}

// ownRepository returns why git run in dir might not use the workspace's
// own repository, or "" when it will. Git looks for a repository in dir
// and each parent: a .git entry, or a bare repository (HEAD beside objects
// and refs). Any .git or HEAD below the workspace root, or a HEAD at the
// root without .git, may be a repository the model wrote.
func (w *walker) ownRepository(dir string) string {
	root := w.resolvedRoot()
	real := realPath(dir)
	if !within(root, real) {
		return "git runs in " + dir + ", outside the workspace"
	}
	for d := real; ; d = filepath.Dir(d) {
		_, gitErr := os.Lstat(filepath.Join(d, ".git"))
		_, headErr := os.Lstat(filepath.Join(d, "HEAD"))
		if d == root {
			if gitErr != nil && headErr == nil {
				return "the workspace root looks like a bare repository (HEAD without .git), whose configuration can run commands"
			}
			return ""
		}
		if gitErr == nil || headErr == nil {
			rel, _ := filepath.Rel(root, d)
			return "git runs in " + rel + ", which holds another repository (its configuration can run commands)"
		}
		if d == filepath.Dir(d) {
			return "git runs outside the workspace"
		}
	}
}

// ReadOnlyEnv is the environment under which a read-only verdict on git
// holds: added to the environment of bash commands allowed without asking
// as read-only, it keeps git from loading a repository the model wrote
// (implicit bare repositories) and overrides, at command-line precedence,
// every configuration key that makes read-only git run a program. Hooks,
// network transports, signature and credential programs are off.
func ReadOnlyEnv() []string {
	kv := [][2]string{
		{"safe.bareRepository", "explicit"},
		{"core.fsmonitor", "false"},
		{"core.hooksPath", "/dev/null"},
		{"core.pager", "cat"},
		{"core.editor", "false"},
		{"sequence.editor", "false"},
		{"core.sshCommand", "false"},
		{"core.askPass", "false"},
		{"credential.helper", ""},
		{"protocol.allow", "never"},
		{"diff.external", ""},
		{"gpg.program", "false"},
		{"gpg.ssh.program", "false"},
		{"gpg.x509.program", "false"},
		{"log.showSignature", "false"},
		{"gc.auto", "0"},
		{"maintenance.auto", "false"},
	}
	env := []string{"GIT_CONFIG_COUNT=" + strconv.Itoa(len(kv)), "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0", "GIT_EXTERNAL_DIFF="}
	for i, p := range kv {
		env = append(env, "GIT_CONFIG_KEY_"+strconv.Itoa(i)+"="+p[0], "GIT_CONFIG_VALUE_"+strconv.Itoa(i)+"="+p[1])
	}
	return env
}
