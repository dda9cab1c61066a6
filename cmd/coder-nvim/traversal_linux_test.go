package main

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
)

// swapper stands in for a daemon a confined command left behind: it swaps
// the workspace directory dir with a symbolic link to target (renameat2
// RENAME_EXCHANGE) in a tight loop until stopped, leaving dir a directory.
type swapper struct {
	stop chan struct{}
	done sync.WaitGroup
	dir  string
	link string
}

func startSwapper(t *testing.T, dir, target string) *swapper {
	t.Helper()
	s := &swapper{stop: make(chan struct{}), dir: dir, link: dir + ".swap"}
	if err := os.Symlink(target, s.link); err != nil {
		t.Fatal(err)
	}
	s.done.Add(1)
	go func() {
		defer s.done.Done()
		swapped := false
		for {
			select {
			case <-s.stop:
				if swapped {
					unix.Renameat2(unix.AT_FDCWD, s.dir, unix.AT_FDCWD, s.link, unix.RENAME_EXCHANGE) //nolint:errcheck // best effort: the check below says
				}
				return
			default:
			}
			if err := unix.Renameat2(unix.AT_FDCWD, s.dir, unix.AT_FDCWD, s.link, unix.RENAME_EXCHANGE); err == nil {
				swapped = !swapped
			}
		}
	}()
	t.Cleanup(s.halt)
	return s
}

func (s *swapper) halt() {
	select {
	case <-s.stop:
		return
	default:
	}
	close(s.stop)
	s.done.Wait()
}

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
	a := startSwapper(t, filepath.Join(dir, "d"), outside)
	b := startSwapper(t, filepath.Join(dir, "e"), home)
	r := execWithEnv(t, bin, dir, append(env, "OPENAI_BASE_URL="+srv.URL()), "--mode", "auto-edit", "--yes", "write them")
	a.halt()
	b.halt()
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	assertSameTree(t, "writes", beforeOut, tree(t, outside))
	assertSameTree(t, "writes", beforeHome, tree(t, home))
	inside := 0
	for p := range tree(t, dir) {
		if strings.Contains(filepath.Base(p), "x") && !strings.HasSuffix(p, ".tmp") {
			inside++
		}
	}
	if inside == 0 {
		t.Errorf("no write landed inside the workspace either:\n%s", r.stdout)
	}
	// Each refusal says why: the path leads outside the workspace.
	reqs := srv.Requests()
	refused := 0
	for _, m := range reqs[len(reqs)-1].Messages {
		if m.Role == llm.RoleTool && !strings.Contains(m.Content, "x") {
			continue
		}
		if m.Role == llm.RoleTool && strings.Contains(strings.ToLower(m.Content), "error") {
			refused++
			if !strings.Contains(m.Content, "outside the workspace") && !strings.Contains(m.Content, "swapped for a symbolic link") {
				t.Errorf("a refusal does not say why: %q", m.Content)
			}
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
			swapped := swapOnOpen(t, blob, filepath.Join(dir, "d"), home)
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

// swapOnOpen waits (inotify) for watched to be opened, then swaps dir
// with a link to target once; the function returned says whether it did.
func swapOnOpen(t *testing.T, watched, dir, target string) func() bool {
	t.Helper()
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		t.Skipf("no inotify: %v", err)
	}
	if _, err := unix.InotifyAddWatch(fd, watched, unix.IN_OPEN); err != nil {
		unix.Close(fd)
		t.Skipf("inotify watch: %v", err)
	}
	link := dir + ".swap"
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	stop, done := make(chan struct{}), make(chan bool, 1)
	go func() {
		defer unix.Close(fd)
		buf := make([]byte, 4096)
		for {
			select {
			case <-stop:
				done <- false
				return
			default:
			}
			fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
			if n, _ := unix.Poll(fds, 50); n <= 0 {
				continue
			}
			if n, _ := unix.Read(fd, buf); n > 0 {
				done <- unix.Renameat2(unix.AT_FDCWD, dir, unix.AT_FDCWD, link, unix.RENAME_EXCHANGE) == nil
				return
			}
		}
	}()
	var once sync.Once
	var swapped bool
	result := func() bool {
		once.Do(func() { close(stop); swapped = <-done })
		return swapped
	}
	t.Cleanup(func() { result() })
	return result
}
