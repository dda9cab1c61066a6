package sandbox

import (
	"os"

	"github.com/coder-nvim/coder-nvim/core/hostpath"
)

// gitProgram is the git the host runs for the sandbox's own checks: found
// on a PATH without the directories of roots (the workspace, the writable
// roots), since a git a confined command wrote there would run unconfined.
func gitProgram(roots ...string) string {
	path := os.Getenv("PATH")
	for _, r := range append(roots, os.TempDir()) {
		path, _ = hostpath.Clean(path, r)
	}
	if g := (hostpath.Programs{Path: path}).Look("git"); g != "" {
		return g
	}
	return "git" // not found: the command fails, and the check with it
}
