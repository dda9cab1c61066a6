package hostpath

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

func TestClean(t *testing.T) {
	ws := t.TempDir()
	out := t.TempDir()
	if err := os.Mkdir(filepath.Join(ws, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(out, "link")
	if err := os.Symlink(filepath.Join(ws, "bin"), link); err != nil {
		t.Skip("no symlinks:", err)
	}
	wsx := ws + "x"
	if err := os.Mkdir(wsx, 0o755); err != nil {
		t.Fatal(err)
	}
	sep := string(os.PathListSeparator)
	tests := []struct {
		name, path, want string
	}{
		{"keeps absolute outside", out + sep + "/usr/bin", out + sep + "/usr/bin"},
		{"drops relative", "node_modules/.bin" + sep + "/usr/bin" + sep + "./bin", "/usr/bin"},
		{"drops empty (the cwd)", sep + "/usr/bin" + sep, "/usr/bin"},
		{"drops the workspace and beneath", ws + sep + filepath.Join(ws, "bin") + sep + "/usr/bin", "/usr/bin"},
		{"drops a link into the workspace", link + sep + "/usr/bin", "/usr/bin"},
		{"keeps a sibling with the same prefix", wsx + sep + "/usr/bin", wsx + sep + "/usr/bin"},
		{"drops what is no directory", filepath.Join(out, "none") + sep + "/usr/bin", "/usr/bin"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got, _ := Clean(tc.path, ws); got != tc.want {
				t.Errorf("Clean(%q) = %q, want %q", tc.path, got, tc.want)
			}
		})
	}
}

func TestResolveSkipsWorkspaceGit(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("shell scripts")
	}
	ws := t.TempDir()
	bin := filepath.Join(ws, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	sep := string(os.PathListSeparator)
	p := Resolve(bin+sep+"bin"+sep+os.Getenv("PATH"), ws)
	if strings.HasPrefix(p.Git, ws) || p.Look("git") == filepath.Join(bin, "git") {
		t.Errorf("git = %q: the workspace's", p.Git)
	}
	if p.Git != "" && !filepath.IsAbs(p.Git) {
		t.Errorf("git = %q: not absolute", p.Git)
	}
	if !slices.Contains(p.Dropped, bin) || !slices.Contains(p.Dropped, "bin") {
		t.Errorf("dropped = %q", p.Dropped)
	}
	env := p.Env([]string{"PATH=" + bin, "HOME=/h"})
	if !slices.Equal(env, []string{"HOME=/h", "PATH=" + p.Path}) {
		t.Errorf("Env = %q", env)
	}
	// A program linked into the workspace from a kept directory (stow).
	stow := t.TempDir()
	if err := os.Symlink(filepath.Join(bin, "git"), filepath.Join(stow, "git")); err != nil {
		t.Fatal(err)
	}
	if got := Resolve(stow+sep+os.Getenv("PATH"), ws).Git; got == filepath.Join(stow, "git") {
		t.Errorf("git = %q: a link into the workspace", got)
	}
	cmd := p.Command("git", "--version")
	if cmd.Path != p.Git {
		t.Errorf("Command path = %q", cmd.Path)
	}
	if cmd := p.Command("no-such-program-here"); cmd.Err == nil {
		t.Error("a program not on the cleaned PATH has no error")
	}
}
