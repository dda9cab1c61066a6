// Command coder-nvim-sandbox is the sandbox launcher alone: what
// `coder-nvim sandbox-exec` does, in a binary that starts in a fraction of
// the host's time (it links only the sandbox), since every confined shell
// starts through it. The host uses it when it lies beside the host's own
// binary, and runs itself as the launcher otherwise.
package main

import (
	"os"

	"github.com/coder-nvim/coder-nvim/core/sandbox"
)

func main() {
	args := os.Args[1:]
	if len(args) > 0 && args[0] == sandbox.Subcommand {
		args = args[1:]
	}
	os.Exit(sandbox.Main(args))
}
