package main

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
)

// script is the model writing a script with the write tool, then running
// it with bash: unseen by the analyzer, so it runs unasked in auto-edit,
// confined.
func script(id, name, text, args string) []llm.ToolCall {
	return []llm.ToolCall{
		toolCall(id+"_w", "write", map[string]any{"path": name, "content": text}),
		bash(id, "python3 "+name+" "+args),
	}
}

// runPID runs exec in auto-edit as run does, started by sh so that its pid is in
// pidFile before it runs: exec replaces sh in place.
func (w *sandboxWorld) runPID(t *testing.T, pidFile string, calls ...llm.ToolCall) (result, map[string]string) {
	t.Helper()
	w.srv.Reset()
	for _, c := range calls {
		w.srv.Enqueue(fakellm.Reply{ToolCalls: []llm.ToolCall{c}})
	}
	w.srv.Enqueue(fakellm.Reply{Content: "done"})
	cmd := exec.Command("/bin/sh", "-c", `echo $$ > "$1"; shift; exec "$@"`, "sh", pidFile, w.bin, "exec", "--cwd", w.ws, "--mode", "auto-edit", "go")
	cmd.Env = w.env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{out.String(), errb.String(), 0}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return r, toolResults(w.srv)
}

const signalScript = `import os, signal, sys, time
host, standin = int(open(sys.argv[1]).read()), int(sys.argv[2])
for name, pid in (("host", host), ("neovim", standin)):
    try:
        os.kill(pid, signal.SIGSTOP)
        print("STOPPED", name)
        os.kill(pid, signal.SIGCONT)
    except OSError as e:
        print("stop", name, "refused:", e)
try:
    os.kill(standin, signal.SIGKILL)
    print("KILLED neovim")
except OSError as e:
    print("kill neovim refused:", e)
try:
    os.kill(host, signal.SIGKILL)
    print("KILLED host")
except OSError as e:
    print("kill host refused:", e)
`

const ptraceScript = `import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
found = 0
for p in os.listdir("/proc"):
    if not p.isdigit():
        continue
    try:
        cmdline = open("/proc/%s/cmdline" % p, "rb").read().split(b"\0")
    except OSError:
        continue
    if b"sandbox-exec" not in cmdline or not (b"--serve" in cmdline or b"--probe-serve" in cmdline):
        continue
    found += 1
    pid = int(p)
    if libc.ptrace(16, pid, 0, 0) == 0:  # PTRACE_ATTACH
        print("ATTACHED", pid)
        os.waitpid(pid, 0x40000000)
        libc.ptrace(17, pid, 0, 0)  # PTRACE_DETACH
    else:
        print("attach", pid, "refused:", os.strerror(ctypes.get_errno()))
    try:
        os.close(os.open("/proc/%d/mem" % pid, os.O_RDWR))
        print("MEM", pid)
    except OSError as e:
        print("mem", pid, "refused:", e)
print("servers:", found)
`

const abstractScript = `import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
try:
    s.connect("\0" + sys.argv[1])
    print("CONNECTED")
except OSError as e:
    print("connect refused:", e)
own = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
own.bind("\0" + sys.argv[1] + "-own")
own.listen(1)
c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
c.connect("\0" + sys.argv[1] + "-own")
a, b = socket.socketpair()
a.send(b"x")
print("own sockets work:", b.recv(1) == b"x")
`

// TestExecSandboxProcesses: a confined command the model wrote, run
// unasked in auto-edit, can neither stop nor kill the host nor a stand-in
// for Neovim, nor trace the fork server or write its memory, nor connect
// to an abstract Unix socket a process outside listens on (its own, and
// socketpair, still work); a setsid daemon it starts is gone when its call
// returns, and never acts.
func TestExecSandboxProcesses(t *testing.T) {
	requireSandbox(t)
	w := newSandboxWorld(t)
	standin := exec.Command("sleep", "300")
	if err := standin.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { standin.Process.Kill(); standin.Wait() }()
	name := fmt.Sprintf("coder-test-%d", time.Now().UnixNano())
	ln, err := net.Listen("unix", "@"+name)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan struct{}, 4)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- struct{}{}
			c.Close()
		}
	}()
	pidFile := filepath.Join(w.outside, "host.pid")
	marker := filepath.Join(w.ws, "M")
	var calls []llm.ToolCall
	calls = append(calls, script("trace", "trace.py", ptraceScript, "")...)
	calls = append(calls, script("abs", "abs.py", abstractScript, name)...)
	calls = append(calls, bash("daemon", "setsid sh -c 'sleep 6.28318; touch "+marker+"' > /dev/null 2>&1 & echo started"))
	// Last: should it kill the host, the others' results are in.
	calls = append(calls, script("sig", "sig.py", signalScript, pidFile+" "+strconv.Itoa(standin.Process.Pid))...)
	r, res := w.runPID(t, pidFile, calls...)
	if r.code != 0 {
		t.Errorf("exec: exit %d (killed?)\n%s", r.code, r.stderr)
	}
	for id, bad := range map[string][]string{
		"sig":   {"STOPPED", "KILLED"},
		"trace": {"ATTACHED", "MEM"},
		"abs":   {"CONNECTED"},
	} {
		if !strings.Contains(res[id], "exit code 0") {
			t.Errorf("%s did not run unasked: %q", id, res[id])
		}
		for _, b := range bad {
			if strings.Contains(res[id], b) {
				t.Errorf("%s: %q", id, res[id])
			}
		}
	}
	if strings.Contains(res["trace"], "servers: 0") {
		t.Errorf("the fork server was not found (the test proves nothing): %q", res["trace"])
	}
	if !strings.Contains(res["abs"], "own sockets work: True") {
		t.Errorf("the command's own Unix sockets failed: %q", res["abs"])
	}
	select {
	case <-accepted:
		t.Error("a connection to the abstract socket arrived")
	default:
	}
	if st, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", standin.Process.Pid)); !bytes.Contains(st, []byte(") S")) {
		t.Errorf("the stand-in for Neovim is not sleeping: %q", st)
	}
	// The daemon ends with its call: no process of it is left.
	left := func() []string {
		var pids []string
		ents, _ := os.ReadDir("/proc")
		for _, e := range ents {
			if cl, err := os.ReadFile("/proc/" + e.Name() + "/cmdline"); err == nil && bytes.Contains(cl, []byte("6.28318")) {
				pids = append(pids, e.Name())
			}
		}
		return pids
	}
	deadline := time.Now().Add(5 * time.Second) // before the daemon would act
	for len(left()) > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if pids := left(); len(pids) > 0 {
		for _, p := range pids {
			if n, err := strconv.Atoi(p); err == nil {
				syscall.Kill(n, syscall.SIGKILL)
			}
		}
		t.Fatalf("the setsid daemon outlived its call: pids %v", pids)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the daemon acted after its call")
	}
}

// openPTY opens a pseudo-terminal pair by hand (/dev/ptmx): the master,
// and the slave with its path.
func openPTY(t *testing.T) (master, slave *os.File, path string) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	path = "/dev/pts/" + strconv.Itoa(n)
	s, err := os.OpenFile(path, os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	return m, s, path
}

const injectScript = `import fcntl, os, sys, termios
for path in ("/dev/tty", sys.argv[1]):
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError as e:
        print("open", path, "refused:", e)
        continue
    try:
        for c in b"echo INJECTED\n":
            fcntl.ioctl(fd, termios.TIOCSTI, bytes([c]))
        print("PUSHED into", path)
    except OSError as e:
        print("TIOCSTI on", path, "refused:", e)
`

// TestExecSandboxNoTerminal: exec run in a terminal (a pty, its
// controlling terminal): a confined command has none, so /dev/tty cannot
// be opened, and TIOCSTI on the terminal's device is refused: nothing is
// pushed into the user's shell's input.
func TestExecSandboxNoTerminal(t *testing.T) {
	requireSandbox(t)
	w := newSandboxWorld(t)
	master, slave, path := openPTY(t)
	defer master.Close()
	defer slave.Close()
	var screen bytes.Buffer
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			screen.Write(buf[:n])
			if err != nil {
				return
			}
		}
	}()
	w.srv.Reset()
	for _, c := range script("tty", "tty.py", injectScript, path) {
		w.srv.Enqueue(fakellm.Reply{ToolCalls: []llm.ToolCall{c}})
	}
	w.srv.Enqueue(fakellm.Reply{Content: "done"})
	cmd := exec.Command(w.bin, "exec", "--cwd", w.ws, "--mode", "auto-edit", "go")
	cmd.Env = w.env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Run(); err != nil {
		t.Fatalf("exec: %v", err)
	}
	res := toolResults(w.srv)
	if !strings.Contains(res["tty"], "exit code 0") {
		t.Fatalf("the script did not run unasked: %q", res["tty"])
	}
	if strings.Contains(res["tty"], "PUSHED") {
		t.Errorf("keys were pushed into the terminal: %q", res["tty"])
	}
	// What was pushed is the terminal's input: a line to read, if any.
	fds := []unix.PollFd{{Fd: int32(slave.Fd()), Events: unix.POLLIN}}
	if n, _ := unix.Poll(fds, 0); n > 0 {
		buf := make([]byte, 4096)
		if n, _ := unix.Read(int(slave.Fd()), buf); n > 0 && strings.Contains(string(buf[:n]), "INJECTED") {
			t.Errorf("the terminal's input holds %q", buf[:n])
		}
	}
}

// TestExecSandboxNotRoot: a user who is not root (uid 65534, by setpriv)
// gets the whole sandbox too: the protected paths' mounts need
// CAP_SYS_ADMIN in the launcher's user namespace, which an exec there
// drops but for ambient capabilities. A command the model wrote runs
// unasked in auto-edit, cannot write .git/config, and has no capability.
func TestExecSandboxNotRoot(t *testing.T) {
	requireSandbox(t)
	if os.Geteuid() != 0 {
		t.Skip("needs root to run exec as another user (setpriv)")
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Skip("no setpriv here")
	}
	const uid = 65534
	base, err := os.MkdirTemp("", "coder-notroot-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	os.Chmod(base, 0o755)
	bin := filepath.Join(base, "bin")
	os.Mkdir(bin, 0o755)
	host := hostBinary(t)
	for _, f := range []string{host, filepath.Join(filepath.Dir(host), "coder-nvim-sandbox")} {
		data, err := os.ReadFile(f)
		if err != nil {
			continue // no small launcher: the host is its own
		}
		if err := os.WriteFile(filepath.Join(bin, filepath.Base(f)), data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ws := filepath.Join(base, "ws")
	for _, c := range [][]string{{"init", "-q", ws}, {"-C", ws, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "init"}} {
		if out, err := exec.Command("git", c...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", c, err, out)
		}
	}
	for _, d := range []string{"tmp", "config/coder", "state", "home"} {
		os.MkdirAll(filepath.Join(base, d), 0o755)
	}
	for _, d := range []string{ws, filepath.Join(base, "tmp"), filepath.Join(base, "config"), filepath.Join(base, "state"), filepath.Join(base, "home")} {
		if out, err := exec.Command("chown", "-R", fmt.Sprintf("%d:%d", uid, uid), d).CombinedOutput(); err != nil {
			t.Fatalf("chown: %v %s", err, out)
		}
	}
	srv := fakellm.New()
	defer srv.Close()
	cfg := filepath.Join(ws, ".git", "config")
	before, _ := os.ReadFile(cfg)
	for _, c := range script("in", "in.py", "import os\nopen('in.txt','w').write('x')\nprint(open('/proc/self/status').read())\ntry:\n    open('.git/config','a').write('[core]\\n\\tfsmonitor = evil\\n')\n    print('WROTE config')\nexcept OSError as e:\n    print('config refused:', e)\n", "") {
		srv.Enqueue(fakellm.Reply{ToolCalls: []llm.ToolCall{c}})
	}
	srv.Enqueue(fakellm.Reply{Content: "done"})
	env := append(slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, "TMPDIR=") || strings.HasPrefix(kv, "XDG_") || strings.HasPrefix(kv, "HOME=")
	}), "HOME="+filepath.Join(base, "home"), "TMPDIR="+filepath.Join(base, "tmp"), "XDG_CONFIG_HOME="+filepath.Join(base, "config"),
		"XDG_STATE_HOME="+filepath.Join(base, "state"), "OPENAI_BASE_URL="+srv.URL(), "OPENAI_API_KEY=test")
	cmd := exec.Command(setpriv, "--reuid="+strconv.Itoa(uid), "--regid="+strconv.Itoa(uid), "--clear-groups",
		filepath.Join(bin, filepath.Base(host)), "exec", "--cwd", ws, "--mode", "auto-edit", "go")
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("exec as uid %d: %v\n%s", uid, err, out)
	}
	res := toolResults(srv)
	if strings.Contains(string(out), "sandbox: ") {
		t.Errorf("the sandbox is not whole for uid %d:\n%s", uid, out)
	}
	if _, err := os.Stat(filepath.Join(ws, "in.txt")); err != nil {
		t.Fatalf("the command did not run unasked: %v\n%s\n%q", err, out, res["in"])
	}
	if after, _ := os.ReadFile(cfg); !bytes.Equal(after, before) || strings.Contains(res["in"], "WROTE") {
		t.Errorf(".git/config was written: %q", res["in"])
	}
	for _, c := range []string{"CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"} {
		if !strings.Contains(res["in"], c+":\t0000000000000000") {
			t.Errorf("the command has capabilities (%s): %q", c, res["in"])
		}
	}
}
