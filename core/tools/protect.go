package tools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/coder-nvim/coder-nvim/core/sandbox"
)

// The agent's own files live in .coder/: the configuration (mode,
// base_url, approval settings) and the sessions. A model that could write
// them could widen its own permissions or have the next run send the API
// key elsewhere, so file tools never write there, in any mode. Skills
// (.coder/skills/**) are instructions the agent will follow: they may be
// written, but every such write is asked.

// protection is how a path about to be written is guarded.
type protection int

const (
	unprotected protection = iota
	askEveryTime
	refused
)

const (
	agentDir  = ".coder"
	skillsDir = "skills"
)

// SkillWriteReason is the approval reason of a write to a skill.
const SkillWriteReason = "writes a skill under .coder/skills/: skills are instructions the agent follows, so every such write is asked, in every mode, and never remembered"

// protectionOf classifies a slash path relative to the root by its names:
// any component named .coder (compared as case-insensitive file systems
// would) protects what is below it.
func protectionOf(rel string) protection {
	parts := strings.Split(rel, "/")
	p := unprotected
	for i, part := range parts {
		if !sameName(part, agentDir) {
			continue
		}
		if i+2 < len(parts) && sameName(parts[i+1], skillsDir) {
			p = max(p, askEveryTime)
		} else {
			p = max(p, refused)
		}
	}
	return p
}

// sameName compares a path component with a name as the file systems that
// fold names would: ignoring case (macOS, Windows), trailing dots and
// spaces (Windows) and the code points HFS+ ignores.
func sameName(part, name string) bool {
	part = strings.Map(func(r rune) rune {
		if hfsIgnorable(r) {
			return -1
		}
		return r
	}, part)
	return strings.EqualFold(strings.TrimRight(part, ". "), name)
}

func hfsIgnorable(r rune) bool {
	switch {
	case r >= 0x200b && r <= 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x206a && r <= 0x206f, r == 0xfeff:
		return true
	}
	return false
}

// protectionAt classifies the absolute, symlink-evaluated path abs inside
// the root by identity: when one of its existing parent directories is the
// workspace's .coder (or .coder/skills) directory, whatever name or link
// leads there. This catches aliases the names do not show: a .coder that is
// itself a symlink to another directory, or a name only a case-insensitive
// file system equates.
func (w *Workspace) protectionAt(abs string) protection {
	agent, err := os.Stat(filepath.Join(w.root, agentDir))
	if err != nil || !agent.IsDir() {
		return unprotected
	}
	skills, err := os.Stat(filepath.Join(w.root, agentDir, skillsDir))
	if err != nil || !skills.IsDir() {
		skills = nil
	}
	for dir := filepath.Dir(abs); ; dir = filepath.Dir(dir) {
		if st, err := os.Stat(dir); err == nil {
			if skills != nil && os.SameFile(st, skills) {
				return askEveryTime
			}
			if os.SameFile(st, agent) {
				// Below it, only names are left (.coder/skills/new/x).
				rest, err := filepath.Rel(dir, abs)
				if err != nil {
					return refused
				}
				if protectionOf(agentDir+"/"+filepath.ToSlash(rest)) == askEveryTime {
					return askEveryTime
				}
				return refused
			}
		}
		if dir == w.root || dir == filepath.Dir(dir) {
			return unprotected
		}
	}
}

// RunsLaterReason is the approval reason of a write to what runs later
// as the user (%s: the path).
const RunsLaterReason = "writes %s, which your shell, desktop session, editor or git runs later as you, outside any sandbox: every such write is asked, in every mode, and never remembered"

// SetRunsLater names what runs later as the user: the startup files and
// directories of the home (sandbox.RunsLater: with the workspace at $HOME
// they are files of it) and the repository's hook directory
// (sandbox.HookDirs). Every file tool write to them is asked.
func (w *Workspace) SetRunsLater(paths []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.runsLater = cleanWithReal(paths)
}

// runsLaterOf is the startup path the real path abs is or lies in, as
// the user knows it (~/.bashrc), or "".
func (w *Workspace) runsLaterOf(abs string) string {
	w.mu.Lock()
	paths := w.runsLater
	w.mu.Unlock()
	return underAny(paths, abs)
}

// SetUserDirs names the user's own directories (config, the host's
// state, Copilot's tokens) that file tools never write, wherever the
// workspace is: with the workspace at $HOME, or a dotfiles repository
// linked into ~/.config/coder, they are otherwise ordinary files in it.
func (w *Workspace) SetUserDirs(dirs []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.userDirs = cleanWithReal(dirs)
}

// cleanWithReal is the absolute paths of ps, cleaned, each with its real
// path too when a link leads there.
func cleanWithReal(ps []string) []string {
	var out []string
	for _, d := range ps {
		if d == "" || !filepath.IsAbs(d) {
			continue
		}
		out = append(out, filepath.Clean(d))
		if r, err := filepath.EvalSymlinks(d); err == nil && r != filepath.Clean(d) {
			out = append(out, r)
		}
	}
	return out
}

// userDirOf returns the user's directory the real path abs lies in, by
// name or by identity (a name only a case-insensitive file system
// equates), or "".
func (w *Workspace) userDirOf(abs string) string {
	w.mu.Lock()
	dirs := w.userDirs
	w.mu.Unlock()
	return underAny(dirs, abs)
}

// underAny is the path of ps that abs is or lies in, by name or by
// identity (a name only a case-insensitive file system equates), or "".
func underAny(ps []string, abs string) string {
	for _, d := range ps {
		if rel, err := filepath.Rel(d, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return d
		}
	}
	// abs and the directories above it, each looked at once.
	var chain []os.FileInfo
	for dir := abs; ; dir = filepath.Dir(dir) {
		if st, err := os.Stat(dir); err == nil {
			chain = append(chain, st)
		}
		if dir == filepath.Dir(dir) {
			break
		}
	}
	for _, d := range ps {
		st, err := os.Stat(d)
		if err != nil {
			continue
		}
		if slices.ContainsFunc(chain, func(c os.FileInfo) bool { return os.SameFile(st, c) }) {
			return d
		}
	}
	return ""
}

// checkWritable refuses writes to the agent's own files and the user's,
// and says why the write must be asked every time ("" when it need not).
// lexRel is the path as given (cleaned, relative to the root), rel and
// abs the real path it leads to.
func (w *Workspace) checkWritable(path, lexRel, rel, abs string) (confirm string, err error) {
	if d := w.userDirOf(abs); d != "" {
		return "", fmt.Errorf("%s is in %s, the user's own configuration or the host's state (their config, trusted workspaces, Copilot's tokens); file tools never change it, in any mode. Ask the user to change it", path, d)
	}
	p := max(protectionOf(lexRel), protectionOf(rel), w.protectionAt(abs))
	switch {
	case p == refused:
		return "", errAgentFiles(path)
	case p == askEveryTime:
		return SkillWriteReason, nil
	}
	if d := w.runsLaterOf(abs); d != "" {
		return fmt.Sprintf(RunsLaterReason, d), nil
	}
	return "", nil
}

func errAgentFiles(path string) error {
	return fmt.Errorf("%s is the agent's own configuration or session data (.coder/); file tools never change it, in any mode. "+
		"Ask the user to change the setting (/model switches the model); only skills (.coder/skills/<name>/...) can be written, after asking", path)
}

// SetConfinedChecks has begin run as each confined bash call starts, and
// what it returns as the call ends, its note (if any) added to the
// call's result: the sandbox's host-side checks.
func (w *Workspace) SetConfinedChecks(begin func() func(context.Context) string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.beginConfined = begin
}

// BeginConfined starts the sandbox's host-side checks of a run confined
// by confine; the func it returns ends them after the run: their note,
// on a line of its own, or "" (always "" when confine is nil).
func (w *Workspace) BeginConfined(confine *sandbox.Policy) func(context.Context) string {
	w.mu.Lock()
	begin := w.beginConfined
	w.mu.Unlock()
	if begin == nil || confine == nil {
		return func(context.Context) string { return "" }
	}
	end := begin()
	return func(ctx context.Context) string {
		if note := end(context.WithoutCancel(ctx)); note != "" {
			return "\n" + note
		}
		return ""
	}
}
