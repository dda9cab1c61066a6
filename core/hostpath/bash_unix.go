//go:build !windows

package hostpath

import "runtime"

// findBash finds bash on p.Path.
func findBash(p Programs) (string, string) {
	if b := p.Look("bash"); b != "" {
		return b, ""
	}
	hint := "install it with the system's package manager"
	if runtime.GOOS == "freebsd" {
		hint = "FreeBSD has none by default: pkg install bash"
	}
	return "", "no bash on PATH (" + hint + ")"
}
