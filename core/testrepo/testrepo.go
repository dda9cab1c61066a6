// Package testrepo is test support shared by packages that run git: a
// large committed repository for benchmarks, and a log of the git
// processes code under test starts. It is imported by tests only.
package testrepo

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Large makes root a committed repository of n files (100 per directory)
// with 1% untracked files beside them, in gen/.
func Large(tb testing.TB, root string, n int) {
	tb.Helper()
	body := []byte(strings.Repeat("some line of code\n", 20))
	write := func(path string) {
		if err := os.WriteFile(path, body, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	mkdir := func(dir string) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			tb.Fatal(err)
		}
	}
	for i := range n {
		dir := filepath.Join(root, fmt.Sprintf("d%04d", i/100))
		if i%100 == 0 {
			mkdir(dir)
		}
		write(filepath.Join(dir, fmt.Sprintf("f%06d.go", i)))
	}
	git := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=b", "GIT_AUTHOR_EMAIL=b@b", "GIT_COMMITTER_NAME=b", "GIT_COMMITTER_EMAIL=b@b", "GIT_CONFIG_GLOBAL=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			tb.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	git("add", "-A")
	git("commit", "-qm", "tree")
	mkdir(filepath.Join(root, "gen"))
	for i := range n / 100 {
		write(filepath.Join(root, "gen", fmt.Sprintf("u%05d.txt", i)))
	}
}

// GitLog puts a git first on PATH that logs each invocation's subcommand
// (the first argument that is no `-c` option), then runs the real git.
// The returned function gives the subcommands logged so far, in order,
// and starts the log again. Tests that use it cannot run in parallel
// (PATH is the process's).
func GitLog(tb testing.TB) func() []string {
	tb.Helper()
	real, err := exec.LookPath("git")
	if err != nil {
		tb.Skip("git is not installed")
	}
	dir := tb.TempDir()
	log := filepath.Join(dir, "git.log")
	script := "#!/bin/sh\n" +
		"for a in \"$@\"; do case \"$prev\" in -c) prev=;; *) case \"$a\" in -c) prev=-c;; *) printf '%s\\n' \"$a\" >>'" + log + "'; break;; esac;; esac; done\n" +
		"exec '" + real + "' \"$@\"\n"
	if err := os.WriteFile(filepath.Join(dir, "git"), []byte(script), 0o755); err != nil {
		tb.Fatal(err)
	}
	tb.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return func() []string {
		data, err := os.ReadFile(log)
		if os.IsNotExist(err) {
			return nil
		}
		if err != nil {
			tb.Fatal(err)
		}
		os.Remove(log) //nolint:errcheck // the next count starts empty
		return strings.Fields(string(data))
	}
}
