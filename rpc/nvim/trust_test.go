package nvimhost

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTrustFloat: a repository's untrusted .coder/config.json asking for an
// MCP server and yolo is held back; the float lists what it asks for, and
// only the user's `t` applies it.
func TestTrustFloat(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "mcp-ran")
	e := newEditor(t, editorOpts{untrusted: true,
		config: `{"mcpServers": {"helper": {"command": "sh", "args": ["mcp.sh"]}}, "mode": "yolo"}`})
	writeFile(t, filepath.Join(e.dir, "mcp.sh"), "#!/bin/sh\ntouch "+marker+"\n")
	e.start()
	e.waitFor("the trust float", 10*time.Second, func() bool { return e.boolLua(`return require('coder.trust').pending()`) })
	var float string
	e.lua(`return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')`, &float)
	for _, want := range []string{"is not trusted", `mcpServers.helper: runs "sh mcp.sh"`, `mode: "yolo"`, "t trust"} {
		if !strings.Contains(float, want) {
			t.Errorf("float lacks %q:\n%s", want, float)
		}
	}
	var mode string
	e.lua(`return require('coder').state().mode`, &mode)
	if mode != "default" {
		t.Errorf("mode before trust = %q, want default", mode)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the repository's MCP server ran before the user trusted it")
	}

	e.input("t")
	e.waitFor("the session reopened under the trusted file", 10*time.Second, func() bool {
		var m string
		_ = e.v.ExecLua(`local s = require('coder').state(); return s and s.mode or ''`, &m)
		return m == "yolo"
	})
	e.waitFor("the trusted MCP server to start", 10*time.Second, func() bool {
		_, err := os.Stat(marker)
		return err == nil
	})
}
