//go:build unix

package nvimhost

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/store"
)

// TestSigtermSavesTheRunningTool: Neovim stops its host with SIGTERM. The
// host then stops like an interrupt: the running command's process group
// is killed, its result written and the session saved.
func TestSigtermSavesTheRunningTool(t *testing.T) {
	e := newEditor(t, editorOpts{config: `{"auto_approve_ask": true}`})
	e.start()
	// The host's pids (see toolThatWaits in cmd/coder-nvim): $$ and $!
	// are the sandbox's PID namespace's.
	cmd := "sh -c 'read -r p _ < /proc/self/stat; echo $p > bg.pid; exec sleep 300' & sh -c 'read -r p _ < /proc/self/stat; echo $p > fg.pid; exec sleep 300'"
	e.llm.Enqueue(fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("t1", "bash", map[string]any{"command": cmd})}})
	e.cmd("Coder wait")
	pids := map[string]int{}
	for _, name := range []string{"bg.pid", "fg.pid"} {
		path := filepath.Join(e.dir, name)
		e.waitFor(name, 10*time.Second, func() bool {
			data, err := os.ReadFile(path)
			if err != nil || !strings.HasSuffix(string(data), "\n") {
				return false
			}
			pids[name], _ = strconv.Atoi(strings.TrimSpace(string(data)))
			return true
		})
	}
	t.Cleanup(func() {
		for _, pid := range pids {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	var id string
	var host int
	e.lua(`return require('coder').state().session_id`, &id)
	e.lua(`return require('coder.host').pid()`, &host)
	if err := syscall.Kill(host, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	e.waitFor("the host to exit", 10*time.Second, func() bool { return !e.boolLua(`return require('coder.host').running()`) })
	snap, err := store.Load(store.Dir(e.dir), id)
	if err != nil {
		t.Fatal(err)
	}
	var result string
	for _, m := range snap.Messages {
		if m.Role == llm.RoleTool && m.ToolCallID == "t1" {
			result = m.Content
		}
	}
	if !strings.Contains(result, "[canceled") {
		t.Errorf("saved tool result = %q, want the canceled result", result)
	}
	e.waitFor("the command's processes to die", 10*time.Second, func() bool {
		for _, pid := range pids {
			if syscall.Kill(pid, 0) == nil {
				if stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil && !strings.Contains(string(stat), ") Z ") {
					return false
				}
			}
		}
		return true
	})
}
