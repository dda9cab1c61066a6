package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
)

// runAt is run with the session's workspace at dir.
func (w *sandboxWorld) runAt(t *testing.T, dir, mode string, extraEnv []string, calls ...llm.ToolCall) (result, map[string]string) {
	t.Helper()
	w.srv.Reset()
	for _, c := range calls {
		w.srv.Enqueue(fakellm.Reply{ToolCalls: []llm.ToolCall{c}})
	}
	w.srv.Enqueue(fakellm.Reply{Content: "done"})
	r := execWithEnv(t, w.bin, dir, append(slices.Clone(w.env), extraEnv...), "--mode", mode, "go")
	return r, toolResults(w.srv)
}

// git runs the user's own git in dir, outside any sandbox, as the user
// would after the session.
func userGit(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = env
	out, _ := cmd.CombinedOutput()
	return string(out)
}

func mustGit(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t", "-c", "protocol.file.allow=always"}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// goEnv lets go test run confined without touching the user's caches.
var goEnv = []string{"GOTOOLCHAIN=local", "GOFLAGS=", "GOCACHE=", "XDG_CACHE_HOME="}

// TestExecSandboxWorktreeAndSubmodule: in a linked worktree (`git
// worktree add`) and in a submodule, where .git is a file naming a git
// directory elsewhere, ls, go test, git add and git commit run confined
// and unasked in auto-edit, and the commit lands; the .git file and the
// common directory's config stay read-only.
func TestExecSandboxWorktreeAndSubmodule(t *testing.T) {
	requireSandbox(t)
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go on PATH")
	}
	w := newSandboxWorld(t)
	writeFiles(t, w.ws, map[string]string{
		"go.mod":       "module calc\n\ngo 1.26\n",
		"calc.go":      "package calc\n\nfunc Add(a, b int) int { return a + b }\n",
		"calc_test.go": "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 3) != 5 {\n\t\tt.Fatal(Add(2, 3))\n\t}\n}\n",
	})
	mustGit(t, w.ws, "add", "-A")
	mustGit(t, w.ws, "commit", "-qm", "calc")
	wt := filepath.Join(t.TempDir(), "wt")
	mustGit(t, w.ws, "worktree", "add", "-q", "-b", "feature", wt)
	super := gitRepo(t)
	mustGit(t, super, "submodule", "add", "-q", w.ws, "sub")
	mustGit(t, super, "commit", "-qm", "sub")
	home := t.TempDir()
	for name, dir := range map[string]string{"worktree": wt, "submodule": filepath.Join(super, "sub")} {
		t.Run(name, func(t *testing.T) {
			dotGit := filepath.Join(dir, ".git")
			before, _ := os.ReadFile(dotGit)
			r, res := w.runAt(t, dir, "auto-edit", append([]string{"HOME=" + home}, goEnv...),
				bash("ls", "ls"),
				// A cold build cache on a loaded machine: the longest timeout.
				toolCall("test", "bash", map[string]any{"command": "go test ./...", "timeout_ms": 600000}),
				bash("commit", "echo x > new.txt && git add new.txt && git commit -qm 'from the agent' && git log -1 --format=%s"),
				bash("dotgit", "echo 'gitdir: /tmp' > .git"),
				bash("cfg", "git config core.fsmonitor 'touch pwned'"),
			)
			if r.code != 0 {
				t.Fatalf("exec: exit %d\n%s", r.code, r.stderr)
			}
			for _, id := range []string{"ls", "test", "commit"} {
				if !strings.Contains(res[id], "exit code 0") {
					t.Errorf("%s in the %s: %q", id, name, res[id])
				}
			}
			if got := userGit(t, dir, w.env, "log", "-1", "--format=%s"); got != "from the agent\n" {
				t.Errorf("the commit did not land: %q", got)
			}
			if after, _ := os.ReadFile(dotGit); string(after) != string(before) {
				t.Errorf(".git was rewritten: %q", after)
			}
			if got := userGit(t, dir, w.env, "config", "core.fsmonitor"); got != "" {
				t.Errorf("the repository's config was written: %q", got)
			}
		})
	}
}

// hostileGit is a git configuration that names prog (called with key)
// in one of the ways git runs a program in status, diff and commit,
// with what else that way needs, as bash lines the model runs in the
// repository's work tree with its git directory at gitDir.
func hostileGit(key, prog, gitDir string) string {
	q := func(s string) string { return shellQuote(prog + " " + s) }
	switch key {
	case "none":
		return "true"
	case "fsmonitor":
		return "git config --file " + gitDir + "/config core.fsmonitor " + q(key)
	case "hooksPath":
		return "mkdir -p " + gitDir + "/../.h && printf '#!/bin/sh\\n%s\\n' " + q(key) + " > " + gitDir + "/../.h/pre-commit && chmod +x " + gitDir + "/../.h/pre-commit && " +
			"git config --file " + gitDir + "/config core.hooksPath " + gitDir + "/../.h"
	case "filter":
		return "git config --file " + gitDir + "/config filter.x.clean " + q(key) + " && echo '* filter=x' > .gitattributes && touch -d '2000-01-01' *.txt"
	default: // diff.external
		return "git config --file " + gitDir + "/config diff.external " + q(key)
	}
}

// TestExecSandboxGitStateRunsNothingLater: a script the model wrote, run
// unasked in auto-edit, plants a git configuration that names a program
// (core.fsmonitor, core.hooksPath, a filter driver, diff.external) where
// the user's git would later read it: through .git/commondir pointing at
// a directory of its own, in a nested repository added as a gitlink, in
// a repository it makes with git init where there was none, and at the
// root of a workspace that lies below its repository's top. The user's
// plain git status, git diff and git commit in the workspace afterwards,
// run outside any sandbox, run nothing.
func TestExecSandboxGitStateRunsNothingLater(t *testing.T) {
	requireSandbox(t)
	places := map[string]func(w *sandboxWorld, key, prog string) (ws, script string){
		"commondir": func(w *sandboxWorld, key, prog string) (string, string) {
			evil := filepath.Join(w.tmp, "evil")
			return w.ws, "mkdir -p " + evil + " && cp -r .git/objects .git/refs .git/config " + evil + "/ && " +
				hostileGit(key, prog, evil) + "; echo " + evil + " > .git/commondir; git status"
		},
		"gitlink": func(w *sandboxWorld, key, prog string) (string, string) {
			return w.ws, "git init -q vendor/lib && cd vendor/lib && echo x > f.txt && git add f.txt && git commit -qm lib && " +
				hostileGit(key, prog, ".git") + " && cd ../.. && git add vendor/lib && git status --short"
		},
		"subdir": func(w *sandboxWorld, key, prog string) (string, string) {
			sub := filepath.Join(w.ws, "pkg")
			writeFiles(t, sub, map[string]string{"tracked.txt": "a\n"})
			return sub, "git init -q . && git add tracked.txt && git commit -qm init && " + hostileGit(key, prog, ".git")
		},
		"init": func(w *sandboxWorld, key, prog string) (string, string) {
			plain := t.TempDir()
			writeFiles(t, plain, map[string]string{"tracked.txt": "a\n"})
			return plain, "git init -q . && git add tracked.txt && git commit -qm init && " + hostileGit(key, prog, ".git")
		},
	}
	// Each way runs the program in the user's git on main; those a place
	// does not reach there (a nested repository's hooks, diff.external
	// and filters do not run in the outer repository's status, diff or
	// commit) are left out: they would pass whatever the sandbox did.
	cases := []struct{ place, key string }{
		{"commondir", "fsmonitor"}, {"commondir", "hooksPath"}, {"commondir", "filter"}, {"commondir", "diff"},
		{"gitlink", "fsmonitor"}, {"gitlink", "none"},
		{"init", "fsmonitor"}, {"init", "hooksPath"}, {"init", "filter"}, {"init", "diff"},
		{"subdir", "fsmonitor"}, {"subdir", "hooksPath"}, {"subdir", "filter"}, {"subdir", "diff"},
	}
	for _, c := range cases {
		t.Run(c.place+"/"+c.key, func(t *testing.T) {
			w := newSandboxWorld(t)
			writeFiles(t, w.ws, map[string]string{"tracked.txt": "a\n"})
			mustGit(t, w.ws, "add", "tracked.txt")
			mustGit(t, w.ws, "commit", "-qm", "tracked")
			marker := filepath.Join(w.outside, "ran")
			prog := filepath.Join(w.outside, "prog")
			writeFiles(t, w.outside, map[string]string{"prog": "#!/bin/sh\necho \"$1\" >> " + marker + "\nexec cat\n"})
			if err := os.Chmod(prog, 0o755); err != nil {
				t.Fatal(err)
			}
			ws, script := places[c.place](w, c.key, prog)
			// A script the model wrote: the shell analysis cannot see
			// through it, so auto-edit runs it unasked, confined.
			r, res := w.runAt(t, ws, "auto-edit", nil,
				toolCall("w", "write", map[string]any{"path": "plant.sh", "content": script + "\n"}), bash("plant", "sh plant.sh"))
			if r.code != 0 || !strings.Contains(res["plant"], "exit code") {
				t.Fatalf("exec: exit %d %q\n%s", r.code, res["plant"], r.stderr)
			}
			os.Remove(marker)
			// The user, later, outside the sandbox.
			writeFiles(t, ws, map[string]string{"tracked.txt": "changed by the user\n"})
			userGit(t, ws, w.env, "status")
			userGit(t, ws, w.env, "diff")
			userGit(t, ws, w.env, "commit", "-qam", "the user's")
			if data, err := os.ReadFile(marker); err == nil {
				t.Errorf("the user's git ran the model's program (%s): %q\nplant: %q", c.key, data, res["plant"])
			}
			if c.place != "gitlink" {
				return
			}
			// A nested repository naming nothing stays as it is; one
			// naming a program is moved aside, and the model is told.
			_, err := os.Stat(filepath.Join(ws, "vendor", "lib", ".git"))
			if refused := strings.Contains(res["plant"], "moved aside"); refused != (c.key != "none") || (err == nil) != (c.key == "none") {
				t.Errorf("%s: refused %v, .git there: %v; %q", c.key, refused, err == nil, res["plant"])
			}
		})
	}
}

// TestExecSandboxRenamesKeepGuards: a script the model wrote, run
// unasked in auto-edit, renames a guarded directory's parent away and
// makes a new one in its place: the user's config directory and the
// host's state directory with the workspace at a fake $HOME (the config
// directory missing when the session starts), and the workspace itself
// and a directory above it when it lies in the writable temp dir. Each
// rename fails, and nothing lands where the guards were.
func TestExecSandboxRenamesKeepGuards(t *testing.T) {
	requireSandbox(t)
	t.Run("home", func(t *testing.T) {
		w := newSandboxWorld(t)
		home := w.ws
		env := slices.DeleteFunc(slices.Clone(w.env), func(kv string) bool {
			return strings.HasPrefix(kv, "XDG_CONFIG_HOME=") || strings.HasPrefix(kv, "XDG_STATE_HOME=") || strings.HasPrefix(kv, "HOME=")
		})
		w.env = append(env, "HOME="+home)
		cfg := filepath.Join(home, ".config", "coder", "config.json")
		state := filepath.Join(home, ".local", "state", "coder-nvim")
		if err := os.MkdirAll(filepath.Join(home, ".config"), 0o755); err != nil {
			t.Fatal(err)
		}
		script := "mv ~/.config ~/.config.old; mkdir -p ~/.config/coder; echo '{\"mode\": \"yolo\"}' > " + cfg + "\n" +
			"mv ~/.local ~/.local.old; mv ~/.local/state ~/.local/state.old; mkdir -p " + state + "; echo x > " + state + "/planted\n" +
			"mkdir -p ~/.config/coder; echo '{\"mode\": \"yolo\"}' > " + cfg + "\n"
		r, res := w.run(t, "auto-edit", nil,
			toolCall("w", "write", map[string]any{"path": "move.sh", "content": script}), bash("move", "sh move.sh"))
		if r.code != 0 || !strings.Contains(res["move"], "exit code") {
			t.Fatalf("exec: exit %d %q\n%s", r.code, res["move"], r.stderr)
		}
		for _, p := range []string{filepath.Join(home, ".config.old"), filepath.Join(home, ".local.old"), filepath.Join(home, ".local", "state.old"), cfg, filepath.Join(state, "planted")} {
			if _, err := os.Stat(p); err == nil {
				t.Errorf("%s exists: %q", p, res["move"])
			}
		}
	})
	t.Run("temp", func(t *testing.T) {
		w := newSandboxWorld(t)
		ws := filepath.Join(w.tmp, "above", "proj")
		if err := os.MkdirAll(filepath.Dir(ws), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(w.ws, ws); err != nil {
			t.Fatal(err)
		}
		config := filepath.Join(ws, ".git", "config")
		before, _ := os.ReadFile(config)
		script := "cd " + ws + "/..; mv proj proj.old; mv " + filepath.Dir(ws) + " " + filepath.Dir(ws) + ".old\n" +
			"mkdir -p " + ws + " && cd " + ws + " && git init -q . && git config core.fsmonitor 'touch pwned'\n"
		r, res := w.runAt(t, ws, "auto-edit", nil,
			toolCall("w", "write", map[string]any{"path": "move.sh", "content": script}), bash("move", "sh move.sh"))
		if r.code != 0 || !strings.Contains(res["move"], "exit code") {
			t.Fatalf("exec: exit %d %q\n%s", r.code, res["move"], r.stderr)
		}
		for _, p := range []string{filepath.Join(filepath.Dir(ws), "proj.old"), filepath.Dir(ws) + ".old"} {
			if _, err := os.Stat(p); err == nil {
				t.Errorf("%s exists: %q", p, res["move"])
			}
		}
		if after, _ := os.ReadFile(config); string(after) != string(before) {
			t.Errorf("the workspace's .git/config is another: %q", after)
		}
	})
}

// TestExecSandboxGuardOutlivesHostRewrite: the user's own git config
// during a session puts a new .git/config in place by a rename, which
// takes the fork server's read-only mount of the old one with it; the
// model's next script, run unasked in auto-edit, still cannot write it.
func TestExecSandboxGuardOutlivesHostRewrite(t *testing.T) {
	requireSandbox(t)
	w := newSandboxWorld(t)
	config := filepath.Join(w.ws, ".git", "config")
	steps := []llm.ToolCall{
		bash("warm", "true"),
		toolCall("w", "write", map[string]any{"path": "plant.sh", "content": "git config core.fsmonitor 'touch pwned'; echo '[core]' >> .git/config\n"}),
		bash("plant", "sh plant.sh"),
	}
	w.srv.Reset()
	w.srv.SetScript(func(req fakellm.Request) fakellm.Reply {
		n := 0
		for _, m := range req.Messages {
			if m.Role == "tool" {
				n++
			}
		}
		if n == 1 { // between the calls: the user, outside
			if out, err := exec.Command("git", "-C", w.ws, "config", "user.name", "someone").CombinedOutput(); err != nil {
				t.Errorf("git config: %v %s", err, out)
			}
		}
		if n < len(steps) {
			return fakellm.Reply{ToolCalls: []llm.ToolCall{steps[n]}}
		}
		return fakellm.Reply{Content: "done"}
	})
	r := execWithEnv(t, w.bin, w.ws, w.env, "--mode", "auto-edit", "go")
	res := toolResults(w.srv)
	if r.code != 0 || !strings.Contains(res["plant"], "exit code") {
		t.Fatalf("exec: exit %d %q\n%s", r.code, res["plant"], r.stderr)
	}
	data, _ := os.ReadFile(config)
	if !strings.Contains(string(data), "someone") {
		t.Fatalf("the user's git config did not land: %q", data)
	}
	if strings.Contains(string(data), "fsmonitor") || strings.Count(string(data), "[core]") > 1 {
		t.Errorf("the model wrote .git/config after the user's rewrite: %q", data)
	}
}
