//go:build unix

package acp_test

import (
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	sdk "github.com/coder/acp-go-sdk"
)

// TestNoStateDirResume: an agent without HOME whose user's passwd entry
// names no usable home (nobody: /nonexistent) has no state directory, so
// it cannot tell which sessions it created. A session it reopens resumes
// in plan mode saying so, not with a false "not created on this machine"
// (codecompanion.nvim showed that line on /resume).
func TestNoStateDirResume(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("runs the agent as user nobody: needs root")
	}
	nobody, err := user.Lookup("nobody")
	if err != nil {
		t.Skipf("no user nobody: %v", err)
	}
	if st, err := os.Stat(nobody.HomeDir); err == nil && st.IsDir() {
		t.Skipf("nobody's home %s exists: the agent would find it", nobody.HomeDir)
	}
	uid, _ := strconv.Atoi(nobody.Uid)
	gid, _ := strconv.Atoi(nobody.Gid)
	// nobody must reach the binary and own the workspace.
	shared := func(pattern string) string {
		dir, err := os.MkdirTemp("", pattern)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		dir, err = filepath.EvalSymlinks(dir)
		if err != nil {
			t.Fatal(err)
		}
		return dir
	}
	bin := filepath.Join(shared("coder-nvim-bin-"), "coder-nvim")
	data, err := os.ReadFile(binary)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	root := shared("coder-nvim-nobody-")
	if err := os.Chown(root, uid, gid); err != nil {
		t.Fatal(err)
	}
	asNobody := func(cmd *exec.Cmd) {
		cmd.Path = bin
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	}
	llmSrv := fakellm.New()
	t.Cleanup(llmSrv.Close)
	o := envOptions{root: root, llm: llmSrv, cmd: asNobody, env: []string{"HOME=", "XDG_STATE_HOME=", "XDG_CONFIG_HOME="}}

	first := newEnv(t, o)
	sid, _ := first.newSession()
	llmSrv.Enqueue(fakellm.Reply{Content: "hello"})
	first.mustPrompt(sid, "hi", sdk.StopReasonEndTurn)
	if !strings.Contains(first.proc.stderr.String(), "names no usable home directory") {
		t.Errorf("the agent did not say that it found no home; stderr:\n%s", first.proc.stderr.String())
	}
	first.proc.stop()

	second := newEnv(t, o)
	resp, err := second.conn.LoadSession(ctxT(t), sdk.LoadSessionRequest{SessionId: sid, Cwd: root, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatalf("session/load: %v\nstderr:\n%s", err, second.proc.stderr.String())
	}
	if resp.Modes == nil || resp.Modes.CurrentModeId != "plan" {
		t.Errorf("modes %+v, want plan: the origin cannot be checked", resp.Modes)
	}
	want := "origin cannot be checked"
	second.client.waitFor(t, "the resume note", func() bool { return strings.Contains(agentText(second.client.snapshot()), want) })
	if got := agentText(second.client.snapshot()); strings.Contains(got, "not created on this machine") {
		t.Errorf("the agent claims the session came from elsewhere: %q", got)
	}
}
