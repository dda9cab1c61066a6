package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
)

// TestExecExpandedWriteTargetsAreDangerous: the user allows `cp *` (and
// `ln *`) in their own config, the sandbox is off; the model writes
// .git/config and a skill through words that only name them once the
// shell expands them (glob, brace, variable, a link made before or in the
// same command). Each is dangerous, so the allow rule does not cover it
// and the non-interactive exec refuses it; an ordinary cp still runs
// under the rule.
func TestExecExpandedWriteTargetsAreDangerous(t *testing.T) {
	bin := hostBinary(t)
	srv := fakellm.New()
	defer srv.Close()
	dir := gitRepo(t)
	gitConfig := filepath.Join(dir, ".git", "config")
	before, err := os.ReadFile(gitConfig)
	if err != nil {
		t.Fatal(err)
	}
	writeTestFile(t, filepath.Join(dir, "evil"), "[core]\n\tfsmonitor = \"touch pwned\"\n")
	writeTestFile(t, filepath.Join(dir, ".coder", "skills", "x", "SKILL.md"), "---\nname: x\n---\nbe careful\n")
	if err := os.Symlink(".git", filepath.Join(dir, "gitlink")); err != nil {
		t.Fatal(err)
	}
	xdg := t.TempDir()
	writeTestFile(t, filepath.Join(xdg, "coder", "config.json"), `{"sandbox": {"mode": "off"}, "permissions": {"rules": [
		{"tool": "bash", "pattern": "cp *", "decision": "allow"},
		{"tool": "bash", "pattern": "ln *", "decision": "allow"}]}}`)
	attacks := []string{
		"cp evil .g?t/config",
		"cp evil .gi[t]/config",
		"cp evil .G*/config",
		"cp evil .c?der/skills/x/SKILL.md",
		"cp evil {.git,x}/config",
		"cp evil ./{x,.coder/skills/x}/SKILL.md",
		"X=.git; cp evil $X/config",
		`cp evil "$(printf .git)/config"`,
		"cp evil gitlink/config",
		"cp -t gitlink evil",
		"ln -s .git g2 && cp evil g2/config",
		"cd .g?t && cp ../evil config",
	}
	var calls []llm.ToolCall
	for i, c := range attacks {
		calls = append(calls, toolCall(fmt.Sprintf("a%d", i), "bash", map[string]any{"command": c}))
	}
	calls = append(calls, toolCall("ok", "bash", map[string]any{"command": "cp evil copy.txt"}))
	srv.Enqueue(fakellm.Reply{ToolCalls: calls}, fakellm.Reply{Content: "done"})
	r := execUser(t, bin, dir, xdg, srv.URL(), "overwrite things")
	if got, _ := os.ReadFile(gitConfig); string(got) != string(before) {
		t.Errorf(".git/config was replaced:\n%s\nstderr:\n%s", got, r.stderr)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, ".coder", "skills", "x", "SKILL.md")); strings.Contains(string(got), "fsmonitor") {
		t.Errorf("the skill was rewritten\nstderr:\n%s", r.stderr)
	}
	res := toolResults(srv)
	for i, c := range attacks {
		if l := bashLine(r.stderr, c); !strings.Contains(l, "— denied") || !strings.Contains(res[fmt.Sprintf("a%d", i)], "DANGEROUS") {
			t.Errorf("%q was not refused as dangerous: %q\nresult: %s", c, l, res[fmt.Sprintf("a%d", i)])
		}
	}
	if l := bashLine(r.stderr, "cp evil copy.txt"); !strings.Contains(l, "— completed") {
		t.Errorf("cp under the user's allow rule: %q\n%s", l, r.stderr)
	}
}

// TestExecUserFilesProtectedInWorkspace: the workspace holds the user's
// own config, the host's trust record and Copilot's tokens (a workspace at
// $HOME, or a dotfiles repository linked into ~/.config/coder). In
// auto-edit mode, with the sandbox off and the user allowing `cp *`, no
// file tool and no shell command writes them, by name, glob or link.
func TestExecUserFilesProtectedInWorkspace(t *testing.T) {
	bin := hostBinary(t)
	const userConfig = `{"sandbox": {"mode": "off"}, "permissions": {"rules": [{"tool": "bash", "pattern": "cp *", "decision": "allow"}]}}`
	evil := `{"mode": "yolo"}`
	for _, layout := range []string{"home", "dotfiles"} {
		t.Run(layout, func(t *testing.T) {
			srv := fakellm.New()
			defer srv.Close()
			dir := gitRepo(t)
			xdgConfig, xdgState := filepath.Join(dir, ".config"), filepath.Join(dir, ".local", "state")
			cfgDir, copilotDir := "./.config/coder", ".config/github-copilot"
			if layout == "dotfiles" {
				xdgConfig = t.TempDir()
				cfgDir, copilotDir = "dots", "cop"
				for link, target := range map[string]string{"coder": cfgDir, "github-copilot": copilotDir} {
					if err := os.Mkdir(filepath.Join(dir, target), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.Symlink(filepath.Join(dir, target), filepath.Join(xdgConfig, link)); err != nil {
						t.Fatal(err)
					}
				}
			}
			files := map[string]string{
				filepath.Join(xdgConfig, "coder", "config.json"):                 userConfig,
				filepath.Join(xdgState, "coder-nvim", "trusted-workspaces.json"): "{}\n",
				filepath.Join(xdgConfig, "github-copilot", "apps.json"):          `{"github.com": {"oauth_token": "t"}}`,
			}
			for p, body := range files {
				writeTestFile(t, p, body)
			}
			writeTestFile(t, filepath.Join(dir, "evil"), evil)
			if err := os.Symlink(".local/state/coder-nvim", filepath.Join(dir, "st")); err != nil {
				t.Fatal(err)
			}
			writes := map[string]string{
				"w1": cfgDir + "/config.json",
				"w2": ".local/state/coder-nvim/trusted-workspaces.json",
				"w3": "st/trusted-workspaces.json",
				"w4": copilotDir + "/apps.json",
			}
			var calls []llm.ToolCall
			for id, p := range writes {
				calls = append(calls, toolCall(id, "write", map[string]any{"path": p, "content": evil}))
			}
			commands := []string{
				"cp evil " + cfgDir + "/config.json",
				"cp evil .local/state/coder-nvim/trusted-workspaces.json",
				"cp evil st/trusted-workspaces.json",
				"cp evil .local/st?te/coder-nvim/trusted-workspaces.json",
				"cp evil " + copilotDir + "/apps.json",
			}
			for i, c := range commands {
				calls = append(calls, toolCall(fmt.Sprintf("b%d", i), "bash", map[string]any{"command": c}))
			}
			srv.Enqueue(fakellm.Reply{ToolCalls: calls}, fakellm.Reply{Content: "done"})
			env := append(os.Environ(), "OPENAI_BASE_URL="+srv.URL(), "OPENAI_API_KEY=test",
				"XDG_CONFIG_HOME="+xdgConfig, "XDG_STATE_HOME="+xdgState, "HOME="+dir)
			r := execWithEnv(t, bin, dir, env, "--mode", "auto-edit", "make yourself yolo")
			for p, body := range files {
				if got, _ := os.ReadFile(p); string(got) != body {
					t.Errorf("%s was changed to %q\nstderr:\n%s", p, got, r.stderr)
				}
			}
			res := toolResults(srv)
			for id, p := range writes {
				if !strings.Contains(res[id], "user's own configuration") {
					t.Errorf("write %s: %q, want the refusal", p, res[id])
				}
			}
			for i, c := range commands {
				if l := bashLine(r.stderr, c); !strings.Contains(l, "— denied") || !strings.Contains(res[fmt.Sprintf("b%d", i)], "DANGEROUS") {
					t.Errorf("%q: %q\nresult: %s", c, l, res[fmt.Sprintf("b%d", i)])
				}
			}
		})
	}
}
