//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
)

// watchers lists the host's process-group watchers (its children running
// the watch script).
func watchers(host int) []string {
	out, _ := exec.Command("pgrep", "-P", strconv.Itoa(host), "-f", "while read -r op").Output()
	return strings.Fields(string(out))
}

// TestExecWatcherKilledByCommandIsReplaced: a command kills its session's
// process-group watcher, then starts a long job; the host is killed with
// SIGKILL while it runs. A new watcher took over at once, so the job's
// group dies with the host rather than surviving it.
func TestExecWatcherKilledByCommandIsReplaced(t *testing.T) {
	if _, err := exec.LookPath("pgrep"); err != nil {
		t.Skip("pgrep is not installed")
	}
	bin := hostBinary(t)
	srv := fakellm.New()
	defer srv.Close()
	dir := gitRepo(t)
	cfg := t.TempDir()
	writeTestFile(t, filepath.Join(cfg, "coder", "config.json"), `{"sandbox": {"mode": "off"}}`)
	// $PPID is the host: pkill -P touches only this host's children.
	cmd := `pkill -KILL -P $PPID -f 'while read -r op' && touch killed; sleep 300 & echo $! > sleep.pid; wait`
	srv.Enqueue(fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("b", "bash", map[string]any{"command": cmd})}}, fakellm.Reply{Content: "done"})
	host := startExec(t, bin, dir, srv.URL(), []string{"XDG_CONFIG_HOME=" + cfg}, "--mode", "yolo", "run it")
	sleepPID := readPID(t, filepath.Join(dir, "sleep.pid"))
	if _, err := os.Stat(filepath.Join(dir, "killed")); err != nil {
		t.Fatalf("the command did not kill the watcher: %v\n%s", err, host.stderr)
	}
	waitFor(t, "a new watcher after the command killed the first", func() bool { return len(watchers(host.cmd.Process.Pid)) > 0 })
	if err := host.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the command's group to die with the host", func() bool { return pidGone(sleepPID) })
}
