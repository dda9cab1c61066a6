package main

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/llm"
)

// socketProbe is the model's script: it connects to every Unix socket it
// is given or finds in the temp and runtime dirs and, where that works,
// asks it as Neovim to write a marker (a fake daemon just counts the
// connection).
const socketProbe = `import os, socket, sys
found = list(sys.argv[2:])
if os.environ.get("NVIM"):
    found.append(os.environ["NVIM"])
for top in ("/tmp", os.environ.get("TMPDIR", ""), os.environ.get("XDG_RUNTIME_DIR", ""), "/run/user"):
    if not top:
        continue
    for dirpath, dirs, files in os.walk(top):
        if dirpath.count("/") - top.count("/") > 4:
            dirs[:] = []
        for f in files:
            p = os.path.join(dirpath, f)
            try:
                if os.path.exists(p) and __import__("stat").S_ISSOCK(os.stat(p).st_mode):
                    found.append(p)
            except OSError:
                pass
def s(b):
    b = b.encode()
    return bytes([0xd9, len(b)]) + b
cmd = "call writefile([], '" + sys.argv[1] + "')"
for p in sorted(set(found)):
    c = socket.socket(socket.AF_UNIX)
    try:
        c.connect(p)
    except OSError as e:
        print("refused", p, e.strerror)
        continue
    print("connected", p)
    try:
        c.sendall(bytes([0x94, 0, 1]) + s("nvim_command") + bytes([0x91]) + s(cmd))
        c.settimeout(2)
        c.recv(100)
    except OSError:
        pass
`

// fakeDaemon listens on a Unix socket at path and counts who connects.
func fakeDaemon(t *testing.T, path string) chan struct{} {
	t.Helper()
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	arrived := make(chan struct{}, 64)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			arrived <- struct{}{}
			c.Close()
		}
	}()
	return arrived
}

// headlessNvim starts `nvim --listen sock` and waits for the socket.
func headlessNvim(t *testing.T, sock string) *exec.Cmd {
	t.Helper()
	nv, err := exec.LookPath("nvim")
	if err != nil {
		t.Skip("no nvim on PATH")
	}
	cmd := exec.Command(nv, "--headless", "--clean", "--listen", sock)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if c, err := net.Dial("unix", sock); err == nil {
			c.Close()
			return cmd
		}
		if time.Now().After(deadline) {
			t.Fatal("nvim did not listen on " + sock)
		}
	}
}

// TestExecSandboxUnixSockets: a script the model wrote, run unasked in
// auto-edit, reaches no Unix socket outside the sandbox — a fake daemon's
// in $XDG_RUNTIME_DIR, in the temp dir and in /tmp, a Neovim's given in
// $NVIM and found by searching — and Neovim runs nothing; socketpair and
// sockets it binds itself work; a socket the user's config names in
// sandbox.unix_sockets is reachable again.
func TestExecSandboxUnixSockets(t *testing.T) {
	requireSandbox(t)
	w := newSandboxWorld(t)
	runtime := t.TempDir()
	socks := map[string]string{
		"runtime": filepath.Join(runtime, "daemon.sock"),
		"temp":    filepath.Join(w.tmp, "daemon.sock"),
		"outside": filepath.Join(w.outside, "daemon.sock"),
	}
	arrived := map[string]chan struct{}{}
	for name, p := range socks {
		arrived[name] = fakeDaemon(t, p)
	}
	nvimDir := filepath.Join(w.tmp, "nvim.user")
	if err := os.MkdirAll(nvimDir, 0o700); err != nil {
		t.Fatal(err)
	}
	nvimSock := filepath.Join(nvimDir, "nvim.0")
	headlessNvim(t, nvimSock)
	marker := filepath.Join(w.outside, "nvim-ran")
	env := []string{"XDG_RUNTIME_DIR=" + runtime, "NVIM=" + nvimSock}
	args := " " + marker + " " + socks["runtime"] + " " + socks["temp"] + " " + socks["outside"] + " " + nvimSock
	own := `import os, socket, tempfile
a, b = socket.socketpair(); a.sendall(b"x"); assert b.recv(1) == b"x"
for d in (".", tempfile.gettempdir()):
    p = os.path.join(d, "own.sock")
    s = socket.socket(socket.AF_UNIX); s.bind(p); s.listen(1)
    c = socket.socket(socket.AF_UNIX); c.connect(p); c.sendall(b"y"); assert s.accept()[0].recv(1) == b"y"
    os.unlink(p)
print("own sockets ok")
`
	r, res := w.run(t, "auto-edit", env,
		toolCall("wp", "write", map[string]any{"path": "probe.py", "content": socketProbe}),
		bash("probe", "python3 probe.py"+args),
		toolCall("wo", "write", map[string]any{"path": "own.py", "content": own}),
		bash("own", "python3 own.py"),
	)
	if r.code != 0 {
		t.Fatalf("exec: exit %d\n%s", r.code, r.stderr)
	}
	if !strings.Contains(res["probe"], "exit code 0") || !strings.Contains(res["probe"], "refused") {
		t.Fatalf("the probe did not run unasked: %q\n%s", res["probe"], r.stderr)
	}
	t.Logf("probe:\n%s", res["probe"])
	if strings.Contains(res["probe"], "connected") {
		t.Errorf("a confined script connected to a socket outside the sandbox:\n%s", res["probe"])
	}
	for name, ch := range arrived {
		select {
		case <-ch:
			t.Errorf("the %s daemon was reached", name)
		default:
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("Neovim ran the confined script's command")
	}
	if !strings.Contains(res["own"], "own sockets ok") {
		t.Errorf("socketpair or a socket of the script's own failed: %q", res["own"])
	}

	// The user's own config allows the runtime daemon's socket.
	cfg := filepath.Join(w.config, "coder", "config.json")
	if err := os.WriteFile(cfg, []byte(`{"sandbox": {"unix_sockets": ["`+socks["runtime"]+`"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	r, res = w.run(t, "auto-edit", env, bash("allowed", "python3 probe.py"+args))
	if r.code != 0 {
		t.Fatalf("exec: exit %d\n%s", r.code, r.stderr)
	}
	if !strings.Contains(res["allowed"], "connected "+socks["runtime"]) {
		t.Errorf("the socket sandbox.unix_sockets names is not reachable: %q", res["allowed"])
	}
	select {
	case <-arrived["runtime"]:
	case <-time.After(10 * time.Second):
		t.Error("the allowed daemon saw no connection")
	}
	if strings.Count(res["allowed"], "connected") != 1 {
		t.Errorf("more than the allowed socket was reached: %q", res["allowed"])
	}
}

// TestExecSandboxCachePerWorkspace: two workspaces of one user, one temp
// dir and one state dir get build caches of their own, kept between
// sessions; a command in A cannot write B's.
func TestExecSandboxCachePerWorkspace(t *testing.T) {
	requireSandbox(t)
	a, b := newSandboxWorld(t), newSandboxWorld(t)
	shared := map[string]string{}
	for _, kv := range a.env {
		if k, _, _ := strings.Cut(kv, "="); k == "TMPDIR" || k == "XDG_STATE_HOME" {
			shared[k] = kv
		}
	}
	for i, kv := range b.env {
		if k, _, _ := strings.Cut(kv, "="); shared[k] != "" {
			b.env[i] = shared[k]
		}
	}
	cacheOf := func(w *sandboxWorld, id string) string {
		t.Helper()
		code := "import os; d = os.environ['XDG_CACHE_HOME']; print('cache=' + d); os.makedirs(d, exist_ok=True); open(os.path.join(d, 'warm-" + id + "'), 'w').close(); print(sorted(os.listdir(d)))"
		r, res := w.run(t, "auto-edit", nil, bash(id, "python3 -c "+shellQuote(code)))
		if r.code != 0 {
			t.Fatalf("exec: exit %d\n%s", r.code, r.stderr)
		}
		_, after, ok := strings.Cut(res[id], "cache=")
		if !ok {
			t.Fatalf("no cache: %q", res[id])
		}
		dir, _, _ := strings.Cut(after, "\n")
		if dir == "" || !strings.Contains(res[id], "warm-"+id) || !strings.Contains(res[id], "exit code 0") {
			t.Fatalf("no writable cache: %q", res[id])
		}
		return dir
	}
	ca, cb := cacheOf(a, "a1"), cacheOf(b, "b1")
	if ca == cb {
		t.Fatalf("workspaces A and B share the cache %s", ca)
	}
	if again := cacheOf(a, "a2"); again != ca {
		t.Errorf("A's cache moved between sessions: %s, then %s", ca, again)
	}
	if _, err := os.Stat(filepath.Join(ca, "warm-a1")); err != nil {
		t.Errorf("A's cache was not kept between sessions: %v", err)
	}
	poison := filepath.Join(cb, "poison")
	code := "for p, m in (('" + poison + "', 'w'), ('" + filepath.Join(cb, "warm-b1") + "', 'a')):\n    try: open(p, m).write('evil')\n    except OSError as e: print(e)\n"
	r, res := a.run(t, "auto-edit", nil, bash("p", "python3 -c "+shellQuote(code)))
	if r.code != 0 {
		t.Fatalf("exec: exit %d\n%s", r.code, r.stderr)
	}
	if !strings.Contains(res["p"], "exit code 0") {
		t.Fatalf("the poisoning script did not run unasked: %q", res["p"])
	}
	if _, err := os.Stat(poison); err == nil {
		t.Errorf("a command in A wrote B's cache: %q", res["p"])
	}
	if data, _ := os.ReadFile(filepath.Join(cb, "warm-b1")); len(data) > 0 {
		t.Errorf("a command in A changed B's cache entry: %q", res["p"])
	}
}

// TestExecSandboxEnv: a confined shell's environment has no secrets —
// API keys, tokens, the host's own key, Neovim's address — but those the
// user's config keeps; a project file cannot keep one, and may drop more.
func TestExecSandboxEnv(t *testing.T) {
	requireSandbox(t)
	w := newSandboxWorld(t)
	env := []string{"SERVICE_API_KEY=secret1", "MY_SERVICE_TOKEN=secret2", "DB_PASSWORD=secret3", "AWS_SECRET_ACCESS_KEY=secret4",
		"ANTHROPIC_API_KEY=secret5", "NVIM=/tmp/nvim.sock", "SSH_AUTH_SOCK=/tmp/agent.sock", "KEPT_TOKEN=kept", "PLAIN_VAR=plain", "PLAIN_DROPPED=plain2"}
	shellEnv := func(id string, bad ...string) string {
		t.Helper()
		r, res := w.run(t, "auto-edit", env, bash(id, "env | sort"))
		if r.code != 0 {
			t.Fatalf("exec: exit %d\n%s", r.code, r.stderr)
		}
		out := res[id]
		if !strings.Contains(out, "PLAIN_VAR=plain") {
			t.Fatalf("the environment is not the host's: %q", out)
		}
		for _, b := range append(bad, "secret", "_API_KEY=", "NVIM=", "SSH_AUTH_SOCK=", "MY_SERVICE_TOKEN") {
			if strings.Contains(out, b) {
				t.Errorf("the confined environment has %s:\n%s", b, out)
			}
		}
		return out
	}
	if out := shellEnv("default", "KEPT_TOKEN"); !strings.Contains(out, "PLAIN_DROPPED=plain2") {
		t.Errorf("a plain variable was dropped: %q", out)
	}
	cfg := filepath.Join(w.config, "coder", "config.json")
	if err := os.WriteFile(cfg, []byte(`{"sandbox": {"env_keep": ["KEPT_TOKEN"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.ws, ".coder", "config.json"), []byte(`{"sandbox": {"env_keep": ["MY_SERVICE_TOKEN"], "env_drop": ["PLAIN_DROPPED"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if out := shellEnv("configured", "PLAIN_DROPPED"); !strings.Contains(out, "KEPT_TOKEN=kept") {
		t.Errorf("sandbox.env_keep did not keep KEPT_TOKEN:\n%s", out)
	}
	if tools := w.srv.Requests()[0].Tools; !strings.Contains(toolDescription(tools, "bash"), "do not get secrets") {
		t.Errorf("the model is not told that secrets are not in its shell")
	}
}

func toolDescription(tools []llm.Tool, name string) string {
	for _, tl := range tools {
		if tl.Function.Name == name {
			return tl.Function.Description
		}
	}
	return ""
}
