package tools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/coder-nvim/coder-nvim/core/atomicfile"
)

// Apply writes a set of changes, all or nothing. Before writing anything it
// resolves every path again, calls the guard for every path, and checks each
// file on disk still has the content the change was computed from. If a
// write then fails, the files already written are restored (best effort).
// Afterwards the read tracking is updated so the agent can keep editing.
func (w *Workspace) Apply(ctx context.Context, changes []FileChange) error {
	w.applyMu.Lock()
	defer w.applyMu.Unlock()
	steps, err := w.resolveSteps(changes)
	if err != nil {
		return err
	}
	if err := w.guardSteps(ctx, steps); err != nil {
		return err
	}
	if err := w.checkSteps(ctx, steps); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("not applied: %w", err)
	}
	root, err := w.openRoot()
	if err != nil {
		return err
	}
	defer root.Close()
	if err := w.writeSteps(ctx, root, steps); err != nil {
		return err
	}
	w.trackSteps(steps)
	return nil
}

// applyStep is one change of a set with its paths resolved.
type applyStep struct {
	c        FileChange
	abs, dst string // dst: move target, "" if none
}

// resolveSteps resolves the paths of every change and refuses a set that
// changes one file twice or asks for an operation it cannot do.
func (w *Workspace) resolveSteps(changes []FileChange) ([]applyStep, error) {
	steps := make([]applyStep, 0, len(changes))
	touched := map[string]string{}
	claim := func(abs, rel string) error {
		if prev, ok := touched[abs]; ok {
			return fmt.Errorf("%s is changed twice in one set (also as %s); combine the changes", rel, prev)
		}
		touched[abs] = rel
		return nil
	}
	for _, c := range changes {
		s := applyStep{c: c}
		var err error
		if s.abs, s.dst, err = w.resolveChange(c); err != nil {
			return nil, err
		}
		if err := claim(s.abs, c.Path); err != nil {
			return nil, err
		}
		switch c.Op {
		case OpAdd, OpDelete:
			if c.MoveTo != "" {
				return nil, fmt.Errorf("%s: only an update can move a file", c.Path)
			}
		case OpUpdate:
			if s.dst != "" {
				if err := claim(s.dst, c.MoveTo); err != nil {
					return nil, err
				}
			}
		default:
			return nil, fmt.Errorf("%s: unknown change operation %q", c.Path, c.Op)
		}
		steps = append(steps, s)
	}
	return steps, nil
}

// guardSteps asks the guard about every path the set writes.
func (w *Workspace) guardSteps(ctx context.Context, steps []applyStep) error {
	_, guard := w.fileSystem()
	if guard == nil {
		return nil
	}
	for _, s := range steps {
		for _, abs := range []string{s.abs, s.dst} {
			if abs == "" {
				continue
			}
			if err := guard(ctx, abs); err != nil {
				return fmt.Errorf("%s: change refused: %w", s.c.Path, err)
			}
		}
	}
	return nil
}

// checkSteps checks that the disk is still as each change expects it; a
// change without a mode takes the file's.
func (w *Workspace) checkSteps(ctx context.Context, steps []applyStep) error {
	for i := range steps {
		s := &steps[i]
		st, ok := exists(s.abs)
		switch s.c.Op {
		case OpAdd:
			if ok {
				return fmt.Errorf("%s already exists on disk (it was created after the change was prepared); read it and try again", s.c.Path)
			}
			continue
		}
		if !ok {
			return fmt.Errorf("%s no longer exists on disk; it was removed after the change was prepared", s.c.Path)
		}
		if s.c.Link != "" {
			if s.c.Op == OpUpdate && (s.dst == "" || s.c.New != s.c.Old) {
				return fmt.Errorf("%s is a symbolic link: a change to it can only delete or move the link itself", s.c.Path)
			}
			if s.dst != "" {
				if _, ok := exists(s.dst); ok {
					return fmt.Errorf("cannot move %s to %s: the destination already exists", s.c.Path, s.c.MoveTo)
				}
			}
			continue
		}
		if !st.Mode().IsRegular() {
			return fmt.Errorf("%s is not a regular file", s.c.Path)
		}
		cur, err := w.ReadFile(ctx, s.abs)
		if err != nil {
			return fmt.Errorf("read %s: %w", s.c.Path, err)
		}
		if string(cur) != s.c.Old {
			return fmt.Errorf("%s changed on disk since it was read; read it again", s.c.Path)
		}
		if s.c.Mode == 0 {
			s.c.Mode = st.Mode().Perm()
		}
		if s.dst != "" {
			if _, ok := exists(s.dst); ok {
				return fmt.Errorf("cannot move %s to %s: the destination already exists", s.c.Path, s.c.MoveTo)
			}
		}
	}
	return nil
}

// writeSteps writes the set beneath root (see writeFile). Each completed
// step pushes its undo; a failure unwinds them and says exactly where each
// file was left.
func (w *Workspace) writeSteps(ctx context.Context, root *os.Root, steps []applyStep) error {
	fsys := rootOps{w, root}
	var undo []undoStep
	// Undo writes must run even if ctx is canceled.
	bg := context.WithoutCancel(ctx)
	for _, s := range steps {
		c := s.c
		push := func(f func() error) { undo = append(undo, undoStep{c.Path, f}) }
		// A rename or removal that fails has no target to look at.
		fail := func(err error) error { return rollback(c, "", diskState{}, err, undo) }
		// A write through the editor may land although it fails, and not
		// always as sent: rollback compares the target with its state here.
		failWrite := func(target string, before diskState, err error) error {
			return rollback(c, target, before, err, undo)
		}
		restore := func() error { return w.writeFile(bg, root, s.abs, []byte(c.Old), c.Mode) }
		switch c.Op {
		case OpAdd:
			before := statDisk(s.abs)
			if err := w.writeFile(ctx, root, s.abs, []byte(c.New), c.Mode); err != nil {
				return failWrite(s.abs, before, err)
			}
			push(func() error { return fsys.remove(s.abs) })
		case OpUpdate:
			if c.Link != "" {
				// Moving a link renames the link; its target is untouched.
				if err := fsys.rename(s.abs, s.dst); err != nil {
					return fail(err)
				}
				push(func() error { return fsys.rename(s.dst, s.abs) })
				continue
			}
			target := s.abs
			if s.dst != "" {
				target = s.dst
			}
			before := statDisk(target)
			if err := w.writeFile(ctx, root, target, []byte(c.New), c.Mode); err != nil {
				return failWrite(target, before, err)
			}
			if s.dst == "" {
				push(restore)
				continue
			}
			push(func() error { return fsys.remove(s.dst) })
			if err := fsys.remove(s.abs); err != nil {
				return fail(err)
			}
			push(restore)
		case OpDelete:
			if err := fsys.remove(s.abs); err != nil {
				return fail(err)
			}
			if c.Link != "" {
				push(func() error { return fsys.symlink(c.Link, s.abs) })
				continue
			}
			push(restore)
		}
	}
	return nil
}

// rootOps are the renames, removals and links of a change set, done
// beneath the workspace's root: a directory on the way that became a link
// out of the workspace refuses them.
type rootOps struct {
	w    *Workspace
	root *os.Root
}

func (o rootOps) remove(abs string) error {
	rel, err := o.w.rootRel(abs)
	if err != nil {
		return err
	}
	return atomicfile.InRootError(rel, o.root.Remove(rel))
}

// rename moves a file or link (never what a link points to), making the
// destination's directories.
func (o rootOps) rename(from, to string) error {
	src, err := o.w.rootRel(from)
	if err != nil {
		return err
	}
	dst, err := o.w.rootRel(to)
	if err != nil {
		return err
	}
	if dir := filepath.Dir(dst); dir != "." {
		if err := o.root.MkdirAll(dir, 0o755); err != nil {
			return atomicfile.InRootError(dst, err)
		}
	}
	return atomicfile.InRootError(dst, o.root.Rename(src, dst))
}

func (o rootOps) symlink(target, abs string) error {
	rel, err := o.w.rootRel(abs)
	if err != nil {
		return err
	}
	return atomicfile.InRootError(rel, o.root.Symlink(target, rel))
}

// undoStep takes back one completed write of a set.
type undoStep struct {
	path string
	run  func() error
}

// diskState is what a file's stat says: enough to tell that it was
// written (or created, or replaced) since.
type diskState struct {
	info os.FileInfo // nil: the file did not exist
}

func statDisk(abs string) diskState {
	st, err := os.Stat(abs)
	if err != nil {
		return diskState{}
	}
	return diskState{info: st}
}

// changedSince reports whether abs is no longer as before said.
func (before diskState) changedSince(abs string) bool {
	now := statDisk(abs).info
	if before.info == nil || now == nil {
		return (before.info == nil) != (now == nil)
	}
	return !os.SameFile(before.info, now) || before.info.Size() != now.Size() || !before.info.ModTime().Equal(now.ModTime())
}

// rollback unwinds the completed steps after c failed and says what the
// disk holds now: a write through the editor may have landed although it
// failed (an editor that never answered), perhaps not as sent (an editor
// adds a final blank line), and an undo may fail too. target is the file
// c was writing ("" for a rename or removal); before is its state just
// before the write.
func rollback(c FileChange, target string, before diskState, err error, undo []undoStep) error {
	var undone, stuck []string
	for i := len(undo) - 1; i >= 0; i-- {
		if uerr := undo[i].run(); uerr != nil {
			stuck = append(stuck, fmt.Sprintf("%s (%v)", undo[i].path, uerr))
		} else {
			undone = append(undone, undo[i].path)
		}
	}
	msg := ""
	landed := false
	if target != "" {
		cur, rerr := os.ReadFile(target)
		switch {
		case rerr == nil && string(cur) == c.New && c.New != c.Old:
			landed = true
			msg += fmt.Sprintf("; yet %s now holds the new content on disk (it was written without the write being confirmed)", c.Path)
		case before.changedSince(target):
			landed = true
			msg += fmt.Sprintf("; yet %s changed on disk during the write, though not to the content sent: read it before changing it again", c.Path)
		}
	}
	switch {
	case len(stuck) > 0:
		msg += "; these earlier writes of the set could not be undone and stay changed: " + strings.Join(stuck, ", ")
		if len(undone) > 0 {
			msg += "; these were rolled back: " + strings.Join(undone, ", ")
		}
	case landed && len(undone) > 0:
		msg += "; the earlier writes of this set were rolled back: " + strings.Join(undone, ", ")
	case landed:
		msg += "; no other file was changed"
	case len(undone) > 0:
		msg += "; no files were changed (the earlier writes of this set were rolled back: " + strings.Join(undone, ", ") + ")"
	default:
		msg += "; no files were changed"
	}
	return fmt.Errorf("writing %s failed: %w%s", c.Path, err, msg)
}

// trackSteps updates the read tracking to the written set, so the agent
// can keep editing without reading its own writes again.
func (w *Workspace) trackSteps(steps []applyStep) {
	for _, s := range steps {
		switch {
		case s.c.Op == OpDelete:
			w.forget(s.abs)
		case s.c.Link != "":
			w.forget(s.abs)
		case s.dst != "":
			w.forget(s.abs)
			w.markSeen(s.dst, []byte(s.c.New))
		default:
			w.markSeen(s.abs, []byte(s.c.New))
		}
	}
}
