package shellcheck

import (
	"path/filepath"
	"strings"
)

// gitGlobalValue are git options before the subcommand that take a value.
var gitGlobalValue = set("-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--exec-path", "--super-prefix", "--list-cmds")

// gitSubcommand skips git's global options and returns the subcommand index.
func gitSubcommand(rest []string) (int, bool) {
	usesConfig := false
	i := 0
	for i < len(rest) {
		a := rest[i]
		if !strings.HasPrefix(a, "-") {
			break
		}
		if a == "--exec-path" && i+1 == len(rest) {
			i++
			break
		}
		if a == "-c" || strings.HasPrefix(a, "--config-env") || strings.HasPrefix(a, "--exec-path=") {
			// Configuration and the exec path choose programs git runs
			// (pagers, diff drivers, hooks, remote helpers).
			usesConfig = true
		}
		if gitGlobalValue[a] {
			i += 2
			continue
		}
		i++
	}
	return i, usesConfig
}

var gitReadOnly = set("status", "diff", "log", "show", "blame", "shortlog", "describe", "rev-parse",
	"rev-list", "ls-files", "ls-tree", "cat-file", "grep", "merge-base", "name-rev",
	"show-ref", "count-objects", "whatchanged", "for-each-ref", "cherry", "version", "help", "var",
	"check-ignore", "check-attr", "diff-tree", "diff-files", "diff-index", "annotate", "show-branch", "range-diff")

var gitUnknown = effect{Unknown, "git command that changes the repository"}

func (w *walker) git(rest []arg) effect {
	words := make([]string, len(rest))
	for i, a := range rest {
		words[i] = a.s
	}
	i, usesConfig := gitSubcommand(words)
	if i >= len(rest) {
		if usesConfig {
			return effect{Unknown, "git -c or --exec-path can make git run other commands"}
		}
		return readOnly
	}
	if !rest[i].lit {
		return effect{Unknown, "git subcommand cannot be resolved statically"}
	}
	sub := rest[i].s
	args := rest[i+1:]
	e := w.gitSub(sub, args)
	if usesConfig && e.class == ReadOnly {
		return effect{Unknown, "git -c or --exec-path can make git run other commands"}
	}
	if e.class == ReadOnly {
		// Read-only only for the workspace's own repository: another one
		// has a configuration the model may have written (core.fsmonitor,
		// hooks), and git would run what it names.
		e = e.max(w.gitRepository(rest[:i]))
	}
	return e
}

// gitRepoSelect are the global options that choose the repository or
// work tree some other way than -C.
var gitRepoSelect = []string{"--git-dir", "--work-tree", "--namespace", "--bare", "--super-prefix"}

// gitRepository checks that git, given its global options, runs on the
// workspace's own repository: in a directory inside the workspace where
// discovery finds nothing but the workspace's .git (see ownRepository).
func (w *walker) gitRepository(global []arg) effect {
	dir, moved := w.cwd, w.moved
	for k := 0; k < len(global); k++ {
		a := global[k]
		if !a.lit {
			return effect{Unknown, "git option `" + a.s + "` cannot be resolved statically"}
		}
		for _, o := range gitRepoSelect {
			if a.s == o || strings.HasPrefix(a.s, o+"=") {
				return effect{Unknown, "git " + o + " selects another repository, whose configuration can run commands"}
			}
		}
		if a.s != "-C" {
			if gitGlobalValue[a.s] {
				k++
			}
			continue
		}
		if k+1 >= len(global) || !global[k+1].lit {
			return effect{Unknown, "git -C with a directory that cannot be resolved statically"}
		}
		k++
		moved = true
		switch d := global[k].s; {
		case d == "" || d == ".":
		case strings.HasPrefix(d, "~") || dir == homeDir:
			dir = ""
		case filepath.IsAbs(d):
			dir = filepath.Clean(d)
		case dir != "":
			dir = filepath.Join(dir, d)
		}
	}
	if w.root == "" {
		if moved {
			return effect{Unknown, "git runs in another directory, which may hold another repository"}
		}
		return readOnly
	}
	if dir == "" || dir == homeDir {
		return effect{Unknown, "git runs in a directory that cannot be resolved statically, which may hold another repository"}
	}
	if why := w.ownRepository(dir); why != "" {
		return effect{Unknown, why}
	}
	return readOnly
}

func hasArg(args []arg, pred func(string) bool) bool {
	for _, a := range args {
		if a.lit && pred(a.s) {
			return true
		}
	}
	return false
}

func eq(words ...string) func(string) bool {
	return func(s string) bool {
		for _, w := range words {
			if s == w {
				return true
			}
		}
		return false
	}
}

func shortHas(letters string) func(string) bool {
	return func(s string) bool { return isShortFlags(s) && strings.ContainsAny(s[1:], letters) }
}

// longAny reports whether some argument is one of the long options (or
// an abbreviation git accepts, of at least min characters).
func longAny(args []arg, min int, opts ...string) bool {
	for _, a := range args {
		for _, o := range opts {
			if a.lit && longOpt(a.s, o, min) {
				return true
			}
		}
	}
	return false
}

// gitSub is the table of git subcommands: what each does with its
// arguments, for the workspace's own repository.
func (w *walker) gitSub(sub string, args []arg) effect {
	if gitReadOnly[sub] {
		return w.gitInspect(sub, args)
	}
	if !allLit(args) {
		switch sub {
		case "push", "reset", "clean", "checkout", "restore", "branch", "stash":
			// fall through to the literal checks; unknown at least
		default:
			return gitUnknown
		}
	}
	switch sub {
	case "branch":
		return gitBranch(args)
	case "tag":
		if len(args) == 0 || hasArg(args, eq("-l", "--list")) && !hasArg(args, eq("-d", "--delete", "-a", "-s", "-f")) {
			return readOnly
		}
		return gitUnknown
	case "remote":
		if len(args) == 0 || (len(args) == 1 && eq("-v", "--verbose")(args[0].s)) || args[0].s == "get-url" ||
			(args[0].s == "show" && hasArg(args, eq("-n"))) {
			return readOnly
		}
		if args[0].s == "show" {
			return effect{Unknown, "git remote show contacts the remote (network access; -n does not)"}
		}
		return gitUnknown
	case "ls-remote":
		// Network access like curl; a local path would run upload-pack in
		// a repository the model may have written.
		return effect{Unknown, "git ls-remote contacts a remote (network access)"}
	case "stash":
		if len(args) > 0 {
			switch args[0].s {
			case "list", "show":
				return readOnly
			case "drop", "clear":
				return effect{Dangerous, "git stash " + args[0].s + " discards stashed changes"}
			}
		}
		return gitUnknown
	case "config":
		if hasArg(args, eq("--get", "--get-all", "--get-regexp", "--list", "-l", "--get-urlmatch")) || (len(args) > 0 && (args[0].s == "get" || args[0].s == "list")) {
			return readOnly
		}
		return gitUnknown
	case "worktree":
		if len(args) > 0 && args[0].s == "list" {
			return readOnly
		}
		if len(args) > 0 && args[0].s == "remove" && (hasArg(args, shortHas("f")) || longAny(args, 4, "--force")) {
			return effect{Dangerous, "git worktree remove --force discards changes"}
		}
		return gitUnknown
	case "submodule":
		if len(args) > 0 && args[0].s == "status" {
			return readOnly
		}
		return gitUnknown
	case "reflog":
		if len(args) == 0 || args[0].s == "show" {
			return readOnly
		}
		if args[0].s == "expire" || args[0].s == "delete" {
			return effect{Dangerous, "git reflog " + args[0].s + " drops recovery points"}
		}
		return gitUnknown
	case "reset":
		if longAny(args, 4, "--hard", "--merge", "--keep") {
			return effect{Dangerous, "git reset --hard discards uncommitted changes"}
		}
		return gitUnknown
	case "clean":
		if hasArg(args, eq("--dry-run")) || hasArg(args, shortHas("n")) {
			return readOnly
		}
		return effect{Dangerous, "git clean deletes untracked files"}
	case "push":
		return gitPush(args)
	case "checkout":
		if hasArg(args, eq("--", ".", "--ours", "--theirs")) || hasArg(args, shortHas("f")) || longAny(args, 4, "--force") {
			return effect{Dangerous, "git checkout of paths discards uncommitted changes"}
		}
		return gitUnknown
	case "restore":
		staged := hasArg(args, eq("--staged", "-S"))
		worktree := hasArg(args, eq("--worktree", "-W"))
		if staged && !worktree {
			return gitUnknown
		}
		return effect{Dangerous, "git restore discards working-tree changes"}
	case "switch":
		if hasArg(args, shortHas("f")) || longAny(args, 4, "--discard-changes", "--force") {
			return effect{Dangerous, "git switch --discard-changes discards uncommitted changes"}
		}
		return gitUnknown
	case "filter-branch", "filter-repo":
		return effect{Dangerous, "git " + sub + " rewrites history"}
	case "update-ref":
		if hasArg(args, eq("-d")) {
			return effect{Dangerous, "git update-ref -d deletes a ref"}
		}
		return gitUnknown
	case "gc", "prune":
		if hasArg(args, func(s string) bool { return s == "--prune=now" || s == "--prune=all" }) || sub == "prune" {
			return effect{Dangerous, "git " + sub + " drops unreachable objects"}
		}
		return gitUnknown
	}
	return gitUnknown
}

// gitInspect handles the subcommands that only read the repository:
// still, some options write a file or run a program.
func (w *walker) gitInspect(sub string, args []arg) effect {
	for i, a := range args {
		if !a.lit {
			// Paths and revisions are usually literal; an expansion could hide --output.
			return notLiteral
		}
		switch {
		case longOpt(a.s, "--output", 3): // git accepts abbreviations: --outp=x
			v, ok := optValue(a.s)
			return w.optionFile(v, ok, args, i, effect{Unknown, "git --output writes a file"})
		case longOpt(a.s, "--ext-diff", 4):
			return effect{Unknown, "git --ext-diff runs an external diff program"}
		case sub == "grep" && (longOpt(a.s, "--open-files-in-pager", 4) || (isShortFlags(a.s) && strings.Contains(a.s, "O"))):
			return effect{Unknown, "git grep -O opens a pager"}
		case sub == "help" && (longOpt(a.s, "--web", 3) || longOpt(a.s, "--info", 3) || (isShortFlags(a.s) && strings.ContainsAny(a.s, "wi"))):
			return effect{Unknown, "git help --web starts a browser"}
		}
	}
	return readOnly
}

// gitBranch is read-only only when it lists branches.
func gitBranch(args []arg) effect {
	del := hasArg(args, shortHas("d")) || longAny(args, 5, "--delete")
	force := hasArg(args, shortHas("f")) || longAny(args, 4, "--force")
	if hasArg(args, shortHas("D")) || (del && force) {
		return effect{Dangerous, "git branch -D force-deletes a branch"}
	}
	list := hasArg(args, eq("--list", "-l"))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.lit {
			return gitUnknown
		}
		switch {
		case eq("--contains", "--no-contains", "--merged", "--no-merged", "--points-at", "--sort", "--format")(a.s):
			i++
		case eq("-a", "-r", "-v", "-vv", "--all", "--remotes", "--list", "-l", "--show-current", "--color", "--no-color", "--column", "--no-column", "-i", "--ignore-case", "--verbose")(a.s),
			strings.HasPrefix(a.s, "--sort="), strings.HasPrefix(a.s, "--format="), strings.HasPrefix(a.s, "--contains="),
			strings.HasPrefix(a.s, "--merged="), strings.HasPrefix(a.s, "--no-merged="), strings.HasPrefix(a.s, "--color="), strings.HasPrefix(a.s, "--points-at="):
		case !strings.HasPrefix(a.s, "-") && list:
		default:
			return effect{Unknown, "git branch creates, renames or deletes branches"}
		}
	}
	return readOnly
}

// gitPush is dangerous when it can overwrite or delete remote history.
func gitPush(args []arg) effect {
	if longAny(args, 3, "--force", "--force-with-lease", "--mirror", "--delete", "--prune") ||
		hasArg(args, shortHas("fd")) {
		return effect{Dangerous, "git push that can overwrite or delete remote history"}
	}
	ops := 0
	for _, a := range args {
		if strings.HasPrefix(a.s, "-") {
			continue
		}
		ops++
		if ops > 1 && (strings.HasPrefix(a.s, "+") || strings.HasPrefix(a.s, ":")) {
			return effect{Dangerous, "git push " + a.s + " force-pushes or deletes a remote ref"}
		}
	}
	return effect{Unknown, "git push publishes commits"}
}
