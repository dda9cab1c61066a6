package nvimhost

import (
	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTrustFloat: a repository's untrusted .coder/config.json asking for an
// MCP server, a hook and yolo is held back; the float lists what it asks
// for, and only the user's `t` applies it.
func TestTrustFloat(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "mcp-ran")
	hookMarker := filepath.Join(t.TempDir(), "hook-ran")
	e := newEditor(t, editorOpts{untrusted: true,
		config: `{"mcpServers": {"helper": {"command": "sh", "args": ["mcp.sh"]}}, "mode": "yolo",
			"hooks": {"session_start": [{"command": "touch ` + hookMarker + `"}]}}`})
	writeFile(t, filepath.Join(e.dir, "mcp.sh"), "#!/bin/sh\ntouch "+marker+"\n")
	e.start()
	e.waitFor("the trust float", 10*time.Second, func() bool { return e.boolLua(`return require('coder.trust').pending()`) })
	var float string
	e.lua(`return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')`, &float)
	for _, want := range []string{"is not trusted", `mcpServers.helper: runs "sh mcp.sh"`, `mode: "yolo"`, "t trust",
		`hooks.session_start[0]: runs "touch ` + hookMarker} {
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
	if _, err := os.Stat(hookMarker); err == nil {
		t.Fatal("the repository's hook ran before the user trusted it")
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
	e.waitFor("the trusted session_start hook to run", 10*time.Second, func() bool {
		_, err := os.Stat(hookMarker)
		return err == nil
	})
	// :checkhealth lists the hooks now in force.
	e.cmd("checkhealth coder")
	var report string
	e.lua(`return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')`, &report)
	if !strings.Contains(report, `session_start[0]: runs "touch `+hookMarker) {
		t.Errorf("health report lacks the hook:\n%s", report)
	}
}

// TestResumeNoticeShown: a session resumed at the host's start (here: one
// this machine has no record of creating) says in the transcript that it
// runs in plan mode.
func TestResumeNoticeShown(t *testing.T) {
	e := newEditor(t, editorOpts{config: `{"mode": "auto-edit"}`})
	e.llm.Enqueue(fakellm.Reply{Content: "first"})
	e.start()
	e.run("Coder hello")
	// Forget that this machine created it, then restart the host.
	state := filepath.Join(filepath.Dir(e.dir), "state", "coder-nvim", "sessions")
	if err := os.RemoveAll(state); err != nil {
		t.Fatal(err)
	}
	e.lua(`require('coder.host').stop()`, nil)
	e.waitFor("the host to stop", 10*time.Second, func() bool { return !e.boolLua(`return require('coder.host').running()`) })
	e.cmd("Coder open")
	e.waitFor("the resume notice", 10*time.Second, func() bool {
		return strings.Contains(e.transcript(), "not created on this machine")
	})
	var mode string
	e.lua(`local s = require('coder').state(); return s and s.mode or ''`, &mode)
	if mode != "plan" {
		t.Errorf("mode after resume = %q, want plan", mode)
	}
}
