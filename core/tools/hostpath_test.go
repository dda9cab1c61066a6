package tools

import (
	"os"

	"github.com/coder-nvim/coder-nvim/core/hostpath"
)

// findRipgrep is the rg the host would use, for tests that need one.
func findRipgrep() string { return hostpath.Resolve(os.Getenv("PATH"), "").Ripgrep }

// testBash is the bash the host would use, for tests of Shells.
func testBash() string { return hostpath.Resolve(os.Getenv("PATH"), "").Bash }
