//go:build unix

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
)

// execIn runs `exec --cwd dir args…` from dir itself (so that relative
// PATH entries name the workspace's directories) with env.
func execIn(t *testing.T, bin, dir string, env []string, args ...string) result {
	t.Helper()
	return execFrom(t, dir, bin, dir, env, args...)
}

func writeExec(t *testing.T, path, body string) {
	t.Helper()
	writeTestFile(t, path, body)
	if err := os.Chmod(path, 0o755); err != nil {
		t.Fatal(err)
	}
}

func present(path string) bool { _, err := os.Stat(path); return err == nil }

// withPath is env with PATH replaced.
func withPath(env []string, path string) []string {
	out := []string{}
	for _, kv := range env {
		if !strings.HasPrefix(kv, "PATH=") {
			out = append(out, kv)
		}
	}
	return append(out, "PATH="+path)
}

// A workspace bin/ on PATH (and a relative node_modules/.bin): the host's
// snapshots run the real git, never the workspace's, and the user's hook
// `prettier` is the one outside the workspace.
func TestExecHostProgramsNotFromWorkspace(t *testing.T) {
	bin := hostBinary(t)
	realGit, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	srv := fakellm.New()
	defer srv.Close()
	dir := gitRepo(t)
	marks, outside := t.TempDir(), t.TempDir()
	writeExec(t, filepath.Join(dir, "bin", "git"), "#!/bin/sh\ntouch "+filepath.Join(marks, "workspace-git")+"\nexec "+realGit+" \"$@\"\n")
	writeExec(t, filepath.Join(dir, "node_modules", ".bin", "prettier"), "#!/bin/sh\ntouch "+filepath.Join(marks, "workspace-prettier")+"\n")
	writeExec(t, filepath.Join(outside, "prettier"), "#!/bin/sh\ntouch "+filepath.Join(marks, "real-prettier")+"\n")
	cfg := t.TempDir()
	writeTestFile(t, filepath.Join(cfg, "coder", "config.json"),
		`{"hooks": {"post_tool_use": [{"matcher": "write", "command": "prettier"}]}}`)
	sep := string(os.PathListSeparator)
	path := filepath.Join(dir, "bin") + sep + "node_modules/.bin" + sep + sep + outside + sep + os.Getenv("PATH")
	env := withPath(append(os.Environ(), "OPENAI_BASE_URL="+srv.URL(), "OPENAI_API_KEY=test", "XDG_CONFIG_HOME="+cfg), path)
	srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("w", "write", map[string]any{"path": "a.txt", "content": "hello\n"})}},
		fakellm.Reply{Content: "done"},
	)
	r := execIn(t, bin, dir, env, "--yes", "write a.txt")
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	if !present(filepath.Join(dir, "a.txt")) {
		t.Fatalf("a.txt was not written; stderr:\n%s", r.stderr)
	}
	if present(filepath.Join(marks, "workspace-git")) {
		t.Error("the host ran the workspace's bin/git")
	}
	if present(filepath.Join(marks, "workspace-prettier")) {
		t.Error("the user's hook ran the workspace's node_modules/.bin/prettier")
	}
	if !present(filepath.Join(marks, "real-prettier")) {
		t.Errorf("the user's hook did not run the prettier outside the workspace; stderr:\n%s", r.stderr)
	}
	// The turn's snapshot was taken, by the real git.
	refs, err := exec.Command(realGit, "-C", dir, "for-each-ref", "refs/coder-nvim/").Output()
	if err != nil || len(bytes.TrimSpace(refs)) == 0 {
		t.Errorf("no snapshot ref (%v): %q; stderr:\n%s", err, refs, r.stderr)
	}
}

// mcpServerPy is a tiny MCP stdio server: its one tool, where, answers
// with the server's arguments and working directory; it leaves the
// marker $MARK_DIR/real-$1 when it starts.
const mcpServerPy = `import json, os, sys
open(os.path.join(os.environ["MARK_DIR"], "real-" + os.environ["NAME"]), "w").close()
for line in sys.stdin:
    m = json.loads(line)
    if "id" not in m:
        continue
    meth, r = m.get("method"), None
    if meth == "initialize":
        r = {"protocolVersion": m["params"]["protocolVersion"], "capabilities": {"tools": {}}, "serverInfo": {"name": "t", "version": "1"}}
    elif meth == "tools/list":
        r = {"tools": [{"name": "where", "inputSchema": {"type": "object"}}]}
    elif meth == "tools/call":
        r = {"content": [{"type": "text", "text": json.dumps({"args": sys.argv[1:], "cwd": os.getcwd()})}]}
    elif meth == "ping":
        r = {}
    out = {"jsonrpc": "2.0", "id": m["id"]}
    if r is None:
        out["error"] = {"code": -32601, "message": "no " + str(meth)}
    else:
        out["result"] = r
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()
`

// The user's own MCP servers, `npx -y server .` and `python3 -m module .`
// style, in a workspace that ships that package and that module: the
// workspace's code never runs, the real servers do, and "." reaches them
// as the workspace's path.
func TestExecMCPServersStartOutsideWorkspace(t *testing.T) {
	bin := hostBinary(t)
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3")
	}
	srv := fakellm.New()
	defer srv.Close()
	dir := gitRepo(t)
	real, _ := filepath.EvalSymlinks(dir)
	marks, lib, pkgbin := t.TempDir(), t.TempDir(), t.TempDir()
	writeTestFile(t, filepath.Join(lib, "mcpmod.py"), mcpServerPy)
	// The workspace's look-alikes: python -m finds mcpmod.py in its cwd
	// first, npx the cwd's node_modules/.bin.
	evil := "import os\nopen(" + `"` + filepath.Join(marks, "workspace-py") + `"` + ", 'w').close()\n"
	writeTestFile(t, filepath.Join(dir, "mcpmod.py"), evil)
	writeExec(t, filepath.Join(dir, "node_modules", ".bin", "server-fs"), "#!/bin/sh\ntouch "+filepath.Join(marks, "workspace-npx")+"\n")
	// npx as far as this test needs it: the package from the cwd's
	// node_modules/.bin when there is one, else the registry's (here:
	// the real server).
	writeExec(t, filepath.Join(pkgbin, "npx"), `#!/bin/sh
[ "$1" = -y ] && shift
name=$1; shift
if [ -x "node_modules/.bin/$name" ]; then exec "node_modules/.bin/$name" "$@"; fi
exec `+python+` -m mcpmod "$@"
`)
	cfg := t.TempDir()
	writeTestFile(t, filepath.Join(cfg, "coder", "config.json"), `{"mcpServers": {
  "py": {"command": "python3", "args": ["-m", "mcpmod", "."], "env": {"PYTHONPATH": "`+lib+`", "MARK_DIR": "`+marks+`", "NAME": "py"}},
  "fs": {"command": "npx", "args": ["-y", "server-fs", "."], "env": {"PYTHONPATH": "`+lib+`", "MARK_DIR": "`+marks+`", "NAME": "fs"}}},
  "mcp": {"first_turn_wait": "20s"}}`)
	env := withPath(append(os.Environ(), "OPENAI_BASE_URL="+srv.URL(), "OPENAI_API_KEY=test", "XDG_CONFIG_HOME="+cfg),
		pkgbin+string(os.PathListSeparator)+os.Getenv("PATH"))
	srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("p", "py__where", map[string]any{}), toolCall("f", "fs__where", map[string]any{})}},
		fakellm.Reply{Content: "done"},
	)
	r := execIn(t, bin, dir, env, "--yes", "where are the servers?")
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	for _, m := range []string{"workspace-py", "workspace-npx"} {
		if present(filepath.Join(marks, m)) {
			t.Errorf("the workspace's code ran (%s)", m)
		}
	}
	for _, m := range []string{"real-py", "real-fs"} {
		if !present(filepath.Join(marks, m)) {
			t.Errorf("the configured server did not start (%s); stderr:\n%s", m, r.stderr)
		}
	}
	reqs := srv.Requests()
	if len(reqs) < 2 {
		t.Fatalf("%d requests; stderr:\n%s", len(reqs), r.stderr)
	}
	var results []string
	for _, m := range reqs[1].Messages {
		if m.Role == llm.RoleTool {
			results = append(results, m.Content)
		}
	}
	if len(results) != 2 {
		t.Fatalf("tool results = %q", results)
	}
	for _, res := range results {
		if !strings.Contains(res, `"args": ["`+real+`"]`) && !strings.Contains(res, `"`+real+`"]`) {
			t.Errorf("a server was not given the workspace for \".\": %s", res)
		}
		if strings.Contains(res, `"cwd": "`+real+`"`) {
			t.Errorf("a server runs in the workspace: %s", res)
		}
	}
}
