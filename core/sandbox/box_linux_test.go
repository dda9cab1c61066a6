package sandbox

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The test binary is its own launcher, as the host binary is.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == Subcommand {
		os.Exit(Main(os.Args[2:]))
	}
	os.Exit(m.Run())
}

func testBox(t *testing.T) *Box {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	b := New(context.Background(), self)
	if !b.Support().Full() {
		t.Skipf("this kernel does not confine fully: %s", b.Support())
	}
	return b
}

// run runs script in bash confined by p, in dir; it returns the exit
// status and the output.
func run(t *testing.T, b *Box, p Policy, dir, script string) (int, string) {
	t.Helper()
	cmd := exec.Command("/bin/bash", "-c", script)
	cmd.Dir = dir
	if err := b.Wrap(cmd, p); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), string(out)
	} else if err != nil {
		t.Fatal(err)
	}
	return 0, string(out)
}

func TestFilesystem(t *testing.T) {
	b := testBox(t)
	ws, outside := t.TempDir(), t.TempDir()
	for _, d := range []string{".git/hooks", ".git/objects", ".coder"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{".git/config", ".coder/config.json"} {
		if err := os.WriteFile(filepath.Join(ws, f), []byte("orig\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := Policy{
		Writable:  []string{ws},
		Protected: []string{filepath.Join(ws, ".git/config"), filepath.Join(ws, ".git/hooks"), filepath.Join(ws, ".coder")},
		Pinned:    []string{filepath.Join(ws, ".git")},
	}
	tests := []struct {
		name, script string
		ok           bool
	}{
		{"write in the workspace", "echo hi > new.txt && mkdir -p a/b && echo x > a/b/c", true},
		{"write in .git/objects", "echo x > .git/objects/pack", true},
		{"write outside", "echo x > " + filepath.Join(outside, "escape"), false},
		{"write .git/config", "echo pwned >> .git/config", false},
		{"replace .git/config", "echo pwned > cfg && mv cfg .git/config", false},
		{"write a hook", "echo x > .git/hooks/pre-commit", false},
		{"write .coder", "echo x > .coder/config.json", false},
		{"new file in .coder", "echo x > .coder/skills", false},
		{"move .git away", "mv .git .gitx", false},
		{"remove .coder", "rm -rf .coder", false},
		{"write /dev/null", "echo x > /dev/null", true},
		// As root the shell is root in its user namespace: Landlock still
		// refuses to change the mounts.
		{"unmount the protection", "umount -l .git/config; echo pwned >> .git/config", false},
		{"mount over it", "mkdir -p x && mount --bind x .coder; echo y > .coder/config.json", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out := run(t, b, p, ws, tt.script)
			if (code == 0) != tt.ok {
				t.Errorf("%q: exit %d (%s), want success %v", tt.script, code, out, tt.ok)
			}
		})
	}
	if got, _ := os.ReadFile(filepath.Join(ws, ".git/config")); string(got) != "orig\n" {
		t.Errorf(".git/config is %q", got)
	}
	if _, err := os.Stat(filepath.Join(outside, "escape")); err == nil {
		t.Error("a file was written outside the writable roots")
	}
	if _, err := os.Stat(filepath.Join(ws, "a/b/c")); err != nil {
		t.Errorf("the workspace write did not land: %v", err)
	}
}

func TestNetwork(t *testing.T) {
	b := testBox(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	arrived := make(chan struct{}, 4)
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
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	connect := "exec 3<>/dev/tcp/127.0.0.1/" + port + " && echo connected"
	dir := t.TempDir()
	code, out := run(t, b, Policy{Writable: []string{dir}}, dir, connect)
	if code == 0 || strings.Contains(out, "connected") {
		t.Fatalf("connect without network: exit %d %q", code, out)
	}
	select {
	case <-arrived:
		t.Fatal("the connection arrived")
	case <-time.After(100 * time.Millisecond):
	}
	// Unix sockets stay open (ssh-agent, language servers' pipes).
	if code, out := run(t, b, Policy{Writable: []string{dir}}, dir, "python3 -c 'import socket; socket.socket(socket.AF_UNIX)' || echo nopython"); code != 0 {
		t.Errorf("a Unix socket was refused: %s", out)
	}
	code, out = run(t, b, Policy{Writable: []string{dir}, Network: true}, dir, connect)
	if code != 0 {
		t.Fatalf("connect with network allowed: exit %d %q", code, out)
	}
	<-arrived
}

// TestLauncherRefusesBadRequest: a request it cannot read never runs the
// command.
func TestLauncherRefusesBadRequest(t *testing.T) {
	self, _ := os.Executable()
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	out, err := exec.Command(self, Subcommand, `{"writable": 5}`, "--", "/bin/sh", "-c", "touch "+marker).CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitSetup {
		t.Fatalf("exit %v, want %d: %s", err, exitSetup, out)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the command ran")
	}
}

// TestMountsStayWithoutLandlock: on a kernel without Landlock a shell
// that is root in its user namespace could unmount the protected paths'
// read-only binds; seccomp refuses every change to the mounts.
func TestMountsStayWithoutLandlock(t *testing.T) {
	full := testBox(t)
	b := &Box{launcher: full.launcher, support: Support{Protect: true, Network: true}, userns: true}
	ws := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(ws, ".git", "config")
	if err := os.WriteFile(cfg, []byte("orig\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := Policy{Writable: []string{ws}, Protected: []string{cfg}, Network: true}
	if code, out := run(t, b, p, ws, "umount -l .git/config; echo pwned >> .git/config"); code == 0 {
		t.Errorf("the protection was unmounted: %s", out)
	}
	if got, _ := os.ReadFile(cfg); string(got) != "orig\n" {
		t.Errorf(".git/config is %q", got)
	}
}
