package hostpath

import (
	"os"
	"path/filepath"
	"strings"
)

// findBash finds Git for Windows' bash.exe: beside the git on the cleaned
// PATH, then where its installer puts it, then a bash.exe on the cleaned
// PATH that is not System32's (WSL's launcher, which runs commands in a
// Linux VM, not here).
func findBash(p Programs) (string, string) {
	var candidates []string
	if p.Git != "" {
		// git.exe lies in <root>\cmd, <root>\bin or <root>\mingw64\bin.
		dir := filepath.Dir(p.Git)
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
			return c, ""
		}
	}
	if b := p.Look("bash.exe"); b != "" {
		sys := strings.ToLower(filepath.Join(os.Getenv("SystemRoot"), "System32"))
		if !strings.HasPrefix(strings.ToLower(b), sys) {
			return b, ""
		}
	}
	return "", "Git for Windows' bash.exe was not found (install Git for Windows: https://git-scm.com/download/win)"
}
