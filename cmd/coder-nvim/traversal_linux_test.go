package main

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/testrepo"
)

// tree is every file under dir with its content.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if fi.Mode().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[p] = string(data)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func assertSameTree(t *testing.T, what string, before, after map[string]string) {
	t.Helper()
	for p, c := range after {
		if b, ok := before[p]; !ok {
			t.Errorf("%s: %s was created outside the workspace (%q)", what, p, c)
		} else if b != c {
			t.Errorf("%s: %s outside the workspace was changed to %q", what, p, c)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			t.Errorf("%s: %s outside the workspace was removed", what, p)
		}
	}
}

// traversalSetup is a workspace with directories d and e, an outside
// directory and a fake $HOME each holding files named as the ones the
// model writes, and the environment exec runs in (HOME the fake one).
func traversalSetup(t *testing.T, files int) (dir, outside, home string, env []string) {
	t.Helper()
	dir = gitRepo(t)
	outside, home = t.TempDir(), t.TempDir()
	writeTestFile(t, filepath.Join(dir, ".gitignore"), ".coder\n*.swap\n")
	for i := range files {
		for _, d := range []string{filepath.Join(dir, "d"), filepath.Join(dir, "e"), outside, home} {
			writeTestFile(t, filepath.Join(d, fmt.Sprintf("f%d", i)), "old\n")
		}
	}
	cfg := t.TempDir()
	writeTestFile(t, filepath.Join(cfg, "coder", "config.json"), `{"sandbox": {"mode": "off"}}`)
	env = append(os.Environ(), "OPENAI_API_KEY=test", "XDG_CONFIG_HOME="+cfg, "HOME="+home)
	return dir, outside, home, env
}

// TestExecWritesNeverFollowSwappedLinks: while d and e are swapped with
// links to an outside directory and to $HOME in a tight loop, the model
// writes 200 files in them through exec in auto-edit: none lands outside
// (each write lands inside or is refused), and some land inside.
func TestExecWritesNeverFollowSwappedLinks(t *testing.T) {
	bin := hostBinary(t)
	srv := fakellm.New()
	defer srv.Close()
	dir, outside, home, env := traversalSetup(t, 0)
	const writes, perStep = 200, 10
	srv.SetScript(func(req fakellm.Request) fakellm.Reply {
		done := 0
		for _, m := range req.Messages {
			if m.Role == llm.RoleTool {
				done++
			}
		}
		if done >= writes {
			return fakellm.Reply{Content: "done"}
		}
		var calls []llm.ToolCall
		for i := done; i < done+perStep; i++ {
			d := []string{"d", "e"}[i%2]
			calls = append(calls, toolCall(fmt.Sprintf("w%d", i), "write", map[string]any{"path": fmt.Sprintf("%s/x%d", d, i), "content": "model\n"}))
		}
		return fakellm.Reply{ToolCalls: calls}
	})
	writeTestFile(t, filepath.Join(dir, "d", "keep"), "")
	writeTestFile(t, filepath.Join(dir, "e", "keep"), "")
	beforeOut, beforeHome := tree(t, outside), tree(t, home)
	a := testrepo.StartSwapper(t, filepath.Join(dir, "d"), outside)
	b := testrepo.StartSwapper(t, filepath.Join(dir, "e"), home)
	r := execWithEnv(t, bin, dir, append(env, "OPENAI_BASE_URL="+srv.URL()), "--mode", "auto-edit", "--yes", "write them")
	a.Halt()
	b.Halt()
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	assertSameTree(t, "writes", beforeOut, tree(t, outside))
	assertSameTree(t, "writes", beforeHome, tree(t, home))
	inside := 0
	for p := range tree(t, dir) {
		if strings.HasSuffix(p, ".tmp") {
			t.Errorf("a temporary file was left: %s", p)
		}
		if regexp.MustCompile(`^x[0-9]+$`).MatchString(filepath.Base(p)) {
			inside++
		}
	}
	if inside == 0 {
		t.Errorf("no write landed inside the workspace either:\n%s", r.stdout)
	}
	// Each refusal says why: the path leads (or was swapped to lead)
	// outside the workspace.
	reqs := srv.Requests()
	refused := 0
	for _, m := range reqs[len(reqs)-1].Messages {
		if m.Role != llm.RoleTool || strings.HasPrefix(m.Content, "Created ") {
			continue
		}
		refused++
		if !strings.Contains(m.Content, "out of the workspace") && !strings.Contains(m.Content, "outside the workspace") &&
			!strings.Contains(m.Content, "swapped for") && !strings.Contains(m.Content, "not a directory") {
			t.Errorf("a refusal does not say why: %q", m.Content)
		}
	}
	t.Logf("%d of %d writes landed inside, %d refused", inside, writes, refused)
}

// TestExecRestoreNeverFollowsLinkSwappedAtOpen is the deterministic
// variant: the turn changed the repository's d/.bashrc; when /undo (or
// /rewind 1) opens the snapshot's blob of it to restore it, a daemon
// (inotify) swaps d for a link to $HOME. The user's ~/.bashrc stays as it
// was, and the undo says it did not restore the file.
func TestExecRestoreNeverFollowsLinkSwappedAtOpen(t *testing.T) {
	bin := hostBinary(t)
	for _, cmd := range []string{"/undo", "/rewind 1"} {
		t.Run(strings.Fields(cmd)[0][1:], func(t *testing.T) {
			srv := fakellm.New()
			defer srv.Close()
			dir, _, home, env := traversalSetup(t, 0)
			env = append(env, "OPENAI_BASE_URL="+srv.URL())
			writeTestFile(t, filepath.Join(dir, "d", ".bashrc"), "repo\n")
			writeTestFile(t, filepath.Join(home, ".bashrc"), "user\n")
			srv.SetScript(func(req fakellm.Request) fakellm.Reply {
				if req.Messages[len(req.Messages)-1].Role == llm.RoleUser {
					return fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("e", "edit", map[string]any{"path": "d/.bashrc", "old_string": "repo", "new_string": "model"})}}
				}
				return fakellm.Reply{Content: "done"}
			})
			r := execWithEnv(t, bin, dir, env, "--mode", "auto-edit", "--yes", "change it")
			if got, _ := os.ReadFile(filepath.Join(dir, "d", ".bashrc")); r.code != 0 || string(got) != "model\n" {
				t.Fatalf("the turn: exit %d, d/.bashrc %q\n%s", r.code, got, r.stderr)
			}
			id := sessionID(t, r.stderr)
			blob := looseObject(t, dir, "repo\n")
			beforeHome := tree(t, home)
			swapped := testrepo.SwapOnOpen(t, blob, filepath.Join(dir, "d"), home)
			r = execWithEnv(t, bin, dir, env, "--resume", id, cmd)
			if !swapped() {
				t.Fatalf("%s never opened the blob it restores (%s); the test proves nothing:\n%s%s", cmd, blob, r.stdout, r.stderr)
			}
			assertSameTree(t, cmd, beforeHome, tree(t, home))
			if !strings.Contains(r.stdout+r.stderr, "d/.bashrc") || strings.Contains(r.stdout, "restored  d/.bashrc") {
				t.Errorf("%s does not say d/.bashrc was left alone: exit %d\n%s%s", cmd, r.code, r.stdout, r.stderr)
			}
			t.Logf("%s: exit %d\n%s%s", cmd, r.code, r.stdout, r.stderr)
		})
	}
}

// looseObject is the path of the loose git object holding content in the
// workspace repository (where snapshots keep their blobs).
func looseObject(t *testing.T, dir, content string) string {
	t.Helper()
	sum := sha1.Sum([]byte(fmt.Sprintf("blob %d\x00%s", len(content), content)))
	id := hex.EncodeToString(sum[:])
	p := filepath.Join(dir, ".git", "objects", id[:2], id[2:])
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("the snapshot's blob is not a loose object: %v", err)
	}
	return p
}
