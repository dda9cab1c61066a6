package nvimhost

import (
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

// nvimKnock is the model's script: it connects to the Neovim socket it
// is given and the one in $NVIM and asks each to write a marker.
const nvimKnock = `import os, socket, sys
def s(b):
    b = b.encode()
    return bytes([0xd9, len(b)]) + b
for p in sys.argv[2:] + [os.environ.get("NVIM", "")]:
    if not p:
        print("no address")
        continue
    c = socket.socket(socket.AF_UNIX)
    try:
        c.connect(p)
        c.sendall(bytes([0x94, 0, 1]) + s("nvim_command") + bytes([0x91]) + s("call writefile([], '" + sys.argv[1] + "')"))
        c.settimeout(5)
        print("connected", p, c.recv(100))
    except OSError as e:
        print("refused", p, e.strerror)
`

// TestSandboxCannotReachNeovim: in auto-edit a script the model wrote
// runs unasked, confined, and cannot reach the very Neovim the agent
// runs in (its socket given outright and in $NVIM): Neovim runs nothing.
func TestSandboxCannotReachNeovim(t *testing.T) {
	if out, err := exec.Command(hostBinary, sandbox.Subcommand, "--probe").Output(); err != nil || !strings.Contains(string(out), `"network":true`) {
		t.Skipf("no full sandbox here: %s %v", out, err)
	}
	e := newEditor(t, editorOpts{listen: true, config: `{"mode": "auto-edit"}`})
	marker := filepath.Join(t.TempDir(), "nvim-ran")
	e.llm.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("w", "write", map[string]any{"path": "knock.py", "content": nvimKnock})}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("k", "bash", map[string]any{"command": "python3 knock.py " + marker + " " + e.sock})}},
		fakellm.Reply{Content: "done"},
	)
	e.start()
	n := e.turnsDone()
	e.cmd("Coder go")
	e.waitFor("the turn's end", 60*time.Second, func() bool { return e.turnsDone() > n })
	out, ok := toolResult(e.llm.Requests(), "k")
	if !ok || !strings.Contains(out, "exit code 0") {
		t.Fatalf("the script did not run unasked: %q", out)
	}
	if strings.Contains(out, "connected") {
		t.Errorf("a confined command reached Neovim's socket:\n%s", out)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("Neovim ran the confined command's request:\n%s", out)
	}
	var alive bool
	e.lua(`return true`, &alive)
	if !alive {
		t.Error("Neovim does not answer")
	}
}
