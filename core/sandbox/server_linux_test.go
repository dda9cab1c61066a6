package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// TestServer: the fork server starts a shell confined as a launched one
// is — a write inside lands, outside and to a protected path fails — as
// the host's own child (Wait gives its exit status), in a session and
// group of its own; a closed server refuses. Both ways to a server: Serve, and Open,
// whose one launcher start also probes (and must find what New does).
func TestServer(t *testing.T) {
	b := testBox(t)
	serve := func(t *testing.T, p Policy) *Server {
		srv, err := b.Serve(p)
		if err != nil {
			t.Fatal(err)
		}
		return srv
	}
	open := func(t *testing.T, p Policy) *Server {
		ob, srv := Open(context.Background(), b.launcher, p)
		if srv == nil {
			t.Fatal("Open started no server")
		}
		if got, want := ob.Support(), b.Support(); !reflect.DeepEqual(got, want) || ob.userns != b.userns {
			t.Errorf("Open found %+v (userns %v), New %+v (userns %v)", got, ob.userns, want, b.userns)
		}
		return srv
	}
	for name, start := range map[string]func(*testing.T, Policy) *Server{"serve": serve, "open": open} {
		t.Run(name, func(t *testing.T) { testServer(t, start) })
	}
}

func testServer(t *testing.T, start func(*testing.T, Policy) *Server) {
	ws, outside := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(ws, ".git", "config")
	os.WriteFile(cfg, []byte("orig\n"), 0o644)
	srv := start(t, Policy{Writable: []string{ws}, Protected: []string{cfg}, Pinned: []string{filepath.Join(ws, ".git")}})
	outR, outW, _ := os.Pipe()
	cmdR, cmdW, _ := os.Pipe()
	script := "echo in > in.txt; echo x > " + filepath.Join(outside, "escape") + "; echo pwned >> .git/config; read -r pid _ _ _ pgid sid _ < /proc/self/stat; echo pgid=$pgid sid=$sid pid=$pid; exit 3"
	p, err := srv.Spawn("/bin/bash", []string{"bash", "-c", script}, os.Environ(), ws, [3]*os.File{outW, outW, cmdR})
	outW.Close()
	cmdR.Close()
	cmdW.Close()
	if err != nil {
		t.Fatal(err)
	}
	out := make([]byte, 4096)
	var got strings.Builder
	for {
		n, err := outR.Read(out)
		got.Write(out[:n])
		if err != nil {
			break
		}
	}
	st, err := p.Wait()
	if err != nil {
		t.Fatalf("Wait: %v (the shell is not the host's child)", err)
	}
	if st.ExitCode() != 3 {
		t.Errorf("exit %d, want 3\n%s", st.ExitCode(), got.String())
	}
	if _, err := os.Stat(filepath.Join(ws, "in.txt")); err != nil {
		t.Errorf("the write inside did not land: %v", err)
	}
	if _, err := os.Stat(filepath.Join(outside, "escape")); err == nil {
		t.Error("a write outside landed")
	}
	if data, _ := os.ReadFile(cfg); string(data) != "orig\n" {
		t.Errorf(".git/config is %q", data)
	}
	// Read in /proc/self/stat by bash itself: $$ is 1 in its PID
	// namespace, the host's /proc gives the host's numbers.
	if want := "pgid=" + itoa(p.Pid) + " sid=" + itoa(p.Pid) + " pid=" + itoa(p.Pid); !strings.Contains(got.String(), want) {
		t.Errorf("not in a session and group of its own: %q, want %q", got.String(), want)
	}
	srv.Close()
	if _, err := srv.Spawn("/bin/true", []string{"true"}, nil, ws, [3]*os.File{os.Stdout, os.Stdout, os.Stdout}); err == nil {
		t.Error("a closed server started a program")
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
