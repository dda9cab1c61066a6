package hooks

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"

	"github.com/coder-nvim/coder-nvim/core/hostpath"
	"github.com/coder-nvim/coder-nvim/core/tools"
)

// shellCommand runs command with Git for Windows' bash, where there is
// one (scripts written for Unix work), else with cmd.exe /C.
func shellCommand(progs hostpath.Programs, command string) *exec.Cmd {
	if bash, err := tools.FindBash(progs); err == nil {
		return exec.Command(bash, "-c", command)
	}
	comspec := os.Getenv("ComSpec")
	if comspec == "" {
		comspec = filepath.Join(os.Getenv("SystemRoot"), "System32", "cmd.exe")
	}
	cmd := exec.Command(comspec)
	// cmd.exe parses its own command line: passed as is, not quoted again.
	cmd.SysProcAttr = &syscall.SysProcAttr{CmdLine: `/S /C "` + command + `"`}
	return cmd
}
