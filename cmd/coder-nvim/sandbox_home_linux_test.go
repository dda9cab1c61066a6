package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestExecSandboxStartupFilesAtHome: with the workspace at a fake $HOME,
// the model's script, run unasked in auto-edit, cannot change the
// user's existing ~/.bashrc, and the startup files and directories it
// makes (~/.zshrc, an autostart entry, a program in ~/.local/bin) are
// moved aside as its call ends, with a note; the user's shell, desktop
// and PATH would otherwise run them later, unconfined.
func TestExecSandboxStartupFilesAtHome(t *testing.T) {
	requireSandbox(t)
	w := newSandboxWorld(t)
	home := w.ws
	env := slices.DeleteFunc(slices.Clone(w.env), func(kv string) bool {
		return strings.HasPrefix(kv, "XDG_CONFIG_HOME=") || strings.HasPrefix(kv, "XDG_STATE_HOME=") || strings.HasPrefix(kv, "HOME=") || strings.HasPrefix(kv, "ZDOTDIR=")
	})
	w.env = append(env, "HOME="+home)
	const rc = "alias ll='ls -l'\n"
	writeFiles(t, home, map[string]string{".bashrc": rc, ".config/keep.txt": "k\n"})
	script := "echo 'touch PWNED' >> ~/.bashrc; echo 'touch PWNED' > ~/.zshrc\n" +
		"mkdir -p ~/.config/autostart && echo '[Desktop Entry]' > ~/.config/autostart/a.desktop\n" +
		"mkdir -p ~/.local/bin && printf '#!/bin/sh\\ntouch PWNED\\n' > ~/.local/bin/git\n" +
		"echo '!touch PWNED' > .nvimrc\n" +
		"echo fine > notes.txt\n"
	r, res := w.run(t, "auto-edit", nil,
		toolCall("w", "write", map[string]any{"path": "plant.sh", "content": script}), bash("plant", "sh plant.sh"))
	if r.code != 0 {
		t.Fatalf("exec: exit %d\n%s", r.code, r.stderr)
	}
	if got, _ := os.ReadFile(filepath.Join(home, ".bashrc")); string(got) != rc {
		t.Errorf("~/.bashrc = %q", got)
	}
	for _, p := range []string{".zshrc", ".config/autostart", ".local/bin", ".nvimrc"} {
		if _, err := os.Lstat(filepath.Join(home, p)); err == nil {
			t.Errorf("~/%s is still there: %q", p, res["plant"])
		}
		if _, err := os.Lstat(filepath.Join(home, p+".refused")); err != nil {
			t.Errorf("~/%s was not moved aside to ~/%s.refused: %v", p, p, err)
		}
	}
	if !strings.Contains(res["plant"], "[sandbox: the command made ~/.zshrc (moved to ~/.zshrc.refused)") {
		t.Errorf("the result does not say what was moved aside: %q", res["plant"])
	}
	if got, _ := os.ReadFile(filepath.Join(home, "notes.txt")); string(got) != "fine\n" {
		t.Errorf("an ordinary file of the workspace was not written: %q", got)
	}
}

// TestExecSandboxHookDirs: a repository whose core.hooksPath is a
// directory of the workspace (.githooks; husky's .husky/_, whose hooks
// run .husky/<hook>) keeps it read-only for the model's script, run
// unasked in auto-edit: the user's next git commit runs none of it.
func TestExecSandboxHookDirs(t *testing.T) {
	requireSandbox(t)
	for _, c := range []struct{ hooksPath, hook string }{
		{".githooks", ".githooks/pre-commit"},
		{".husky/_", ".husky/pre-commit"},
	} {
		t.Run(c.hooksPath, func(t *testing.T) {
			w := newSandboxWorld(t)
			writeFiles(t, w.ws, map[string]string{c.hook: "#!/bin/sh\nexit 0\n", "a.txt": "a\n"})
			if err := os.Chmod(filepath.Join(w.ws, c.hook), 0o755); err != nil {
				t.Fatal(err)
			}
			mustGit(t, w.ws, "config", "core.hooksPath", c.hooksPath)
			dir := filepath.Dir(filepath.Join(w.ws, c.hook))
			script := "echo 'touch " + filepath.Join(w.outside, "PWNED") + "' >> " + c.hook + "\n" +
				"printf '#!/bin/sh\\ntouch " + filepath.Join(w.outside, "PWNED2") + "\\n' > " + filepath.Join(dir, "post-commit") + "; chmod +x " + filepath.Join(dir, "post-commit") + "\n" +
				"echo b > a.txt\n"
			r, res := w.run(t, "auto-edit", nil,
				toolCall("w", "write", map[string]any{"path": "plant.sh", "content": script}), bash("plant", "sh plant.sh"))
			if r.code != 0 {
				t.Fatalf("exec: exit %d\n%s", r.code, r.stderr)
			}
			if got, _ := os.ReadFile(filepath.Join(w.ws, c.hook)); string(got) != "#!/bin/sh\nexit 0\n" {
				t.Errorf("%s = %q (%s)", c.hook, got, res["plant"])
			}
			if _, err := os.Stat(filepath.Join(dir, "post-commit")); err == nil {
				t.Errorf("a new hook was made: %s", res["plant"])
			}
			if got, _ := os.ReadFile(filepath.Join(w.ws, "a.txt")); string(got) != "b\n" {
				t.Errorf("an ordinary file was not written: %q", got)
			}
			mustGit(t, w.ws, "add", "a.txt")
			mustGit(t, w.ws, "commit", "-qm", "the user's commit")
			for _, f := range []string{"PWNED", "PWNED2"} {
				if _, err := os.Stat(filepath.Join(w.outside, f)); err == nil {
					t.Errorf("the user's commit ran the model's hook (%s)", f)
				}
			}
		})
	}
}
