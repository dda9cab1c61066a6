package config

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// Tasks holds the settings of parallel tasks in git worktrees
// (core/worktree, :help coder-tasks).
type Tasks struct {
	// MaxParallel bounds the tasks at work at once; more wait queued.
	// 0: the default (4).
	MaxParallel int `json:"max_parallel"`
	// Copy are globs (relative to the workspace) of untracked files every
	// task's worktree gets (".env", local config). A trusted project file
	// adds to the user's; an untrusted one's are ignored (they would show
	// the model files of the user's tree).
	Copy []string `json:"copy"`
}

// validateTasks checks the tasks keys.
func (c Config) validateTasks(bad func(key, format string, args ...any)) {
	if c.Tasks.MaxParallel < 0 {
		bad("tasks.max_parallel", "must be 0 (the default, 4) or more, got %d", c.Tasks.MaxParallel)
	}
	for i, g := range c.Tasks.Copy {
		if _, err := filepath.Match(g, ""); err != nil || g == "" || filepath.IsAbs(g) || strings.HasPrefix(filepath.Clean(g), "..") {
			bad(fmt.Sprintf("tasks.copy[%d]", i), "want a glob inside the workspace such as \".env\", got %q", g)
		}
	}
}

// addTasks is what a trusted project file changes of tasks: its copy
// globs join the user's.
func addTasks(user Tasks, proj *Tasks) {
	globs := slices.Clone(user.Copy)
	for _, g := range proj.Copy {
		if !slices.Contains(globs, g) {
			globs = append(globs, g)
		}
	}
	proj.Copy = globs
}

// narrowTasks applies what an untrusted project file may change of
// tasks: fewer at once.
func narrowTasks(out, cur, proj *Config, ignore func(string, any)) {
	if p, c := proj.Tasks.MaxParallel, cur.Tasks.MaxParallel; p != c {
		if p > 0 && (c == 0 || p < c) {
			out.Tasks.MaxParallel = p
		} else {
			ignore("tasks.max_parallel", p)
		}
	}
	if !slices.Equal(proj.Tasks.Copy, cur.Tasks.Copy) {
		ignore("tasks.copy", proj.Tasks.Copy)
	}
}
