package sandbox

import (
	"bytes"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestServedShellIsPIDOne: a served shell is PID 1 of a namespace of its
// own. Its exit status reaches the host as before; what it started in
// the background, a setsid daemon too, is gone once it exits; and killing
// its group from the host (the timeout, a cancel) ends a shell whose
// children trap and ignore signals.
func TestServedShellIsPIDOne(t *testing.T) {
	b := testBox(t)
	if !b.Support().PID {
		t.Skipf("no PID namespaces here: %s", b.Support())
	}
	ws := t.TempDir()
	srv, err := b.Serve(Policy{Writable: []string{ws}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	devnull, _ := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	defer devnull.Close()
	start := func(script string) *os.Process {
		p, err := srv.Spawn("/bin/bash", []string{"bash", "-c", script}, os.Environ(), ws, [3]*os.File{devnull, devnull, devnull})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	gone := func(token string) bool {
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) {
			if !running(token) {
				return true
			}
			time.Sleep(10 * time.Millisecond)
		}
		return false
	}

	p := start("echo $$ > pid; sleep 31.0001 & setsid sleep 31.0002 & ( trap '' TERM HUP; sleep 31.0003 ) & exit 7")
	st, err := p.Wait()
	if err != nil || st.ExitCode() != 7 {
		t.Fatalf("exit %v %v, want 7", st, err)
	}
	if data, _ := os.ReadFile(ws + "/pid"); strings.TrimSpace(string(data)) != "1" {
		t.Errorf("$$ is %q, want 1", data)
	}
	for _, tok := range []string{"31.0001", "31.0002", "31.0003"} {
		if !gone(tok) {
			t.Errorf("sleep %s outlived its shell", tok)
		}
	}

	p = start("trap '' TERM; setsid sleep 32.0001 & sleep 32.0002; wait")
	deadline := time.Now().Add(5 * time.Second)
	for !running("32.0002") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if err := syscall.Kill(-p.Pid, syscall.SIGKILL); err != nil {
		t.Fatalf("kill the group: %v", err)
	}
	st, _ = p.Wait()
	if ws, ok := st.Sys().(syscall.WaitStatus); !ok || ws.Signal() != syscall.SIGKILL {
		t.Errorf("the shell ended %v, want killed", st)
	}
	for _, tok := range []string{"32.0001", "32.0002"} {
		if !gone(tok) {
			t.Errorf("sleep %s outlived the killed shell", tok)
		}
	}
}

// running reports whether `sleep token` runs (not a zombie).
func running(token string) bool {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if cl, err := os.ReadFile("/proc/" + e.Name() + "/cmdline"); err == nil && bytes.Equal(cl, []byte("sleep\x00"+token+"\x00")) {
			if st, _ := os.ReadFile("/proc/" + e.Name() + "/stat"); !bytes.Contains(st, []byte(") Z")) {
				return true
			}
		}
	}
	return false
}

// TestLaunchedShellOwnSession: a shell started by a launcher of its own
// (the fallback when the fork server fails) is in a session of its own,
// PID 1 of its own namespace, with a /proc of that namespace, and without
// a capability.
func TestLaunchedShellOwnSession(t *testing.T) {
	b := testBox(t)
	if !b.Support().PID {
		t.Skipf("no PID namespaces here: %s", b.Support())
	}
	dir := t.TempDir()
	code, out := run(t, b, Policy{Writable: []string{dir}}, dir,
		`read -r pid _ _ _ pgid sid _ < /proc/self/stat; echo "pid=$$ stat=$pid sid=$sid"; ls /proc | grep -c '^[0-9]'; grep CapEff /proc/self/status`)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	if !strings.Contains(out, "pid=1 stat=1 sid=1\n") {
		t.Errorf("not PID 1 and session leader in its own namespace: %q", out)
	}
	if lines := strings.Split(out, "\n"); len(lines) < 2 || len(lines[1]) > 1 {
		t.Errorf("its /proc lists more than its own few processes: %q", out)
	}
	if !strings.Contains(out, "CapEff:\t0000000000000000") {
		t.Errorf("the shell has capabilities: %q", out)
	}
}
