package tools

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"github.com/coder-nvim/coder-nvim/core/hostpath"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/coder-nvim/coder-nvim/core/atomicfile"
)

// FS replaces the local disk for reading and writing file contents, for ACP
// clients that expose fs/read_text_file and fs/write_text_file (so unsaved
// editor buffers are seen and updated). Existence checks, directory
// creation and deletes stay on the local disk. WriteFile returns
// ErrWriteLocal for a write it leaves to the local disk (the workspace
// then writes it beneath its root).
type FS interface {
	ReadFile(ctx context.Context, abs string) ([]byte, error)
	WriteFile(ctx context.Context, abs string, data []byte, perm fs.FileMode) error
}

// ErrWriteLocal is what an FS's WriteFile returns for a write the local
// disk takes.
var ErrWriteLocal = errors.New("written on the local disk")

// Workspace is the root every file tool resolves against, plus the
// session's read tracking for the stale-edit guard.
type Workspace struct {
	root  string
	progs hostpath.Programs

	applyMu sync.Mutex // one change set at a time

	mu    sync.Mutex
	seen  map[string][sha256.Size]byte // abs path -> hash of the content last read or written
	guard func(ctx context.Context, abs string) error
	fs    FS

	shells *Shells

	// userDirs are the user's own directories no file tool writes (see
	// SetUserDirs), as given and by real path.
	userDirs []string
	// beginConfined runs as a confined bash call starts, what it returns
	// as the call ends (SetConfinedChecks).
	beginConfined func() func(context.Context) string
	// runsLater are the user's startup files and directories
	// (SetRunsLater): file tools ask before every write to them.
	runsLater []string

	rgOnce    sync.Once
	rg        string // rg's path; "" for the built-in search
	noRipgrep bool   // tests: always use the built-in search
	listed    int    // tests: a lower listing limit than maxListed
}

// NewWorkspace returns a workspace rooted at root, made absolute and
// symlink-evaluated.
func NewWorkspace(root string) (*Workspace, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("workspace root %s: %w", root, err)
	}
	if abs, err = filepath.EvalSymlinks(abs); err != nil {
		return nil, fmt.Errorf("workspace root %s: %w", root, err)
	}
	st, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("workspace root %s: %w", root, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("workspace root %s is not a directory", root)
	}
	// The host's programs, once, from a PATH the workspace is not on.
	progs := hostpath.Resolve(os.Getenv("PATH"), abs)
	return &Workspace{root: abs, progs: progs, seen: map[string][sha256.Size]byte{}, shells: NewShells(abs, progs.Bash)}, nil
}

// Programs are the host's own programs for this workspace (hostpath).
func (w *Workspace) Programs() hostpath.Programs { return w.progs }

// Root returns the absolute, symlink-free workspace root.
func (w *Workspace) Root() string { return w.root }

// Shells returns the bash processes of the bash tool's calls.
func (w *Workspace) Shells() *Shells { return w.shells }

// SetGuard sets a function called with the absolute path before every file
// write or delete; an error refuses the whole change set. The editor uses it
// to protect buffers with unsaved edits.
func (w *Workspace) SetGuard(guard func(ctx context.Context, abs string) error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.guard = guard
}

// CheckGuard runs the guard on every path a change set would write, so a
// change the editor would refuse is refused before anyone is asked to
// approve it. Apply checks again: the user may start editing meanwhile.
func (w *Workspace) CheckGuard(ctx context.Context, changes []FileChange) error {
	_, guard := w.fileSystem()
	if guard == nil {
		return nil
	}
	for _, c := range changes {
		abs, dst, err := w.resolveChange(c)
		if err != nil {
			return err
		}
		for _, p := range []string{abs, dst} {
			if p == "" {
				continue
			}
			if err := guard(ctx, p); err != nil {
				return fmt.Errorf("%s: change refused: %w", c.Path, err)
			}
		}
	}
	return nil
}

// resolveChange resolves the paths a change writes, as Apply writes them:
// the link itself for a change of a symbolic link (which must still be the
// same link), else the file a write reaches; dst is the move target of an
// update ("" if none).
func (w *Workspace) resolveChange(c FileChange) (abs, dst string, err error) {
	if c.Link != "" {
		var target string
		if abs, _, target, _, err = w.resolveLink(c.Path); err != nil {
			return "", "", err
		}
		if target != c.Link {
			return "", "", fmt.Errorf("%s changed on disk since the change was prepared (it is no longer a symbolic link to %s); look at it again", c.Path, c.Link)
		}
	} else if abs, _, _, err = w.resolveWrite(c.Path); err != nil {
		return "", "", err
	}
	if c.Op == OpUpdate && c.MoveTo != "" && c.MoveTo != c.Path {
		if dst, _, _, err = w.resolveWrite(c.MoveTo); err != nil {
			return "", "", err
		}
	}
	return abs, dst, nil
}

// SetFS makes the workspace read and write file contents through f; nil
// restores the local disk.
func (w *Workspace) SetFS(f FS) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.fs = f
}

func (w *Workspace) fileSystem() (FS, func(ctx context.Context, abs string) error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.fs, w.guard
}

// Resolve maps a path given by the model (relative to the root, or
// absolute inside it) to its absolute, symlink-evaluated form and its
// slash-separated path relative to the root. It refuses paths that leave the
// workspace (by "..", absolute paths or symlinks) and anything inside .git.
// The path need not exist.
func (w *Workspace) Resolve(path string) (abs, rel string, err error) {
	abs, rel, _, err = w.resolve(path)
	return abs, rel, err
}

// clean makes path absolute and clean; lexRel is then its path relative to
// the root, "" when it is outside. It refuses names inside .git.
func (w *Workspace) clean(path string) (p, lexRel string, err error) {
	if strings.TrimSpace(path) == "" {
		return "", "", errors.New("the path is empty")
	}
	if strings.ContainsRune(path, 0) {
		return "", "", fmt.Errorf("the path %q contains a NUL byte", path)
	}
	p = filepath.FromSlash(path)
	if !filepath.IsAbs(p) {
		p = filepath.Join(w.root, p)
	}
	p = filepath.Clean(p)
	lexRel, _ = w.relative(p)
	if inGitDir(lexRel) {
		return "", "", fmt.Errorf("%s is inside .git; git internals cannot be read or changed with file tools (use git commands through bash)", path)
	}
	return p, lexRel, nil
}

func (w *Workspace) resolve(path string) (abs, rel, lexRel string, err error) {
	p, lexRel, err := w.clean(path)
	if err != nil {
		return "", "", "", err
	}
	real, err := evalExisting(p)
	if err != nil {
		return "", "", "", fmt.Errorf("%s: %w", path, err)
	}
	rel, err = w.inside(path, real, lexRel != "")
	return real, rel, lexRel, err
}

// inside checks that the real path lies in the workspace and outside .git.
func (w *Workspace) inside(path, real string, lexInside bool) (string, error) {
	// The real path decides: an absolute path through a symlinked alias of
	// the root is fine, a workspace path through a symlink to elsewhere is not.
	rel, ok := w.relative(real)
	switch {
	case !ok && lexInside:
		return "", fmt.Errorf("%s leads outside the workspace through a symlink (to %s); only paths inside it can be used", path, real)
	case !ok:
		return "", fmt.Errorf("%s is outside the workspace %s; only paths inside it can be used", path, w.root)
	case inGitDir(rel):
		return "", fmt.Errorf("%s leads into .git; git internals cannot be read or changed with file tools (use git commands through bash)", path)
	}
	return rel, nil
}

// resolveWrite is Resolve for a path about to be written (through a final
// symlink, to its target): it also refuses the agent's own files and
// says why the write must be asked every time (skills, the user's startup
// files), "" when it need not.
func (w *Workspace) resolveWrite(path string) (abs, rel string, ask string, err error) {
	abs, rel, lexRel, err := w.resolve(path)
	if err != nil {
		return "", "", "", err
	}
	ask, err = w.checkWritable(path, lexRel, rel, abs)
	return abs, rel, ask, err
}

// resolveLink resolves a path for an operation on the path itself (delete,
// move). When its last element is a symbolic link, abs and rel name the
// link, never its target, and target is what the link holds; otherwise it
// is resolveWrite. The link's target may be anywhere: it is not followed.
func (w *Workspace) resolveLink(path string) (abs, rel, target string, ask string, err error) {
	p, lexRel, err := w.clean(path)
	if err != nil {
		return "", "", "", "", err
	}
	if st, err := os.Lstat(p); err != nil || st.Mode()&fs.ModeSymlink == 0 {
		abs, rel, ask, err = w.resolveWrite(path)
		return abs, rel, "", ask, err
	}
	dir, err := evalExisting(filepath.Dir(p))
	if err != nil {
		return "", "", "", "", fmt.Errorf("%s: %w", path, err)
	}
	abs = filepath.Join(dir, filepath.Base(p))
	if rel, err = w.inside(path, abs, lexRel != ""); err != nil {
		return "", "", "", "", err
	}
	if target, err = os.Readlink(abs); err != nil {
		return "", "", "", "", fmt.Errorf("%s: %w", path, err)
	}
	ask, err = w.checkWritable(path, lexRel, rel, abs)
	return abs, rel, target, ask, err
}

// relative returns abs relative to the root, slash separated, and whether
// it lies inside the root.
func (w *Workspace) relative(abs string) (string, bool) {
	rel, err := filepath.Rel(w.root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// inGitDir reports whether a slash path has a .git component, compared as
// case-insensitive file systems would.
func inGitDir(rel string) bool {
	return slices.ContainsFunc(strings.Split(rel, "/"), func(part string) bool { return sameName(part, ".git") })
}

// evalExisting evaluates the symlinks of the longest existing prefix of p
// and appends the rest, so a path about to be created is checked too.
func evalExisting(p string) (string, error) {
	existing, rest := p, ""
	for {
		if _, err := os.Lstat(existing); err == nil {
			break
		}
		parent := filepath.Dir(existing)
		if parent == existing {
			return p, nil
		}
		rest = filepath.Join(filepath.Base(existing), rest)
		existing = parent
	}
	real, err := filepath.EvalSymlinks(existing)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", errors.New("it is (or passes through) a symlink whose target does not exist")
		}
		if errors.Is(err, syscall.EINVAL) {
			// A link read back as no link: swapped while being resolved.
			return "", fmt.Errorf("a directory on its path was swapped for a symbolic link (or back) while it was resolved, as a process trying to lead writes outside the workspace would do: %w", err)
		}
		return "", err
	}
	return filepath.Join(real, rest), nil
}

// ReadFile reads a file's contents through the workspace FS (or the disk).
func (w *Workspace) ReadFile(ctx context.Context, abs string) ([]byte, error) {
	if f, _ := w.fileSystem(); f != nil {
		return f.ReadFile(ctx, abs)
	}
	return os.ReadFile(abs)
}

// writeFile writes abs (a resolved path inside the root) beneath root:
// every directory on the way is opened from the root's descriptor, so a
// directory swapped for a link out of the workspace after abs was resolved
// refuses the write instead of leading it outside. The editor's FS (ACP)
// gets the contents; the local directories it needs are made here.
func (w *Workspace) writeFile(ctx context.Context, root *os.Root, abs string, data []byte, mode fs.FileMode) error {
	if mode == 0 {
		mode = 0o644
	}
	rel, err := w.rootRel(abs)
	if err != nil {
		return err
	}
	if dir := filepath.Dir(rel); dir != "." {
		if err := root.MkdirAll(dir, 0o755); err != nil {
			return atomicfile.InRootError(rel, err)
		}
	}
	if f, _ := w.fileSystem(); f != nil {
		if err := f.WriteFile(ctx, abs, data, mode.Perm()); !errors.Is(err, ErrWriteLocal) {
			return err
		}
	}
	return atomicfile.WriteFileIn(root, rel, data, mode.Perm())
}

// rootRel is a resolved path inside the root as the root's os.Root names
// it (relative, native separators).
func (w *Workspace) rootRel(abs string) (string, error) {
	rel, ok := w.relative(abs)
	if !ok || rel == "" || rel == "." {
		return "", fmt.Errorf("%s is not a path inside the workspace %s", abs, w.root)
	}
	return filepath.FromSlash(rel), nil
}

// openRoot opens the workspace root for one change set's writes.
func (w *Workspace) openRoot() (*os.Root, error) {
	root, err := os.OpenRoot(w.root)
	if err != nil {
		return nil, fmt.Errorf("open the workspace %s: %w", w.root, err)
	}
	return root, nil
}

// markSeen records content as what the agent last saw of abs.
func (w *Workspace) markSeen(abs string, content []byte) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seen[abs] = sha256.Sum256(content)
}

func (w *Workspace) forget(abs string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.seen, abs)
}

// checkFresh is the stale-edit guard: current is the file's content now.
// A file the agent saw before must not have changed since; with mustHaveRead
// an existing file must have been seen at all (the write tool's rule).
func (w *Workspace) checkFresh(abs, rel string, current []byte, mustHaveRead bool) error {
	w.mu.Lock()
	sum, ok := w.seen[abs]
	w.mu.Unlock()
	if !ok {
		if mustHaveRead {
			return fmt.Errorf("%s already exists and has not been read in this session; read it first, then write it (or use edit or patch for partial changes)", rel)
		}
		return nil
	}
	if sum != sha256.Sum256(current) {
		return fmt.Errorf("%s changed on disk since you last read it; read it again before changing it", rel)
	}
	return nil
}

// exists reports whether abs exists on the local disk (without following a
// final symlink) and its mode.
func exists(abs string) (fs.FileInfo, bool) {
	st, err := os.Lstat(abs)
	return st, err == nil
}
