package tools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/sandbox"
)

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// TestAgentFilesProtected: no file tool writes the agent's own files, by
// any name or link that leads there; skills are written only after asking.
func TestAgentFilesProtected(t *testing.T) {
	const config = `{"model": "m"}`
	files := map[string]string{
		".coder/config.json":            config,
		".coder/sessions/s.json":        "{}",
		".coder/skills/x/SKILL.md":      "old skill\n",
		"sub/.coder/config.json":        config,
		"plain.txt":                     "plain\n",
		"notcoder/.coderx/settings.txt": "fine\n",
	}
	const refused, ask, allowed = "refused", "ask", "allowed"
	tests := []struct {
		name, tool string
		args       func(root string) map[string]any
		want       string
	}{
		{"write config", "write", pathArgs(".coder/config.json"), refused},
		{"write new file in .coder", "write", pathArgs(".coder/hooks.json"), refused},
		{"write session", "write", pathArgs(".coder/sessions/s.json"), refused},
		{"dot-dot detour", "write", pathArgs("./.coder/../.coder/config.json"), refused},
		{"upper case", "write", pathArgs(".CODER/config.json"), refused},
		{"trailing dot", "write", pathArgs(".coder./config.json"), refused},
		{"zero-width joiner", "write", pathArgs(".co\u200cder/config.json"), refused},
		{"nested .coder", "write", pathArgs("sub/.coder/config.json"), refused},
		{"absolute path", "write", func(root string) map[string]any {
			return map[string]any{"path": filepath.Join(root, ".coder", "config.json"), "content": "x"}
		}, refused},
		{"file link into .coder", "write", pathArgs("cfg-link"), refused},
		{"directory link to .coder", "write", pathArgs("dir-link/config.json"), refused},
		{"edit config", "edit", func(string) map[string]any {
			return map[string]any{"path": ".coder/config.json", "old_string": `"m"`, "new_string": `"evil"`}
		}, refused},
		{"patch update config", "patch", patchBody("*** Update File: .coder/config.json\n@@\n-{\"model\": \"m\"}\n+{\"mode\": \"yolo\"}\n"), refused},
		{"patch add in .coder", "patch", patchBody("*** Add File: .coder/new.json\n+{}\n"), refused},
		{"patch delete config", "patch", patchBody("*** Delete File: .coder/config.json\n"), refused},
		{"patch move config away", "patch", patchBody("*** Update File: .coder/config.json\n*** Move to: moved.json\n"), refused},
		{"patch move onto config", "patch", patchBody("*** Update File: plain.txt\n*** Move to: .coder/config.json\n"), refused},
		{"patch move into .coder", "patch", patchBody("*** Update File: plain.txt\n*** Move to: .coder/plain.txt\n"), refused},
		{"write skill", "write", pathArgs(".coder/skills/y/SKILL.md"), ask},
		{"edit skill", "edit", func(string) map[string]any {
			return map[string]any{"path": ".coder/skills/x/SKILL.md", "old_string": "old", "new_string": "new"}
		}, ask},
		{"patch skill among others", "patch", patchBody("*** Add File: a.txt\n+a\n*** Add File: .coder/skills/z/SKILL.md\n+z\n"), ask},
		{"skills dir itself", "write", pathArgs(".coder/skills"), refused},
		{"look-alike names", "write", pathArgs("notcoder/.coderx/new.txt"), allowed},
		{"plain file", "write", pathArgs("new.txt"), allowed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := newWS(t, files)
			root := ws.Root()
			symlink(t, filepath.Join(root, ".coder", "config.json"), filepath.Join(root, "cfg-link"))
			symlink(t, ".coder", filepath.Join(root, "dir-link"))
			inv, err := prepare(t, ws, tt.tool, tt.args(root))
			switch tt.want {
			case refused:
				if err == nil || !strings.Contains(err.Error(), "agent's own configuration") {
					t.Fatalf("err = %v, want the agent's files refused", err)
				}
			case ask:
				if err != nil {
					t.Fatal(err)
				}
				if inv.Confirm != SkillWriteReason {
					t.Errorf("Confirm = %q, want the skill reason", inv.Confirm)
				}
			case allowed:
				if err != nil {
					t.Fatal(err)
				}
				if inv.Confirm != "" {
					t.Errorf("Confirm = %q, want none", inv.Confirm)
				}
			}
			if got := readFile(t, ws, ".coder/config.json"); got != config {
				t.Errorf("config changed: %q", got)
			}
		})
	}
}

func pathArgs(p string) func(string) map[string]any {
	return func(string) map[string]any { return map[string]any{"path": p, "content": `{"mode": "yolo"}`} }
}

func patchBody(body string) func(string) map[string]any {
	return func(string) map[string]any {
		return map[string]any{"patch": "*** Begin Patch\n" + body + "*** End Patch\n"}
	}
}

// TestAgentDirSymlinked: when .coder itself is a symlink to a directory of
// the workspace, that directory is protected under its own name too.
func TestAgentDirSymlinked(t *testing.T) {
	ws := newWS(t, map[string]string{"conf/config.json": "{}", "conf/skills/s/SKILL.md": "s\n"})
	symlink(t, "conf", filepath.Join(ws.Root(), ".coder"))
	if _, err := prepare(t, ws, "write", map[string]any{"path": "conf/config.json", "content": "x"}); err == nil {
		t.Error("writing conf/config.json through its real name was allowed")
	}
	inv, err := prepare(t, ws, "write", map[string]any{"path": "conf/skills/s/notes.md", "content": "x"})
	if err != nil {
		t.Fatal(err)
	}
	if inv.Confirm == "" {
		t.Error("a skill written through the real name is not asked")
	}
}

// TestApplyRefusesAgentFiles: the final gate, for changes that did not come
// from Prepare (or whose paths changed since).
func TestApplyRefusesAgentFiles(t *testing.T) {
	ws := newWS(t, map[string]string{".coder/config.json": "{}"})
	err := ws.Apply(context.Background(), []FileChange{{Path: ".coder/config.json", Op: OpUpdate, Old: "{}", New: `{"mode":"yolo"}`}})
	if err == nil {
		t.Fatal("Apply wrote .coder/config.json")
	}
	if got := readFile(t, ws, ".coder/config.json"); got != "{}" {
		t.Errorf("config = %q", got)
	}
}

// TestSymlinkDeleteMove: Delete and Move act on a link, never on its
// target; Update edits the target when it is inside the workspace.
func TestSymlinkDeleteMove(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "outside.txt")
	writeFile(t, outside, "outside\n")
	tests := []struct {
		name    string
		patch   string
		wantErr string
		gone    []string          // paths (Lstat) that must not exist after
		links   map[string]string // link path -> what it must hold after
	}{
		{name: "delete link", patch: "*** Delete File: link.txt\n", gone: []string{"link.txt"}},
		{name: "delete dangling link", patch: "*** Delete File: dangling.txt\n", gone: []string{"dangling.txt"}},
		{name: "delete link to outside", patch: "*** Delete File: out.txt\n", gone: []string{"out.txt"}},
		{name: "delete link to a directory", patch: "*** Delete File: dirlink\n", gone: []string{"dirlink"}},
		{name: "move link", patch: "*** Update File: link.txt\n*** Move to: moved/link.txt\n",
			gone: []string{"link.txt"}, links: map[string]string{"moved/link.txt": "target.txt"}},
		{name: "move link with content change", patch: "*** Update File: link.txt\n*** Move to: b.txt\n@@\n-target\n+changed\n",
			wantErr: "symbolic link"},
		{name: "update through link", patch: "*** Update File: link.txt\n@@\n-target\n+changed\n"},
		{name: "update through link to outside", patch: "*** Update File: out.txt\n@@\n-outside\n+changed\n", wantErr: "outside the workspace"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := newWS(t, map[string]string{"target.txt": "target\n", "dir/a.txt": "a\n"})
			root := ws.Root()
			symlink(t, "target.txt", filepath.Join(root, "link.txt"))
			symlink(t, "missing.txt", filepath.Join(root, "dangling.txt"))
			symlink(t, outside, filepath.Join(root, "out.txt"))
			symlink(t, "dir", filepath.Join(root, "dirlink"))
			// An editor's guard sees each change as Apply makes it: a
			// link's own path, whatever it points at.
			ws.SetGuard(func(context.Context, string) error { return nil })
			inv, err := prepare(t, ws, "patch", map[string]any{"patch": "*** Begin Patch\n" + tt.patch + "*** End Patch\n"})
			if err == nil {
				err = ws.CheckGuard(context.Background(), inv.Changes)
			}
			if err == nil {
				if res := inv.Run(context.Background()); res.IsError {
					err = errorString(res.Output)
				}
			}
			switch {
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("err = %v, want %q", err, tt.wantErr)
			case tt.wantErr == "" && err != nil:
				t.Fatal(err)
			}
			wantTarget := "target\n"
			if tt.name == "update through link" {
				wantTarget = "changed\n"
				if fi, err := os.Lstat(filepath.Join(root, "link.txt")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
					t.Error("link.txt is no longer a symbolic link")
				}
			}
			if got := readFile(t, ws, "target.txt"); got != wantTarget {
				t.Errorf("target.txt = %q, want %q", got, wantTarget)
			}
			if got := readFile(t, ws, "dir/a.txt"); got != "a\n" {
				t.Errorf("dir/a.txt = %q", got)
			}
			if data, err := os.ReadFile(outside); err != nil || string(data) != "outside\n" {
				t.Errorf("outside file = %q, %v", data, err)
			}
			for _, p := range tt.gone {
				if _, err := os.Lstat(filepath.Join(root, p)); err == nil {
					t.Errorf("%s still exists", p)
				}
			}
			for p, want := range tt.links {
				if got, err := os.Readlink(filepath.Join(root, p)); err != nil || got != want {
					t.Errorf("%s holds %q (%v), want %q", p, got, err, want)
				}
			}
		})
	}
}

type errorString string

func (e errorString) Error() string { return string(e) }

// TestSymlinkDeleteRollback: a failed set puts a deleted link back as a
// link.
func TestSymlinkDeleteRollback(t *testing.T) {
	ws := newWS(t, map[string]string{"target.txt": "target\n", "plain.txt": "p\n", "file.txt": "f\n"})
	root := ws.Root()
	symlink(t, "target.txt", filepath.Join(root, "link.txt"))
	// The move fails when it writes: file.txt is not a directory.
	inv, err := prepare(t, ws, "patch", map[string]any{"patch": "*** Begin Patch\n*** Delete File: link.txt\n*** Update File: plain.txt\n*** Move to: file.txt/sub.txt\n*** End Patch\n"})
	if err != nil {
		t.Fatal(err)
	}
	if res := inv.Run(context.Background()); !res.IsError {
		t.Fatalf("the set applied: %s", res.Output)
	}
	if got, err := os.Readlink(filepath.Join(root, "link.txt")); err != nil || got != "target.txt" {
		t.Errorf("link.txt after rollback: %q, %v", got, err)
	}
	if got := readFile(t, ws, "plain.txt"); got != "p\n" {
		t.Errorf("plain.txt = %q", got)
	}
}

// TestFirstSkill: a skill is asked, not refused, before .coder/skills
// exists.
func TestFirstSkill(t *testing.T) {
	ws := newWS(t, map[string]string{".coder/config.json": "{}"})
	inv, err := prepare(t, ws, "write", map[string]any{"path": ".coder/skills/new/SKILL.md", "content": "x"})
	if err != nil {
		t.Fatal(err)
	}
	if inv.Confirm == "" {
		t.Error("the first skill is not asked")
	}
}

// TestStartupFilesAsked: with the workspace at the home directory, every
// file tool write to a startup file or into a startup directory, by any
// name or link that leads there, is asked with its reason; other files
// are not.
func TestStartupFilesAsked(t *testing.T) {
	tests := []struct {
		name, tool string
		args       func(root string) map[string]any
		asked      string // the startup path named, "" when not asked
	}{
		{"write .bash_profile", "write", pathArgs(".bash_profile"), ".bash_profile"},
		{"write a new .zshrc", "write", pathArgs(".zshrc"), ".zshrc"},
		{"autostart entry", "write", pathArgs(".config/autostart/x.desktop"), ".config/autostart"},
		{"a program on PATH", "write", pathArgs(".local/bin/git"), ".local/bin"},
		{"through a directory link", "write", pathArgs("auto-link/new.desktop"), ".config/autostart"},
		{"edit .bashrc", "edit", func(string) map[string]any {
			return map[string]any{"path": ".bashrc", "old_string": "alias", "new_string": "touch pwned; alias"}
		}, ".bashrc"},
		{"patch move onto .profile", "patch", patchBody("*** Update File: notes.txt\n*** Move to: .profile\n"), ".profile"},
		{"patch delete .bashrc", "patch", patchBody("*** Delete File: .bashrc\n"), ".bashrc"},
		{"look-alike", "write", pathArgs("src/.bashrc.example"), ""},
		{"plain file", "write", pathArgs("notes2.txt"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := newWS(t, map[string]string{".bashrc": "alias ll='ls -l'\n", "notes.txt": "n\n", ".config/autostart/old.desktop": "[Desktop Entry]\n"})
			root := ws.Root()
			ws.SetRunsLater(sandbox.RunsLater(root, func(string) string { return "" }))
			symlink(t, filepath.Join(root, ".config", "autostart"), filepath.Join(root, "auto-link"))
			inv, err := prepare(t, ws, tt.tool, tt.args(root))
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tt.asked == "" && inv.Confirm != "":
				t.Errorf("Confirm = %q, want none", inv.Confirm)
			case tt.asked != "" && inv.Confirm != fmt.Sprintf(RunsLaterReason, filepath.Join(root, tt.asked)):
				t.Errorf("Confirm = %q, want the startup reason for %s", inv.Confirm, tt.asked)
			}
		})
	}
}
