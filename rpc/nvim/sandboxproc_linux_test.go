package nvimhost

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/sandbox"
)

// TestSandboxCannotSignalNeovim: in auto-edit a script the model wrote
// runs unasked, confined, and tries to stop and kill Neovim by its pid
// (and by $NVIM's owner, where the socket is there to ask): Neovim keeps
// running, and the unsaved buffer with it.
func TestSandboxCannotSignalNeovim(t *testing.T) {
	if out, err := exec.Command(hostBinary, sandbox.Subcommand, "--probe").Output(); err != nil || !strings.Contains(string(out), `"filesystem":true`) {
		t.Skipf("no sandbox here: %s %v", out, err)
	}
	e := newEditor(t, editorOpts{config: `{"mode": "auto-edit"}`})
	var pid int
	e.lua(`return vim.fn.getpid()`, &pid)
	e.lua(`vim.cmd('enew') vim.api.nvim_buf_set_lines(0, 0, -1, false, {'unsaved'}) return true`, nil)
	kill := fmt.Sprintf(`import os, signal, socket
pids = [%d]
addr = os.environ.get("NVIM") or os.environ.get("NVIM_LISTEN_ADDRESS")
if addr:
    try:
        s = socket.socket(socket.AF_UNIX)
        s.connect(addr)
        creds = s.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12)
        peer = int.from_bytes(creds[:4], "little")
        print("peer:", peer)  # 0: not in this PID namespace
        if peer > 0:
            pids.append(peer)
    except OSError as e:
        print("no peer:", e)
out = []
for pid in pids:
    for sig in (signal.SIGSTOP, signal.SIGKILL):
        try:
            os.kill(pid, sig)
            out.append("SENT %%d %%d" %% (sig, pid))
            os.kill(pid, signal.SIGCONT)
        except OSError as e:
            out.append("refused %%d %%d: %%s" %% (sig, pid, e))
open("signals.txt", "w").write("\n".join(out) + "\n")
`, pid)
	e.llm.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("w", "write", map[string]any{"path": "kill.py", "content": kill})}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("k", "bash", map[string]any{"command": "python3 kill.py"})}},
		fakellm.Reply{Content: "done"},
	)
	e.start()
	e.cmd("Coder go")
	report := filepath.Join(e.dir, "signals.txt")
	e.waitFor("the script's report", 20*time.Second, func() bool {
		var f string
		e.lua(`local c = require('coder.approval').current()
			if not c then return '' end
			return table.concat(vim.api.nvim_buf_get_lines(c.buf, 0, -1, false), '\n')`, &f)
		if f != "" {
			t.Fatalf("the command was asked:\n%s", f)
		}
		_, err := os.Stat(report)
		return err == nil
	})
	data, _ := os.ReadFile(report)
	if strings.Contains(string(data), "SENT") {
		t.Errorf("a confined command signalled Neovim:\n%s", data)
	}
	if st, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); bytes.Contains(st, []byte(") T")) || len(st) == 0 {
		t.Fatalf("Neovim is stopped or gone: %q", st)
	}
	var unsaved []string
	e.lua(`for _, b in ipairs(vim.api.nvim_list_bufs()) do
			local l = vim.api.nvim_buf_get_lines(b, 0, -1, false)
			if l[1] == 'unsaved' then return l end
		end
		return {}`, &unsaved)
	if len(unsaved) == 0 {
		t.Error("the unsaved buffer is gone")
	}
	e.waitIdle(10 * time.Second)
}
