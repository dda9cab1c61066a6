// Package gitsnap takes git snapshots of a workspace so that a whole agent
// turn can be undone (/undo) and the workspace's changes shown (/diff).
//
// A snapshot is a commit object holding the workspace's files — tracked and
// untracked, ignored ones excluded — built with a temporary index
// (GIT_INDEX_FILE), `git add -A`, `git write-tree` and a commit object
// (written here as a loose object, or by `git commit-tree`). The
// user's HEAD, branches, index, stash and working tree are never touched; the
// only ref written is refs/coder-nvim/snapshots/<commit>, which keeps the
// snapshot from being pruned by `git gc` (Forget deletes it).
//
// Take a snapshot at the start and at the end of every turn; Undo(before,
// after) then restores what that turn changed, sparing files the user edited
// since.
//
// The workspace root may be a subdirectory of the work tree: snapshots, diffs
// and undo are limited to it, and paths in results are relative to it
// (slash-separated). The session store (.coder/sessions under the root) is
// always left out, so undo never rewinds the session history itself.
//
// Limits, by design: a snapshot cannot tell who wrote a file during the
// turn, so a file the user created while the turn ran (not ignored) is
// undone with the turn. Files inside nested repositories and submodules are
// not in snapshots (a nested repository without a commit is recorded as a
// placeholder gitlink) and are never written or removed. Contents pass
// through git's built-in conversions both ways (core.autocrlf, eol/text
// attributes), so with an eol conversion in force a file comes back as `git
// checkout` would write it, which may differ in line endings from the bytes
// it had. No program a configuration names runs: clean/smudge/process
// filters (LFS included) and diff drivers are disarmed, so a file under
// such a filter is snapshotted and restored as the bytes on disk.
package gitsnap

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/coder-nvim/coder-nvim/core/hostpath"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/coder-nvim/coder-nvim/core/proc"
)

// RefPrefix is the private ref namespace that keeps snapshots alive.
const RefPrefix = "refs/coder-nvim/snapshots/"

// sessionsDir is the session store, relative to the root; it is never
// snapshotted, so undo never rewinds the session history itself.
const sessionsDir = ".coder/sessions"

// excluded are pathspecs (relative to the root) never snapshotted.
var excluded = []string{":(exclude)" + sessionsDir}

// Identity used for snapshot commits, so that user config is not needed.
const (
	authorName  = "coder-nvim"
	authorEmail = "coder-nvim@localhost"
)

// globalArgs make git's output stable and keep it from running anything a
// repository (or any config) names: an implicit bare repository the model
// wrote into a plain directory is not one (safe.bareRepository), and no
// hooks, pager, editor, fsmonitor daemon, ssh or askpass program, external
// diff or auto gc. Command-line settings take precedence over every config
// file. Filter and diff drivers are per name: repo.guard empties those the
// configuration defines.
var globalArgs = []string{
	"-c", "safe.bareRepository=explicit",
	"-c", "core.quotepath=off",
	"-c", "core.hooksPath=" + os.DevNull,
	"-c", "core.pager=cat",
	"-c", "core.editor=false",
	"-c", "sequence.editor=false",
	"-c", "core.fsmonitor=false",
	"-c", "core.sshCommand=false",
	"-c", "core.askPass=false",
	"-c", "credential.helper=",
	"-c", "protocol.allow=never",
	"-c", "diff.external=",
	"-c", "gpg.program=false",
	"-c", "core.safecrlf=false",
	"-c", "color.ui=false",
	"-c", "gc.auto=0",
	"-c", "maintenance.auto=false",
	"-c", "advice.addEmbeddedRepo=false",
}

// driverKey matches the configuration keys that name a program per
// driver: clean/smudge/process filters (run by add, status, checkout and
// cat-file --filters) and diff textconv/command drivers.
var driverKey = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(filter\.(.+)\.(clean|smudge|process|required)|diff\.(.+)\.(textconv|command))$`)
})

// driverGuard returns -c settings that disarm every filter and diff driver
// the configuration seen from dir defines, so that no program a repository
// configures (.git/config, an include) runs in the host's git calls. It
// also returns the configuration files those settings came from (stamp), so
// that a session can keep the guard until one of them changes, and whether
// the repository wants objects written with shared permissions.
func driverGuard(ctx context.Context, prog gitProg, dir string, env []string) (guard []string, cfg configInfo, err error) {
	out, err := run(ctx, prog, dir, runOpts{okExit: 1, env: env}, "config", "--null", "--show-origin", "--list")
	if err != nil {
		return nil, cfg, fmt.Errorf("reading the repository's filter and diff drivers: %w", err)
	}
	seen := map[string]bool{}
	recs := splitZ(out)
	for i := 0; i+1 < len(recs); i += 2 {
		origin := recs[i]
		key, value, _ := strings.Cut(recs[i+1], "\n")
		cfg.note(dir, origin, key, value)
		m := driverKey().FindStringSubmatch(key)
		switch {
		case m == nil:
		case m[2] != "" && !seen["filter."+m[2]]:
			seen["filter."+m[2]] = true
			for _, k := range []string{"clean", "smudge", "process"} {
				guard = append(guard, "-c", "filter."+m[2]+"."+k+"=")
			}
			guard = append(guard, "-c", "filter."+m[2]+".required=false")
		case m[4] != "" && !seen["diff."+m[4]]:
			seen["diff."+m[4]] = true
			guard = append(guard, "-c", "diff."+m[4]+".textconv=", "-c", "diff."+m[4]+".command=")
		}
	}
	if len(recs)%2 != 0 {
		cfg.uncacheable = true
	}
	return guard, cfg, nil
}

// repo is a workspace root inside a git work tree.
type repo struct {
	prog   gitProg
	root   string // absolute workspace root, the cwd of every command
	top    string // the work tree's top level
	prefix string // root relative to top, "" or ending in "/"
	// fileMode is core.fileMode: whether git tracks the executable bit.
	// Only Undo reads it.
	fileMode bool
	// disk is the workspace root opened for Undo's writes, nil otherwise.
	disk *os.Root
	// guard disarms the filter and diff drivers the configuration
	// defines (driverGuard); it goes before every command's own args.
	guard []string
	// env points git at a shadow repository (shadow.go); nil in a git
	// work tree, where git finds the repository from the root.
	env []string
	// What one rev-parse tells besides (facts), and what the
	// configuration says (cfg); a Repo keeps both for a session.
	facts repoFacts
	cfg   configInfo
}

// repoFacts are the repository's paths and object format, all absolute.
type repoFacts struct {
	gitDir, commonDir string
	index, objects    string
	// hashLen is the object id length in bytes (20 for sha1, 32 for
	// sha256), 0 when git did not say.
	hashLen int
}

type runOpts struct {
	env   []string
	stdin io.Reader
	dir   string // defaults to the repo root
	// okExit is an exit code that means "nothing found" rather than
	// failure (check-ignore exits 1 when no path is ignored).
	okExit int
}

func run(ctx context.Context, prog gitProg, dir string, o runOpts, args ...string) ([]byte, error) {
	if prog.bin == "" {
		return nil, errNoGit
	}
	cmd := exec.CommandContext(ctx, prog.bin, append(slicesClone(globalArgs), args...)...)
	cmd.Dir = dir
	cmd.Env = append(cleanEnv(os.Environ()),
		"PATH="+prog.path, // what git starts in turn: never the workspace's
		"GIT_TERMINAL_PROMPT=0",
		"GIT_OPTIONAL_LOCKS=0", // status-like reads must not rewrite the user's index
		// git's messages are read (addAll): untranslated, whatever the
		// user's locale.
		"LC_ALL=C",
		"GIT_PAGER=cat",
		"GIT_EXTERNAL_DIFF=",
		"GIT_AUTHOR_NAME="+authorName,
		"GIT_AUTHOR_EMAIL="+authorEmail,
		"GIT_COMMITTER_NAME="+authorName,
		"GIT_COMMITTER_EMAIL="+authorEmail,
	)
	cmd.Env = append(cmd.Env, o.env...)
	cmd.Stdin = o.stdin
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := proc.Run(cmd); err != nil {
		var exit *exec.ExitError
		if o.okExit != 0 && errors.As(err, &exit) && exit.ExitCode() == o.okExit {
			return stdout.Bytes(), nil
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("git %s: %w", subcommand(args), ctx.Err())
		}
		return nil, &gitError{cmd: subcommand(args), stderr: strings.TrimSpace(stderr.String()), err: err}
	}
	return stdout.Bytes(), nil
}

// gitError is a git command that failed, with what it wrote to stderr.
type gitError struct {
	cmd    string
	stderr string
	err    error
}

func (e *gitError) Error() string {
	if e.stderr == "" {
		return fmt.Sprintf("git %s: %v", e.cmd, e.err)
	}
	return fmt.Sprintf("git %s: %s (%v)", e.cmd, e.stderr, e.err)
}

func (e *gitError) Unwrap() error { return e.err }

// subcommand is the git command args run, past the -c settings.
func subcommand(args []string) string {
	for i := 0; i < len(args); i++ {
		if args[i] != "-c" {
			return args[i]
		}
		i++
	}
	return "git"
}

// repoEnv are variables that point git at another repository, index or
// object store, or change how pathspecs read. They leak in when the host is
// started from a git hook, `git commit`'s editor or a shell that exported
// them; the snapshot commands find the repository from their directory.
var repoEnv = map[string]bool{
	"GIT_DIR": true, "GIT_WORK_TREE": true, "GIT_INDEX_FILE": true,
	"GIT_OBJECT_DIRECTORY": true, "GIT_ALTERNATE_OBJECT_DIRECTORIES": true,
	"GIT_COMMON_DIR": true, "GIT_NAMESPACE": true, "GIT_PREFIX": true,
	"GIT_IMPLICIT_WORK_TREE": true, "GIT_GRAFT_FILE": true, "GIT_SHALLOW_FILE": true,
	"GIT_REPLACE_REF_BASE": true, "GIT_QUARANTINE_PATH": true,
	"GIT_LITERAL_PATHSPECS": true, "GIT_GLOB_PATHSPECS": true,
	"GIT_NOGLOB_PATHSPECS": true, "GIT_ICASE_PATHSPECS": true,
}

// cleanEnv drops repoEnv from env.
func cleanEnv(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if !repoEnv[k] {
			out = append(out, kv)
		}
	}
	return out
}

func slicesClone(s []string) []string { return append([]string(nil), s...) }

func (r *repo) git(ctx context.Context, o runOpts, args ...string) ([]byte, error) {
	dir := o.dir
	if dir == "" {
		dir = r.root
	}
	o.env = append(slicesClone(r.env), o.env...)
	return run(ctx, r.prog, dir, o, append(slicesClone(r.guard), args...)...)
}

// Available reports whether git is installed and root is inside a git work
// tree; the error says why not in words a user understands.
func Available(ctx context.Context, root string) error {
	_, err := open(ctx, hostGit(root), root)
	return err
}

// gitProg is the git the host runs and the PATH it runs with, from
// hostpath: never a git the workspace put on PATH.
type gitProg struct{ bin, path string }

func progOf(p hostpath.Programs) gitProg { return gitProg{bin: p.Git, path: p.Path} }

// hostGit resolves git for root, for the package-level functions; a
// session's Repo is given its programs once (UseGit).
func hostGit(root string) gitProg {
	abs, _ := filepath.Abs(root)
	return progOf(hostpath.Resolve(os.Getenv("PATH"), abs))
}

var errNoGit = errors.New("git is not installed (not found in PATH)")

// errNotRepo: the root is in no git work tree (a shadow repository may
// serve instead).
var errNotRepo = errors.New("not a git work tree")

func open(ctx context.Context, prog gitProg, root string) (*repo, error) {
	return openEnv(ctx, prog, root, nil)
}

// openEnv is open with env pointing git at the repository (shadow.go).
func openEnv(ctx context.Context, prog gitProg, root string, env []string) (*repo, error) {
	if prog.bin == "" {
		return nil, errNoGit
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", root, err)
	}
	if fi, err := os.Stat(abs); err != nil {
		return nil, fmt.Errorf("workspace %s: %w", abs, err)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("workspace %s is not a directory", abs)
	}
	// One rev-parse for every fact the session keeps; --show-prefix
	// comes last as its line may be empty.
	out, err := run(ctx, prog, abs, runOpts{env: env}, "rev-parse", "--is-inside-work-tree", "--show-toplevel",
		"--absolute-git-dir", "--git-common-dir", "--git-path", "index", "--git-path", "objects",
		"--show-object-format", "--show-prefix")
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%s is not inside a git repository: %w (%w)", abs, errNotRepo, err)
	}
	lines := strings.Split(string(out), "\n")
	if len(lines) < 1 || lines[0] != "true" {
		return nil, fmt.Errorf("%s is not inside a git work tree: %w", abs, errNotRepo)
	}
	if len(lines) < 8 {
		return nil, fmt.Errorf("%s: unexpected answer from git rev-parse: %q", abs, out)
	}
	inRoot := func(p string) string {
		if !filepath.IsAbs(p) {
			p = filepath.Join(abs, p)
		}
		return p
	}
	facts := repoFacts{gitDir: inRoot(lines[2]), commonDir: inRoot(lines[3]), index: inRoot(lines[4]), objects: inRoot(lines[5])}
	switch lines[6] {
	case "sha1":
		facts.hashLen = 20
	case "sha256":
		facts.hashLen = 32
	}
	guard, cfg, err := driverGuard(ctx, prog, abs, env)
	if err != nil {
		return nil, err
	}
	return &repo{prog: prog, root: abs, top: lines[1], prefix: lines[7], guard: guard, env: env, facts: facts, cfg: cfg}, nil
}

var commitRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-f]{40}([0-9a-f]{24})?$`) })

// commit checks that id names a commit; ids come from session files, so they
// are validated before reaching git's command line.
func (r *repo) commit(ctx context.Context, id string) error {
	if !commitRE().MatchString(id) {
		return fmt.Errorf("invalid snapshot id %q", id)
	}
	if _, err := r.git(ctx, runOpts{}, "cat-file", "-e", id+"^{commit}"); err != nil {
		return fmt.Errorf("snapshot %s is not in this repository", id)
	}
	return nil
}

// splitZ splits NUL-terminated output.
func splitZ(b []byte) []string {
	s := strings.TrimSuffix(string(b), "\x00")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\x00")
}
