package tools

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// commandReader: as on Unix (bash_unix.go), but the command comes on
// stdin, since Windows passes a child no descriptor past the three
// standard ones; stdin is /dev/null again before the command runs.
const commandReader = `__coder_nvim_command=$(</dev/stdin); exec 0</dev/null; eval "$__coder_nvim_command"`

// passCommand gives bash the read end of the command's pipe as stdin.
func passCommand(cmd *exec.Cmd, r *os.File) { cmd.Stdin = r }

// FindBash finds Git for Windows' bash.exe: beside the git on PATH, then
// where its installer puts it, then a bash.exe on PATH that is not
// System32's (WSL's launcher, which runs commands in a Linux VM, not
// here).
func FindBash() (string, error) {
	var candidates []string
	if git, err := exec.LookPath("git"); err == nil {
		// git.exe lies in <root>\cmd, <root>\bin or <root>\mingw64\bin.
		dir := filepath.Dir(git)
		for range 3 {
			dir = filepath.Dir(dir)
			candidates = append(candidates, filepath.Join(dir, "bin", "bash.exe"))
		}
	}
	for _, env := range []string{"ProgramW6432", "ProgramFiles", "ProgramFiles(x86)"} {
		if d := os.Getenv(env); d != "" {
			candidates = append(candidates, filepath.Join(d, "Git", "bin", "bash.exe"))
		}
	}
	if d := os.Getenv("LOCALAPPDATA"); d != "" {
		candidates = append(candidates, filepath.Join(d, "Programs", "Git", "bin", "bash.exe"))
	}
	for _, c := range candidates {
		if fi, err := os.Stat(c); err == nil && fi.Mode().IsRegular() {
			return c, nil
		}
	}
	if p, err := exec.LookPath("bash.exe"); err == nil {
		sys := strings.ToLower(filepath.Join(os.Getenv("SystemRoot"), "System32"))
		if !strings.HasPrefix(strings.ToLower(p), sys) {
			return p, nil
		}
	}
	return "", errors.New("Git for Windows' bash.exe was not found (install Git for Windows: https://git-scm.com/download/win)")
}
