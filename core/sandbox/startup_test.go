package sandbox

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestGuardRunsLater: with the workspace at the home directory, the
// existing startup files are protected, the missing ones too (for
// Seatbelt) and watched; one a call makes is moved aside at its end, one
// the user made before the call is left alone; $ZDOTDIR's zsh files
// count; with the workspace elsewhere, nothing of the home is touched,
// and the workspace's own editor rc files (.nvimrc, .exrc, .nvim.lua)
// are guarded.
func TestGuardRunsLater(t *testing.T) {
	home := t.TempDir()
	zdot := filepath.Join(home, ".config", "zsh")
	for _, d := range []string{zdot, filepath.Join(home, ".config")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(home, ".bashrc"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	getenv := func(k string) string {
		if k == "ZDOTDIR" {
			return zdot
		}
		return ""
	}
	g := GuardWorkspace(context.Background(), GuardSpec{Root: home, Writable: []string{home}, Home: home, Getenv: getenv})
	g.Ready()
	for _, p := range []string{".bashrc", ".zshrc", ".config/autostart", ".local/bin", ".config/zsh/.zshrc"} {
		if !slices.Contains(g.Protected, realPath(filepath.Join(home, p))) {
			t.Errorf("~/%s is not protected: %v", p, g.Protected)
		}
	}
	if !strings.Contains(g.StatusLine(), "its startup files are read-only") {
		t.Errorf("status line %q", g.StatusLine())
	}
	later := func(p string) bool { return slices.ContainsFunc(g.later, func(w watched) bool { return w.path == p }) }
	if later(filepath.Join(home, ".bashrc")) || !later(filepath.Join(home, ".zshrc")) {
		t.Errorf("watched: %v", g.later)
	}
	// The user makes ~/.profile between calls; a call makes ~/.zshrc and
	// $ZDOTDIR/.zshrc.
	if err := os.WriteFile(filepath.Join(home, ".profile"), []byte("users\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	end := g.BeginCall()
	for _, p := range []string{".zshrc", ".config/zsh/.zshrc"} {
		if err := os.WriteFile(filepath.Join(home, p), []byte("touch pwned\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	note := end(context.Background())
	for _, p := range []string{".zshrc", ".config/zsh/.zshrc"} {
		if _, err := os.Lstat(filepath.Join(home, p)); err == nil {
			t.Errorf("~/%s is still there", p)
		}
		if data, err := os.ReadFile(filepath.Join(home, p+".refused")); err != nil || string(data) != "touch pwned\n" {
			t.Errorf("~/%s.refused = %q, %v", p, data, err)
		}
		if !strings.Contains(note, "~/"+p+" (moved to ~/"+p+".refused)") {
			t.Errorf("the note does not name ~/%s: %q", p, note)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(home, ".profile")); string(data) != "users\n" {
		t.Errorf("the user's own ~/.profile was moved: %q", data)
	}
	// A second one made: the first refused copy stays.
	end = g.BeginCall()
	if err := os.WriteFile(filepath.Join(home, ".zshrc"), []byte("again\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if note := end(context.Background()); !strings.Contains(note, "~/.zshrc (moved to ~/.zshrc.refused-1)") {
		t.Errorf("second note %q", note)
	}

	ws := filepath.Join(t.TempDir(), "proj")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	g = GuardWorkspace(context.Background(), GuardSpec{Root: ws, Writable: []string{ws}, Home: home, Getenv: getenv, RunsLater: WorkspaceRunsLater(context.Background(), ws, home)})
	g.Ready()
	if g.StatusLine() != "" {
		t.Errorf("status line %q with the home outside the roots", g.StatusLine())
	}
	outside := func(p string) bool { return !within(p, realPath(ws)) }
	if slices.ContainsFunc(g.later, func(w watched) bool { return outside(w.path) }) || slices.ContainsFunc(g.Protected, outside) {
		t.Errorf("a workspace outside the home guards the home's files: later %v, protected %v", g.later, g.Protected)
	}
	end = g.BeginCall()
	if err := os.WriteFile(filepath.Join(ws, ".nvimrc"), []byte("!touch pwned\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if note := end(context.Background()); !strings.Contains(note, ".nvimrc (moved to .nvimrc.refused)") {
		t.Errorf("a .nvimrc made in the workspace: note %q", note)
	}
}

func TestHookDirs(t *testing.T) {
	ws := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", ws).CombinedOutput(); err != nil {
		t.Skipf("no git: %v %s", err, out)
	}
	if got := HookDirs(context.Background(), ws, "/home/u"); got != nil {
		t.Errorf("without core.hooksPath: %v", got)
	}
	real := realPath(ws)
	for _, c := range []struct {
		value string
		want  []string
	}{
		{".githooks", []string{filepath.Join(real, ".githooks")}},
		{".husky/_", []string{filepath.Join(real, ".husky", "_"), filepath.Join(real, ".husky")}},
		{"~/hooks", []string{"/home/u/hooks"}},
	} {
		if out, err := exec.Command("git", "-C", ws, "config", "core.hooksPath", c.value).CombinedOutput(); err != nil {
			t.Fatalf("%v %s", err, out)
		}
		if got := HookDirs(context.Background(), filepath.Join(ws), "/home/u"); !slices.Equal(got, c.want) {
			t.Errorf("core.hooksPath %s: %v, want %v", c.value, got, c.want)
		}
	}
}

// TestGitRunsLater: a pre-commit shim in .git/hooks makes its
// .pre-commit-config.yaml a path that runs later, protected, and one a
// call makes (lefthook-local.yml, with lefthook's shim) moved aside;
// without a shim neither is.
func TestGitRunsLater(t *testing.T) {
	ws := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", ws).CombinedOutput(); err != nil {
		t.Skipf("no git: %v %s", err, out)
	}
	real := realPath(ws)
	if got := GitRunsLater(context.Background(), ws, ""); len(got) != 0 {
		t.Errorf("without a shim: %v", got)
	}
	for name, shim := range map[string]string{"pre-commit": "#!/usr/bin/env bash\n# File generated by pre-commit: https://pre-commit.com\n", "post-checkout": "#!/bin/sh\ncall_lefthook run post-checkout\n"} {
		if err := os.WriteFile(filepath.Join(ws, ".git", "hooks", name), []byte(shim), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ws, ".pre-commit-config.yaml"), []byte("repos: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := GitRunsLater(context.Background(), ws, "")
	for _, want := range []string{".pre-commit-config.yaml", "lefthook-local.yml", ".lefthook"} {
		if !slices.Contains(got, filepath.Join(real, want)) {
			t.Errorf("%s is not among %v", want, got)
		}
	}
	g := GuardWorkspace(context.Background(), GuardSpec{Root: ws, Writable: []string{ws}, RunsLater: got})
	g.Ready()
	if !slices.Contains(g.Protected, filepath.Join(real, ".pre-commit-config.yaml")) {
		t.Errorf(".pre-commit-config.yaml is not protected: %v", g.Protected)
	}
	end := g.BeginCall()
	if err := os.WriteFile(filepath.Join(ws, "lefthook-local.yml"), []byte("pre-commit:\n  commands:\n    x:\n      run: touch pwned\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if note := end(context.Background()); !strings.Contains(note, "lefthook-local.yml (moved to lefthook-local.yml.refused)") {
		t.Errorf("note %q", note)
	}
	if _, err := os.Lstat(filepath.Join(ws, "lefthook-local.yml")); err == nil {
		t.Error("lefthook-local.yml is still there")
	}
}
