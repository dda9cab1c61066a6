package config

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// The files a config names to run are found wherever they are named (an
// MCP server's command or args in its cwd, a python -m module, a hook, a
// verify command); files outside the workspace, or reached through a link
// out of it, and directories are not.
func TestExecutedFiles(t *testing.T) {
	root := t.TempDir()
	outside := filepath.Join(t.TempDir(), "x.sh")
	for _, p := range []string{"tools/mcp.sh", "srv/server.js", "pkg/mod.py", "hooks/pre.sh", "build.sh", outside} {
		if !filepath.IsAbs(p) {
			p = filepath.Join(root, p)
		}
		writeConfig(t, p, "x\n")
	}
	if err := os.Symlink(outside, filepath.Join(root, "out.sh")); err != nil {
		t.Fatal(err)
	}
	data := []byte(`{"mcpServers": {
		"a": {"command": "sh", "args": ["tools/mcp.sh"]},
		"b": {"command": "node", "args": ["server.js"], "cwd": "srv"},
		"c": {"command": "python3", "args": ["-m", "pkg.mod"]},
		"d": {"command": "sh", "args": ["out.sh", "` + outside + `", "tools"]}},
		"hooks": {"session_start": [{"command": "sh hooks/pre.sh --flag"}]},
		"workflow": {"verify_commands": ["sh ./build.sh"]}}`)
	got := executedFiles(root, data)
	want := []string{"build.sh", "hooks/pre.sh", "pkg/mod.py", "srv/server.js", "tools/mcp.sh"}
	if !slices.Equal(got, want) {
		t.Errorf("executedFiles = %q, want %q", got, want)
	}
	before := trustHash(root, data)
	writeConfig(t, filepath.Join(root, "srv", "server.js"), "changed\n")
	if trustHash(root, data) == before {
		t.Error("the trust hash ignores a change to a file the config runs")
	}
	if plain := []byte(`{"model": "m"}`); trustHash(root, plain) != fileHash(plain) {
		t.Error("a config that runs nothing no longer hashes as before")
	}
}
