package sandbox

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
)

// gitlinkWatch keeps the user's later git in the workspace from running
// what a nested repository names. The workspace's git enters a nested
// repository only through a gitlink in its index (status and diff run a
// git status there, which runs its fsmonitor and filters); the index
// and that repository are the model's to write, so no mount can keep
// them. At each confined call's end the host looks at every gitlink
// whose repository is new or changed since the session began: one whose
// own configuration holds anything but settings known to run nothing
// has its .git moved aside (to .git.refused), so that git takes the
// directory for an unpopulated submodule.
type gitlinkWatch struct {
	mu    sync.Mutex
	root  string
	index string
	// indexSig and links are as of the last look: a gitlink's path and
	// the signature of the files its repository's configuration is in.
	indexSig fileStamp
	links    map[string][]fileStamp
	// atRoot: the workspace lies below its repository's top with no
	// .git of its own; one made there is looked at like a gitlink ("").
	atRoot bool
}

// fileStamp tells whether a file changed: the change time too, which
// no command can set back.
type fileStamp struct {
	ok               bool
	size, mod, ctime int64
	ino              uint64
}

func stampOf(p string) fileStamp {
	fi, err := os.Lstat(p)
	if err != nil {
		return fileStamp{}
	}
	ino, ctime := changeStamp(fi)
	return fileStamp{ok: true, size: fi.Size(), mod: fi.ModTime().UnixNano(), ctime: ctime, ino: ino}
}

// newGitlinkWatch watches the repository l of the workspace root, its
// gitlinks as they are now taken for the user's.
// It takes that first look in the background (a git process, while the
// sandbox's launcher starts): wait must return before a command runs.
func newGitlinkWatch(ctx context.Context, root string, l gitLayout) *gitlinkWatch {
	w := &gitlinkWatch{root: root, index: filepath.Join(l.gitDir, "index"), links: map[string][]fileStamp{},
		atRoot: filepath.Dir(l.dotGit) != root}
	w.mu.Lock()
	go func() {
		defer w.mu.Unlock()
		w.indexSig = stampOf(w.index)
		if w.atRoot {
			w.links[""] = w.linkStamp("")
		}
		for _, p := range w.gitlinks(ctx) {
			w.links[p] = w.linkStamp(p)
		}
	}()
	return w
}

// wait returns once the first look is taken.
func (w *gitlinkWatch) wait() {
	if w != nil {
		w.mu.Lock()
		w.mu.Unlock() //nolint:staticcheck // an empty section: the first look holds the lock
	}
}

// check refuses what it must (see gitlinkWatch) and says what it did,
// for the model and the user; "" when nothing.
func (w *gitlinkWatch) check(ctx context.Context) string {
	if w == nil {
		return ""
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	paths := slices.Sorted(maps.Keys(w.links))
	if sig := stampOf(w.index); sig != w.indexSig {
		w.indexSig = sig
		paths = w.gitlinks(ctx)
		if w.atRoot {
			paths = append(paths, "")
		}
	}
	var refused []string
	for _, p := range paths {
		stamp := w.linkStamp(p)
		if old, ok := w.links[p]; ok && slices.Equal(old, stamp) {
			continue
		}
		if why := w.namesProgram(ctx, p); why != "" {
			if to, err := w.refuse(p); err == nil {
				refused = append(refused, fmt.Sprintf("%s (%s; moved to %s)", cmp.Or(p, "."), why, to))
				stamp = w.linkStamp(p)
			} else {
				refused = append(refused, fmt.Sprintf("%s (%s; could not be moved aside: %v)", cmp.Or(p, "."), why, err))
			}
		}
		w.links[p] = stamp
	}
	if len(refused) == 0 {
		return ""
	}
	return "[sandbox: the repositories " + strings.Join(refused, ", ") + " would be entered by the user's git in the workspace (a gitlink of its index, or a new repository at its root), and their configuration names what git would run there; their .git was moved aside. Move it back yourself (outside the agent) if you trust it.]"
}

// gitlinks are the index's gitlink paths under the root. git reads the
// index alone: nothing runs.
func (w *gitlinkWatch) gitlinks(ctx context.Context) []string {
	out, err := hostGit(ctx, w.root, "ls-files", "--stage", "-z")
	if err != nil {
		return nil
	}
	var paths []string
	for _, rec := range strings.Split(out, "\x00") {
		if meta, path, ok := strings.Cut(rec, "\t"); ok && strings.HasPrefix(meta, "160000 ") {
			paths = append(paths, filepath.FromSlash(path))
		}
	}
	return paths
}

// linkStamp is the signature of gitlink p's repository: its .git and
// the files git reads its configuration and gitlinks from.
func (w *gitlinkWatch) linkStamp(p string) []fileStamp {
	dot := filepath.Join(w.root, p, ".git")
	gitDir := dot
	if target, ok := readGitFile(dot); ok {
		gitDir = target
	}
	common := commonDirOf(gitDir)
	var out []fileStamp
	for _, f := range []string{dot, filepath.Join(gitDir, "commondir"), filepath.Join(common, "config"),
		filepath.Join(gitDir, "config.worktree"), filepath.Join(gitDir, "index")} {
		out = append(out, stampOf(f))
	}
	return out
}

// harmlessKey matches the settings of a repository's own configuration
// known to run nothing; anything else (fsmonitor, hooksPath, filter and
// diff drivers, includes, aliases…) counts as naming a program.
var harmlessKey = regexp.MustCompile(`^(core\.(repositoryformatversion|filemode|bare|logallrefupdates|ignorecase|precomposeunicode|symlinks|autocrlf|eol|safecrlf|quotepath|abbrev|compression|checkstat|trustctime|untrackedcache|splitindex|preloadindex|commitgraph|multipackindex|sparsecheckout|sparsecheckoutcone|sharedrepository)` +
	`|remote\.[^\n]+\.(url|pushurl|fetch|tagopt|prune)|branch\.[^\n]+\.(remote|merge|rebase)|submodule\.[^\n]+\.(url|active)` +
	`|user\.(name|email)|init\.defaultbranch|extensions\.(objectformat|worktreeconfig)|gc\.auto|pull\.(rebase|ff)|push\.default|fetch\.prune|color\.[a-z.]+|i18n\.[a-z.]+)$`)

// namesProgram is why gitlink p's repository may run something in the
// user's git, "" when its configuration holds only harmless settings.
func (w *gitlinkWatch) namesProgram(ctx context.Context, p string) string {
	dot := filepath.Join(w.root, p, ".git")
	if _, err := os.Lstat(dot); err != nil {
		return "" // not populated: git does not enter it
	}
	out, err := hostGit(ctx, w.root, "--git-dir="+dot, "config", "--list", "--show-scope", "-z")
	if err != nil {
		return "its configuration cannot be read"
	}
	recs := strings.Split(out, "\x00")
	for i := 0; i+1 < len(recs); i += 2 {
		if scope := recs[i]; scope != "local" && scope != "worktree" {
			continue
		}
		key, _, _ := strings.Cut(recs[i+1], "\n")
		if !harmlessKey.MatchString(strings.ToLower(key)) {
			return key
		}
	}
	return ""
}

// refuse moves gitlink p's .git aside, within the root.
func (w *gitlinkWatch) refuse(p string) (string, error) {
	return moveAside(w.root, filepath.Join(p, ".git"))
}

// hostGit runs git for the host in dir with every program a
// configuration could name disarmed, whatever the environment says.
func hostGit(ctx context.Context, dir string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, gitProgram(dir), append([]string{"-c", "core.fsmonitor=false", "-c", "core.hooksPath=" + os.DevNull,
		"-c", "safe.bareRepository=explicit"}, args...)...)
	cmd.Dir = dir
	cmd.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "GIT_") })
	cmd.Env = append(cmd.Env, "GIT_OPTIONAL_LOCKS=0", "GIT_TERMINAL_PROMPT=0")
	out, err := cmd.Output()
	return string(out), err
}
